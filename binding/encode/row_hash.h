// The content hash of a tick or bar series (issue 33: every stored file proves what it holds):
// XXH3-128 over the rows in a canonical form independent of any file format, each row packed
// little-endian exactly as the MetaTrader5 Python package's numpy dtype lays it out (60 bytes):
//
//   ticks: time i64 (seconds), bid f64, ask f64, last f64, volume u64, time_msc i64, flags u32, volume_real f64
//   rates: time i64 (seconds), open f64, high f64, low f64, close f64, tick_volume u64, spread i32, real_volume u64
//
// so that `xxhash.xxh3_128_hexdigest(array.tobytes())` of the package's array is the same digest.
// The rows are packed into a small buffer and fed to XXH3's streaming state: how a series is cut
// into chunks never changes the digest. One hasher is used by one thread at a time.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "json_rows.h"  // SeriesKind, SeriesColumns

namespace tradeapi::encode {

// Bytes of one row in the canonical form (both kinds).
inline constexpr size_t kCanonicalRowBytes = 60;

class RowHasher {
 public:
  explicit RowHasher(SeriesKind kind);
  ~RowHasher();
  RowHasher(const RowHasher&) = delete;
  RowHasher& operator=(const RowHasher&) = delete;

  SeriesKind kind() const { return kind_; }
  // Hashes rows [from, to) of a chunk's columns (SeriesColumns: the dtype's field order, each
  // pointing at element 0 of its column, any alignment).
  void update(const SeriesColumns& columns, size_t from, size_t to);
  // Hashes bytes already in the canonical form (a whole number of rows: size % 60 == 0).
  void update_canonical(const void* data, size_t size);
  // The digest of every row so far, in XXH128's canonical (big-endian) byte order. Does not end
  // the hash: more rows may follow.
  std::array<uint8_t, 16> digest() const;
  // The same as 32 lowercase hex digits (what python's xxh3_128_hexdigest prints).
  std::string hex_digest() const;
  uint64_t rows() const { return rows_; }

 private:
  struct State;
  SeriesKind kind_;
  uint64_t rows_ = 0;
  std::unique_ptr<State> state_;
};

// Rows [from, to) of `columns` packed into `out` ((to - from) * 60 bytes) in the canonical form.
void pack_canonical_rows(const SeriesColumns& columns, size_t from, size_t to, uint8_t* out);

// XXH3-128 of a byte range as 32 lowercase hex digits (canonical order), for tests and tools.
std::string xxh3_128_hex(const void* data, size_t size);

// 16 bytes as 32 lowercase hex digits.
std::string to_hex(const std::array<uint8_t, 16>& bytes);

}  // namespace tradeapi::encode
