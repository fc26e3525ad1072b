#include "delta_binary_packed.h"

#include <algorithm>

#include "thrift_compact.h"

namespace tradeapi::parquet {

namespace {

int bits_needed(uint64_t v) {
  int bits = 0;
  while (v != 0) {
    ++bits;
    v >>= 1;
  }
  return bits;
}

}  // namespace

void bit_pack(const uint64_t* values, size_t count, int bit_width, std::vector<uint8_t>& out) {
  if (bit_width == 0 || count == 0) return;
  const size_t bytes = count * static_cast<size_t>(bit_width) / 8;
  const size_t start = out.size();
  out.resize(start + bytes);
  uint8_t* p = out.data() + start;
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : ((uint64_t{1} << bit_width) - 1);
  uint64_t acc = 0;
  int filled = 0;  // bits of acc in use
  auto flush_word = [&p](uint64_t w) {
    for (int b = 0; b < 8; ++b) *p++ = static_cast<uint8_t>(w >> (8 * b));
  };
  for (size_t i = 0; i < count; ++i) {
    const uint64_t v = values[i] & mask;
    acc |= v << filled;  // filled < 64 here
    const int total = filled + bit_width;
    if (total >= 64) {
      flush_word(acc);
      acc = filled == 0 ? 0 : v >> (64 - filled);
      filled = total - 64;
    } else {
      filled = total;
    }
  }
  for (int b = 0; b < filled; b += 8) *p++ = static_cast<uint8_t>(acc >> b);
}

void delta_binary_packed_encode(const int64_t* values, size_t n, std::vector<uint8_t>& out) {
  put_varint(out, kDeltaBlockValues);
  put_varint(out, kDeltaMiniblocks);
  put_varint(out, n);
  put_varint(out, zigzag64(n == 0 ? 0 : values[0]));
  uint64_t deltas[kDeltaBlockValues];
  for (size_t block = 1; block < n; block += kDeltaBlockValues) {
    const size_t count = std::min(kDeltaBlockValues, n - block);
    int64_t min_delta = INT64_MAX;
    for (size_t i = 0; i < count; ++i) {
      const auto d = static_cast<int64_t>(static_cast<uint64_t>(values[block + i]) - static_cast<uint64_t>(values[block + i - 1]));
      deltas[i] = static_cast<uint64_t>(d);
      min_delta = std::min(min_delta, d);
    }
    for (size_t i = 0; i < count; ++i) deltas[i] -= static_cast<uint64_t>(min_delta);
    std::fill(deltas + count, deltas + kDeltaBlockValues, 0);  // padding of the last miniblock
    put_varint(out, zigzag64(min_delta));
    int widths[kDeltaMiniblocks] = {};
    const size_t used = (count + kDeltaMiniblockValues - 1) / kDeltaMiniblockValues;
    for (size_t m = 0; m < used; ++m) {
      uint64_t all = 0;
      for (size_t i = 0; i < kDeltaMiniblockValues; ++i) all |= deltas[m * kDeltaMiniblockValues + i];
      widths[m] = bits_needed(all);
    }
    for (int w : widths) out.push_back(static_cast<uint8_t>(w));  // unused miniblocks: width 0
    for (size_t m = 0; m < used; ++m) bit_pack(deltas + m * kDeltaMiniblockValues, kDeltaMiniblockValues, widths[m], out);
  }
}

}  // namespace tradeapi::parquet
