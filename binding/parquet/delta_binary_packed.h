// Parquet's DELTA_BINARY_PACKED encoding of INT64 values (also valid for INT32 widened to int64):
// a header (block size 128, 4 miniblocks of 32 values, value count, first value), then per block
// the minimum delta and each miniblock's deltas minus that minimum, bit-packed LSB first at the
// miniblock's own bit width. Sorted times (ticks' time_msc) pack into a few bits per value.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tradeapi::parquet {

inline constexpr size_t kDeltaBlockValues = 128;
inline constexpr size_t kDeltaMiniblocks = 4;
inline constexpr size_t kDeltaMiniblockValues = kDeltaBlockValues / kDeltaMiniblocks;

// Appends the encoding of values[0, n) to `out`. Differences wrap modulo 2^64 (as readers expect).
void delta_binary_packed_encode(const int64_t* values, size_t n, std::vector<uint8_t>& out);

// Packs `count` (a multiple of 8) values of `bit_width` bits (0..64) LSB first; appends count*width/8 bytes.
void bit_pack(const uint64_t* values, size_t count, int bit_width, std::vector<uint8_t>& out);

}  // namespace tradeapi::parquet
