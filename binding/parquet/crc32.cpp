#include "crc32.h"

#include <array>
#include <cstring>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "crc32.cpp loads 8 bytes at a time as little-endian words"
#endif

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define TRADEAPI_CRC32_CLMUL 1
#include <immintrin.h>
#endif

namespace tradeapi::parquet {

namespace {

using Tables = std::array<std::array<uint32_t, 256>, 16>;

// kTables[0]: the byte-at-a-time table; kTables[k][b]: the CRC of byte b followed by k zero bytes.
constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    t[0][b] = c;
  }
  for (size_t k = 1; k < 16; ++k) {
    for (size_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}

constexpr Tables kTables = make_tables();
static_assert(kTables[0][1] == 0x77073096u, "CRC-32 table");

// The register (the CRC before its final inversion) after `size` more bytes, 16 at a time.
uint32_t update_tables(uint32_t c, const uint8_t* p, size_t size) {
  const auto& t = kTables;
  while (size >= 16) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    a ^= c;
    c = t[15][a & 0xFF] ^ t[14][(a >> 8) & 0xFF] ^ t[13][(a >> 16) & 0xFF] ^ t[12][(a >> 24) & 0xFF] ^
        t[11][(a >> 32) & 0xFF] ^ t[10][(a >> 40) & 0xFF] ^ t[9][(a >> 48) & 0xFF] ^ t[8][a >> 56] ^
        t[7][b & 0xFF] ^ t[6][(b >> 8) & 0xFF] ^ t[5][(b >> 16) & 0xFF] ^ t[4][(b >> 24) & 0xFF] ^
        t[3][(b >> 32) & 0xFF] ^ t[2][(b >> 40) & 0xFF] ^ t[1][(b >> 48) & 0xFF] ^ t[0][b >> 56];
    p += 16;
    size -= 16;
  }
  while (size-- > 0) c = (c >> 8) ^ t[0][(c ^ *p++) & 0xFF];
  return c;
}

#ifdef TRADEAPI_CRC32_CLMUL

#define TRADEAPI_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

TRADEAPI_CLMUL_TARGET inline __m128i load16(const uint8_t* at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at)); }

// acc folded over 128 bits (by the constants in k) onto the next 16 bytes.
TRADEAPI_CLMUL_TARGET inline __m128i fold16(__m128i acc, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
  const __m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(hi, next), lo);
}

// The register after `size` bytes, size >= 64 and a multiple of 16: four 128-bit lanes folded 64
// bytes at a time, then into one lane, then reduced to 32 bits (Barrett). The bit-reflected
// constants k1..k5, P(x) and mu of the paper's appendix.
TRADEAPI_CLMUL_TARGET uint32_t update_clmul(uint32_t c, const uint8_t* p, size_t size) {
  alignas(16) static const uint64_t k1k2[2] = {0x0154442bd4, 0x01c6e41596};
  alignas(16) static const uint64_t k3k4[2] = {0x01751997d0, 0x00ccaa009e};
  alignas(16) static const uint64_t k5k0[2] = {0x0163cd6124, 0x0000000000};
  alignas(16) static const uint64_t poly[2] = {0x01db710641, 0x01f7011641};
  __m128i x1 = load16(p), x2 = load16(p + 16), x3 = load16(p + 32), x4 = load16(p + 48);
  x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128(static_cast<int>(c)));
  __m128i x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k1k2));
  p += 64;
  size -= 64;
  while (size >= 64) {
    x1 = fold16(x1, x0, load16(p));
    x2 = fold16(x2, x0, load16(p + 16));
    x3 = fold16(x3, x0, load16(p + 32));
    x4 = fold16(x4, x0, load16(p + 48));
    p += 64;
    size -= 64;
  }
  // Four lanes into one, then the remaining 16-byte blocks.
  x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k3k4));
  x1 = fold16(x1, x0, x2);
  x1 = fold16(x1, x0, x3);
  x1 = fold16(x1, x0, x4);
  while (size >= 16) {
    x1 = fold16(x1, x0, load16(p));
    p += 16;
    size -= 16;
  }
  // 128 bits to 64.
  x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
  x3 = _mm_setr_epi32(~0, 0, ~0, 0);
  x1 = _mm_srli_si128(x1, 8);
  x1 = _mm_xor_si128(x1, x2);
  x0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(k5k0));
  x2 = _mm_srli_si128(x1, 4);
  x1 = _mm_and_si128(x1, x3);
  x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  // Barrett reduction to 32 bits.
  x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(poly));
  x2 = _mm_and_si128(x1, x3);
  x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
  x2 = _mm_and_si128(x2, x3);
  x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  return static_cast<uint32_t>(_mm_extract_epi32(x1, 1));
}

bool have_clmul() {
  static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return yes;
}

#endif

}  // namespace

uint32_t crc32(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
#ifdef TRADEAPI_CRC32_CLMUL
  if (size >= 64 && have_clmul()) {
    const size_t blocks = size & ~size_t{15};
    c = update_clmul(c, p, blocks);
    p += blocks;
    size -= blocks;
  }
#endif
  return ~update_tables(c, p, size);
}

namespace detail {

uint32_t crc32_tables(const void* data, size_t size, uint32_t crc) {
  return ~update_tables(~crc, static_cast<const uint8_t*>(data), size);
}

bool crc32_uses_clmul() {
#ifdef TRADEAPI_CRC32_CLMUL
  return have_clmul();
#else
  return false;
#endif
}

}  // namespace detail

}  // namespace tradeapi::parquet
