#include "dictionary.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "parquet_writer.h"
#include "thrift_compact.h"

#if defined(__GNUC__) || defined(__clang__)
#define TRADEAPI_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define TRADEAPI_LIKELY(x) (x)
#endif

namespace tradeapi::parquet {

namespace {

// Fibonacci hashing: the top bits of key * 2^64 / phi. Prices differ in their low mantissa bits,
// which the multiply carries up into the top bits; keys in arithmetic progression (a price grid)
// land nearly evenly spread.
inline size_t slot_of(uint64_t key, int shift) { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift); }

constexpr int kInitialBits = 10;  // 1024 slots (12 KB)

// Grows past 1/8 full while small, past 1/4 once 8 K slots (96 KB) or more. Home-slot misses (a
// mispredicted branch each) on simulated EURUSD bid/ask: ~5 % of lookups at 1/2 full, ~3 % at
// 1/4, under 0.5 % at 1/8; with thousands of distinct values the cache footprint of a sparser
// table costs more than its collisions save.
inline bool too_full(size_t size, size_t capacity) { return size * (capacity < 8192 ? 8 : 4) > capacity; }

}  // namespace

int DictionaryBuilder::bit_width() const {
  int bits = 1;
  while (bits < 32 && (size_t{1} << bits) < size_) ++bits;
  return bits;
}

void DictionaryBuilder::reset_table(int bits) {
  shift_ = 64 - bits;
  // Filler keys for the empty slots: 0 everywhere but in 0's own home slot, which gets a key
  // whose home is elsewhere.
  uint64_t other = 1;
  const size_t zero_home = slot_of(0, shift_);
  while (slot_of(other, shift_) == zero_home) ++other;
  keys_.assign(size_t{1} << bits, 0);
  keys_[zero_home] = other;
  slots_.assign(size_t{1} << bits, kEmpty);
}

void DictionaryBuilder::grow() {
  const std::vector<uint64_t> keys = std::move(keys_);
  const std::vector<uint32_t> slots = std::move(slots_);
  reset_table(64 - shift_ + 1);
  const size_t mask = keys_.size() - 1;
  for (size_t s = 0; s < keys.size(); ++s) {
    if (slots[s] == kEmpty) continue;
    size_t h = slot_of(keys[s], shift_);
    while (slots_[h] != kEmpty) h = (h + 1) & mask;
    keys_[h] = keys[s];
    slots_[h] = slots[s];
  }
}

bool DictionaryBuilder::find_or_insert(uint64_t key, size_t home, size_t limit, uint32_t& index) {
  const size_t mask = keys_.size() - 1;
  for (size_t h = home;; h = (h + 1) & mask) {
    if (slots_[h] == kEmpty) {
      if (size_ >= limit) return false;
      index = static_cast<uint32_t>(size_);
      keys_[h] = key;
      slots_[h] = index;
      ++size_;
      // The value's own width_ bytes: the low bytes of its key (little-endian hosts only).
      const size_t at = values_.size();
      values_.resize(at + width_);
      std::memcpy(values_.data() + at, &key, width_);
      if (too_full(size_, keys_.size())) grow();
      return true;
    }
    if (keys_[h] == key) {
      index = slots_[h];
      return true;
    }
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
  const uint64_t* keys = keys_.data();
  const uint32_t* slots = slots_.data();
  int shift = shift_;
  for (const Segment& s : segments) {
    const auto* base = static_cast<const uint8_t*>(s.data);
    for (size_t i = 0; i < s.rows; ++i) {
      T raw;
      std::memcpy(&raw, base + i * sizeof(T), sizeof(T));
      if (Scaled) raw = static_cast<T>(static_cast<uint64_t>(raw) * scale);
      const uint64_t key = static_cast<uint64_t>(raw);
      // No short cut for a repeat of the previous value: that branch is a coin toss on ticks,
      // while this one is nearly always taken.
      const size_t h = slot_of(key, shift);
      if (TRADEAPI_LIKELY(keys[h] == key)) {
        *out++ = slots[h];
        continue;
      }
      uint32_t index;
      if (!find_or_insert(key, h, limit, index)) return false;
      keys = keys_.data();  // the table may have grown
      slots = slots_.data();
      shift = shift_;
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
  reset_table(kInitialBits);
  if (indices_capacity_ < rows) {
    indices_.reset(new uint32_t[rows]);
    indices_capacity_ = rows;
  }
  if (width == 4) return scale == 1 ? build_typed<uint32_t, false>(segments, scale, limit) : build_typed<uint32_t, true>(segments, scale, limit);
  return scale == 1 ? build_typed<uint64_t, false>(segments, scale, limit) : build_typed<uint64_t, true>(segments, scale, limit);
}

namespace {

// Bit-packs `groups` groups of 8 values of W bits (LSB first: value i occupies bits [i * W,
// (i + 1) * W) of the run; each group is W whole bytes), W a constant so that every shift and
// store below is fixed at compile time. Whenever 32 bits are filled they go out as one
// little-endian 4-byte store (little-endian hosts only, as is every platform Node runs on); the
// rest of a group (8 * W mod 32 bits) goes out as one 8-byte store, whose excess the next group
// overwrites (the caller leaves 8 bytes of room past the end).
template <int W>
void pack_groups(const uint32_t* in, size_t groups, uint8_t* p) {
  for (size_t g = 0; g < groups; ++g, in += 8, p += W) {
    uint64_t acc = 0;
    int filled = 0;
    uint8_t* q = p;
    for (int j = 0; j < 8; ++j) {
      acc |= static_cast<uint64_t>(in[j]) << filled;
      filled += W;
      if (filled >= 32) {
        const auto word = static_cast<uint32_t>(acc);
        std::memcpy(q, &word, 4);
        q += 4;
        acc >>= 32;
        filled -= 32;
      }
    }
    std::memcpy(q, &acc, 8);
  }
}

using PackGroups = void (*)(const uint32_t*, size_t, uint8_t*);

template <size_t... I>
constexpr std::array<PackGroups, sizeof...(I)> packers(std::index_sequence<I...>) {
  return {&pack_groups<static_cast<int>(I) + 1>...};
}

constexpr std::array<PackGroups, 32> kPackers = packers(std::make_index_sequence<32>());

}  // namespace

void encode_dictionary_indices(const uint32_t* indices, size_t n, int bit_width, bool constant, std::vector<uint8_t>& out) {
  if (bit_width < 1 || bit_width > 32) throw std::invalid_argument("parquet: dictionary index bit width out of 1..32");
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
  out.resize(start + bytes + 8);  // + 8: room for the whole-word stores past a group's end
  uint8_t* p = out.data() + start;
  const PackGroups pack = kPackers[bit_width - 1];
  pack(indices, n / 8, p);
  if (n % 8 != 0) {  // the last group, padded with zeros
    uint32_t last[8] = {};
    std::memcpy(last, indices + n / 8 * 8, n % 8 * sizeof(uint32_t));
    pack(last, 1, p + n / 8 * static_cast<size_t>(bit_width));
  }
  out.resize(start + bytes);
}

}  // namespace tradeapi::parquet
