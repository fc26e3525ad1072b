// Series leave the terminal as columns: one contiguous typed buffer per field, so that the
// JS side can wrap each buffer as an external ArrayBuffer (no copy) and then as an Arrow vector.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tradeapi {

struct TickColumns {
  std::vector<int64_t> time;       // seconds, == time_msc / 1000
  std::vector<double> bid, ask, last;
  std::vector<uint64_t> volume;
  std::vector<int64_t> time_msc;
  std::vector<uint32_t> flags;     // TICK_FLAG_* bits of what changed
  std::vector<double> volume_real;

  size_t rows() const { return time.size(); }
  void reserve(size_t n) {
    time.reserve(n); bid.reserve(n); ask.reserve(n); last.reserve(n); volume.reserve(n);
    time_msc.reserve(n); flags.reserve(n); volume_real.reserve(n);
  }
};

struct RateColumns {
  std::vector<int64_t> time;       // bar open time, seconds
  std::vector<double> open, high, low, close;
  std::vector<uint64_t> tick_volume;
  std::vector<int32_t> spread;     // minimum spread in the bar, points
  std::vector<uint64_t> real_volume;

  size_t rows() const { return time.size(); }
  void reserve(size_t n) {
    time.reserve(n); open.reserve(n); high.reserve(n); low.reserve(n); close.reserve(n);
    tick_volume.reserve(n); spread.reserve(n); real_volume.reserve(n);
  }
};

// A forward-only reader over a series. Each call fills `out` (cleared first) with at most
// `max_rows` rows, ascending in time, and returns false once nothing is left (out then empty).
template <typename Columns>
class SeriesCursor {
 public:
  virtual ~SeriesCursor() = default;
  virtual bool next(size_t max_rows, Columns& out) = 0;
};

using TickCursor = SeriesCursor<TickColumns>;
using RateCursor = SeriesCursor<RateColumns>;

}  // namespace tradeapi
