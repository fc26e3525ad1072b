// Series chunks as columns (docs/bridge-protocol.md §7, protocol 2): a SERIES_CHUNK payload is a
// 12-byte head (rows u32, codec u8, 3 reserved bytes, body_length u32) and a body, zstd-compressed
// or not, holding one block per field of SERIES_HEAD's dtype, in the dtype's order: RAW values,
// DELTA-coded integers, SCALED prices (integer points, k / scale or k * scale, delta-coded) or
// SECONDS (time = floor(time_msc / 1000)). ColumnChunk checks a payload whole before a row is
// decoded, then hands out its rows a range at a time, straight into the columns the simulator also
// produces: nothing is transposed, and memory is the payload and its body, never the rows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "frame.h"
#include "series_layout.h"
#include "terminal/columns.h"

namespace tradeapi::bridge {

enum class ChunkCodec : uint8_t { None = 0, Zstd = 1 };
enum class BlockEncoding : uint8_t { Raw = 0, Delta = 1, Scaled = 2, Seconds = 3 };

constexpr size_t kChunkHeadSize = 12;
// The largest block header (SCALED: encoding, op, scale f8, width, first i64): a body never
// exceeds the rows it stands for by more than this per field.
constexpr size_t kMaxBlockOverhead = 19;

// A zstd decompression context, reused from chunk to chunk.
class ZstdDecoder {
 public:
  ZstdDecoder();
  ~ZstdDecoder();
  ZstdDecoder(const ZstdDecoder&) = delete;
  ZstdDecoder& operator=(const ZstdDecoder&) = delete;
  // Decompresses src into out (resized to exactly `length`); ProtocolError unless the frame(s)
  // hold exactly `length` bytes.
  void decompress(const uint8_t* src, size_t n, size_t length, std::string& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One field's block of the current chunk, and how far its rows have been handed out.
struct ColumnBlock {
  BlockEncoding encoding = BlockEncoding::Raw;
  DType type = DType::I8;
  const uint8_t* data = nullptr;  // RAW: the values; DELTA/SCALED: the deltas
  uint8_t width = 0;              // DELTA/SCALED: bytes per delta (0, 1, 2, 4, 8)
  uint64_t value = 0;             // DELTA/SCALED: the last value handed out (first, before row 0)
  bool divide = true;             // SCALED: value = k / scale, else k * scale
  double scale = 1;
};

class ColumnChunk {
 public:
  // Parses a payload against the SERIES_HEAD layout: head, decompression, every block's bounds.
  // Throws ProtocolError on anything docs/bridge-protocol.md §7 does not allow (then holds no rows).
  void reset(const RowLayout& layout, std::string payload, ZstdDecoder& zstd);
  size_t rows() const { return rows_; }
  size_t left() const { return rows_ - pos_; }
  size_t body_length() const { return body_length_; }
  const ColumnBlock& block(size_t field) const { return blocks_[field]; }

  // The next n rows of field `f` (whose type is T's) into dst; every field must be taken for the
  // same rows before advance(n). SECONDS fields are not decoded here (derive_seconds).
  template <typename T>
  void take(size_t f, size_t n, T* dst);
  void advance(size_t n) { pos_ += n; }

 private:
  std::string payload_;  // the frame's payload, kept while its rows are handed out
  std::string body_;     // the decompressed body (zstd chunks)
  std::vector<ColumnBlock> blocks_;
  size_t rows_ = 0, pos_ = 0, body_length_ = 0;
};

// Fills Columns from ColumnChunks, the columnar counterpart of Transposer: every column must be in
// the layout with exactly its type (checked once, at SERIES_HEAD).
template <typename Columns>
class ColumnDecoder {
 public:
  explicit ColumnDecoder(const RowLayout& layout) : layout_(layout) {
    Columns probe;
    for_each_column(probe, [&](const char* name, auto& col) {
      using T = typename std::decay_t<decltype(col)>::value_type;
      for (size_t i = 0; i < layout.fields.size(); ++i) {
        if (layout.fields[i].name != name) continue;
        if (layout.fields[i].type != dtype_of<T>())
          throw ProtocolError(std::string("series field ") + name + " has an unexpected type");
        fields_.push_back(i);
        if (std::strcmp(name, "time_msc") == 0) time_msc_ = i;
        return;
      }
      throw ProtocolError(std::string("series dtype lacks field ") + name);
    });
  }

  const RowLayout& layout() const { return layout_; }

  // Appends the chunk's next n rows (n <= chunk.left()) to out.
  void append(ColumnChunk& chunk, size_t n, Columns& out) const {
    size_t i = 0;
    int64_t* seconds = nullptr;
    const int64_t* msc = nullptr;
    for_each_column(out, [&](const char*, auto& col) {
      const size_t f = fields_[i++];
      size_t base = col.size();
      col.resize(base + n);
      using T = typename std::decay_t<decltype(col)>::value_type;
      T* dst = col.data() + base;
      if constexpr (std::is_same_v<T, int64_t>) {
        if (f == time_msc_) msc = dst;
        if (chunk.block(f).encoding == BlockEncoding::Seconds) {
          seconds = dst;  // after time_msc is decoded (it may come later in the columns)
          return;
        }
      }
      chunk.take(f, n, dst);
    });
    if (seconds) {
      if (!msc) throw ProtocolError("SERIES_CHUNK SECONDS block for a series without time_msc");
      // The encoder checked time == floor(time_msc / 1000) on every row (§7).
      for (size_t r = 0; r < n; ++r) {
        int64_t t = msc[r];
        seconds[r] = t / 1000 - (t % 1000 < 0 ? 1 : 0);
      }
    }
    chunk.advance(n);
  }

 private:
  RowLayout layout_;
  std::vector<size_t> fields_;  // for each column, its field in the layout
  size_t time_msc_ = SIZE_MAX;
};

namespace detail {

template <typename D>
inline D load_le(const uint8_t* p) {
  D v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Running sum of `width`-byte signed deltas (wrapping 64-bit), each result converted by `out`.
template <typename D, typename Out>
inline void delta_run(const uint8_t* deltas, size_t n, uint64_t& value, Out&& out) {
  for (size_t r = 0; r < n; ++r) {
    value += static_cast<uint64_t>(static_cast<int64_t>(load_le<D>(deltas + r * sizeof(D))));
    out(r, value);
  }
}

}  // namespace detail

template <typename T>
void ColumnChunk::take(size_t f, size_t n, T* dst) {
  ColumnBlock& b = blocks_[f];
  if (n == 0) return;
  if (b.encoding == BlockEncoding::Raw) {
    std::memcpy(dst, b.data + pos_ * sizeof(T), n * sizeof(T));
    return;
  }
  // Row 0 is the first value itself; row r > 0 adds delta r - 1.
  auto convert = [&b](uint64_t v) -> T {
    if constexpr (std::is_same_v<T, double>) {
      double k = static_cast<double>(static_cast<int64_t>(v));
      return b.divide ? k / b.scale : k * b.scale;
    } else {
      return static_cast<T>(v);  // the low bits: i4/u4 fields were sign/zero-extended by the bridge
    }
  };
  size_t r = 0;
  if (pos_ == 0) {
    dst[0] = convert(b.value);
    r = 1;
  }
  const size_t from = pos_ + r - 1;  // the first delta still to apply
  const size_t count = n - r;
  T* out = dst + r;
  auto put = [&](size_t i, uint64_t v) { out[i] = convert(v); };
  switch (b.width) {
    case 0: {
      const T v = convert(b.value);  // every row the first: converted once (last, volume_real of FX)
      for (size_t i = 0; i < count; ++i) out[i] = v;
      break;
    }
    case 1: detail::delta_run<int8_t>(b.data + from, count, b.value, put); break;
    case 2: detail::delta_run<int16_t>(b.data + from * 2, count, b.value, put); break;
    case 4: detail::delta_run<int32_t>(b.data + from * 4, count, b.value, put); break;
    default: detail::delta_run<int64_t>(b.data + from * 8, count, b.value, put); break;
  }
}

}  // namespace tradeapi::bridge
