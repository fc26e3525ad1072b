// Dictionary encoding of one column chunk (Parquet's RLE_DICTIONARY): the distinct values in the
// order first seen, and per row the index of its value. Prices of a tick series take few distinct
// values in a row group (a few hundred points of EURUSD in 128 K ticks), so the dictionary page is
// small and the indices pack into ~10 bits a value: zstd then has a fifth of the bytes to look at,
// and the column is smaller than PLAIN + zstd. This is also what pyarrow writes by default.
//
// Values are keyed by their bits (doubles included), so a value decodes to exactly the bits it was
// written from (-0.0, NaN payloads). A chunk with more distinct values than the limit is not
// dictionary-encoded (build() says so and the caller writes PLAIN pages).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tradeapi::parquet {

struct Segment;

class DictionaryBuilder {
 public:
  // Builds the dictionary of `rows` values of `width` bytes (4 or 8) read from the segments, each
  // int64 multiplied by `scale` (wrapping) first. False when more than `limit` distinct values.
  bool build(const std::vector<Segment>& segments, size_t rows, size_t width, uint64_t scale, size_t limit);

  size_t size() const { return size_; }
  // The distinct values, PLAIN-encoded (little-endian, `width` bytes each), in index order.
  const uint8_t* values() const { return values_.data(); }
  size_t values_bytes() const { return values_.size(); }
  // Per row: the index of its value (not kept for a constant chunk: every index is 0).
  const uint32_t* indices() const { return indices_.get(); }
  // Whether every value is the same (size() == 1).
  bool constant() const { return constant_; }
  // Bits per index in the data pages: enough for size() - 1, at least 1.
  int bit_width() const;

 private:
  template <typename T, bool Scaled>
  bool build_typed(const std::vector<Segment>& segments, uint64_t scale, size_t limit);
  // The slow path of a lookup: `key` is not in its home slot. Finds it further on, or adds it
  // (false when that would exceed `limit`).
  bool find_or_insert(uint64_t key, size_t home, size_t limit, uint32_t& index);
  void reset_table(int bits);
  void grow();

  // Open addressing with linear probing, power-of-two sized and kept sparse (dictionary.cpp), so
  // that nearly every lookup finds its key in its home slot: one key compare, a predictable branch.
  // An empty slot has index kEmpty and a filler key whose home slot is another one, so that a key
  // equal to its home slot's key is always there (no emptiness test on the fast path).
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> slots_;  // index of the value in keys_[slot], or kEmpty
  int shift_ = 64;  // 64 - log2(keys_.size()): a key's home slot is its hash's top bits
  size_t size_ = 0;
  size_t width_ = 8;
  bool constant_ = false;
  std::vector<uint8_t> values_;
  std::unique_ptr<uint32_t[]> indices_;  // not zero-filled: every row gets written
  size_t indices_capacity_ = 0;
};

// Appends a data page body of RLE_DICTIONARY encoding for indices[0, n): the bit width byte, then
// the RLE / bit-packed hybrid: one RLE run when every index is 0 (`constant`: `indices` is not
// read), else one bit-packed run of ceil(n / 8) groups of 8 (the last padded with zeros, which
// readers ignore).
void encode_dictionary_indices(const uint32_t* indices, size_t n, int bit_width, bool constant, std::vector<uint8_t>& out);

}  // namespace tradeapi::parquet
