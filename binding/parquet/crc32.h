// CRC-32 as Parquet's PageHeader.crc uses it (parquet.thrift: "the CRC32 checksum of the page, computed
// on the page's bytes as written, excluding the header"): the IEEE 802.3 / zlib polynomial
// (reflected 0xEDB88320, initial value and final XOR 0xFFFFFFFF), crc32("123456789") = 0xCBF43926.
// No vendored library has one (zstd and lz4 use xxHash; zlib is not a dependency). Two ways, the
// same result: on x86-64 with PCLMULQDQ and SSE4.1 (checked at run time) 64-byte blocks are folded
// with carry-less multiplies (Gopal et al., "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ", Intel 2009; the constants of Linux's crc32-pclmul and Chromium's zlib); elsewhere,
// and for the tail, a table-driven slicing-by-16 loop.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tradeapi::parquet {

// The CRC of data[0, size); `crc` continues an earlier one (crc32(b, crc32(a)) == crc32(a + b)).
uint32_t crc32(const void* data, size_t size, uint32_t crc = 0);

namespace detail {
// The table-driven loop alone (tests compare the two ways).
uint32_t crc32_tables(const void* data, size_t size, uint32_t crc = 0);
// Whether crc32() folds with PCLMULQDQ on this CPU.
bool crc32_uses_clmul();
}  // namespace detail

}  // namespace tradeapi::parquet
