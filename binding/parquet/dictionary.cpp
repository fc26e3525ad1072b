#include "dictionary.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "parquet_writer.h"
#include "thrift_compact.h"

namespace tradeapi::parquet {

namespace {

inline size_t slot_of(uint64_t key, size_t mask) {
  // Fibonacci hashing: prices differ in their low mantissa bits, which the multiply spreads upward.
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

}  // namespace

int DictionaryBuilder::bit_width() const {
  int bits = 1;
  while (bits < 32 && (size_t{1} << bits) < size_) ++bits;
  return bits;
}

void DictionaryBuilder::reset_table(size_t capacity) {
  keys_.assign(capacity, 0);
  slots_.assign(capacity, 0);
  mask_ = capacity - 1;
}

void DictionaryBuilder::grow() {
  std::vector<uint64_t> keys = std::move(keys_);
  std::vector<uint32_t> slots = std::move(slots_);
  reset_table(keys.size() * 2);
  for (size_t s = 0; s < keys.size(); ++s) {
    if (slots[s] == 0) continue;
    size_t h = slot_of(keys[s], mask_);
    while (slots_[h] != 0) h = (h + 1) & mask_;
    keys_[h] = keys[s];
    slots_[h] = slots[s];
  }
}

template <typename T>
bool all_equal(const std::vector<Segment>& segments, T& first) {
  bool have = false;
  for (const Segment& s : segments) {
    const auto* base = static_cast<const uint8_t*>(s.data);
    if (s.rows == 0) continue;
    if (!have) {
      std::memcpy(&first, base, sizeof(T));
      have = true;
    }
    // Branch-free over the segment (vectorised): constant columns (FX ticks' last, volume,
    // volume_real) are common and cost ~0.1 ns a value this way.
    // In blocks, so that a column of prices gives up after its first block.
    for (size_t from = 0; from < s.rows; from += 1024) {
      const size_t to = std::min(s.rows, from + 1024);
      T diff = 0;
      for (size_t i = from; i < to; ++i) {
        T v;
        std::memcpy(&v, base + i * sizeof(T), sizeof(T));
        diff |= v ^ first;
      }
      if (diff != 0) return false;
    }
  }
  return have;
}

template <typename T, bool Scaled>
bool DictionaryBuilder::build_typed(const std::vector<Segment>& segments, uint64_t scale, size_t limit) {
  uint32_t* out = indices_.get();
  // Consecutive ticks often repeat a price: the last value short-cuts the table.
  uint64_t last_key = 0;
  uint32_t last_index = UINT32_MAX;
  for (const Segment& s : segments) {
    const auto* base = static_cast<const uint8_t*>(s.data);
    for (size_t i = 0; i < s.rows; ++i) {
      T raw;
      std::memcpy(&raw, base + i * sizeof(T), sizeof(T));
      if (Scaled) raw = static_cast<T>(static_cast<uint64_t>(raw) * scale);
      const uint64_t key = static_cast<uint64_t>(raw);
      if (key == last_key && last_index != UINT32_MAX) {
        *out++ = last_index;
        continue;
      }
      size_t h = slot_of(key, mask_);
      uint32_t index;
      for (;;) {
        const uint32_t slot = slots_[h];
        if (slot == 0) {
          if (size_ >= limit) return false;
          index = static_cast<uint32_t>(size_);
          keys_[h] = key;
          slots_[h] = index + 1;
          ++size_;
          const size_t at = values_.size();
          values_.resize(at + sizeof(T));
          std::memcpy(values_.data() + at, &raw, sizeof(T));
          if (size_ * 2 > keys_.size()) grow();
          break;
        }
        if (keys_[h] == key) {
          index = slot - 1;
          break;
        }
        h = (h + 1) & mask_;
      }
      last_key = key;
      last_index = index;
      *out++ = index;
    }
  }
  return true;
}

bool DictionaryBuilder::build(const std::vector<Segment>& segments, size_t rows, size_t width, uint64_t scale, size_t limit) {
  if (width != 4 && width != 8) throw std::invalid_argument("parquet: dictionary of 4- or 8-byte values only");
  width_ = width;
  size_ = 0;
  constant_ = false;
  values_.clear();
  if (rows == 0 || limit == 0) return false;
  // A constant column: one value, no indices (its pages are one RLE run each).
  if (width == 4) {
    uint32_t first = 0;
    if (scale == 1 && all_equal(segments, first)) {
      values_.resize(4);
      std::memcpy(values_.data(), &first, 4);
      size_ = 1;
      constant_ = true;
      return true;
    }
  } else {
    uint64_t first = 0;
    if (all_equal(segments, first)) {
      if (scale != 1) first *= scale;
      values_.resize(8);
      std::memcpy(values_.data(), &first, 8);
      size_ = 1;
      constant_ = true;
      return true;
    }
  }
  reset_table(1024);
  if (indices_capacity_ < rows) {
    indices_.reset(new uint32_t[rows]);
    indices_capacity_ = rows;
  }
  if (width == 4) return scale == 1 ? build_typed<uint32_t, false>(segments, scale, limit) : build_typed<uint32_t, true>(segments, scale, limit);
  return scale == 1 ? build_typed<uint64_t, false>(segments, scale, limit) : build_typed<uint64_t, true>(segments, scale, limit);
}

void encode_dictionary_indices(const uint32_t* indices, size_t n, int bit_width, bool constant, std::vector<uint8_t>& out) {
  out.push_back(static_cast<uint8_t>(bit_width));
  if (n == 0) return;
  if (constant) {
    put_varint(out, static_cast<uint64_t>(n) << 1);  // RLE run of n copies of...
    for (int b = 0; b < (bit_width + 7) / 8; ++b) out.push_back(0);  // ...index 0
    return;
  }
  const size_t groups = (n + 7) / 8;
  put_varint(out, (static_cast<uint64_t>(groups) << 1) | 1);
  const size_t start = out.size();
  const size_t bytes = groups * static_cast<size_t>(bit_width);
  out.resize(start + bytes + 8);  // + 8: room for the last whole-word store below
  uint8_t* p = out.data() + start;
  // LSB first: value i occupies bits [i * w, (i + 1) * w) of the run. w <= 32: whenever 32 bits
  // are filled they go out as one little-endian 4-byte store, and the accumulator never overflows.
  uint64_t acc = 0;
  int filled = 0;
  const size_t padded = groups * 8;
  for (size_t i = 0; i < padded; ++i) {
    const uint64_t v = i < n ? indices[i] : 0;
    acc |= v << filled;
    filled += bit_width;
    if (filled >= 32) {
      const auto word = static_cast<uint32_t>(acc);
      std::memcpy(p, &word, 4);  // little-endian hosts only (as is every platform Node runs on)
      p += 4;
      acc >>= 32;
      filled -= 32;
    }
  }
  const uint64_t rest = acc;
  std::memcpy(p, &rest, 8);  // the last < 32 bits (a whole number of bytes: 8 values per group)
  out.resize(start + bytes);
}

}  // namespace tradeapi::parquet
