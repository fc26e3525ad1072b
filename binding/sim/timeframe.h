// Bar boundaries of the TIMEFRAME_* values, in server wall-clock seconds: minute and hour frames
// are aligned to multiples of their length (all divide a day, so they align to midnight), D1 to
// server midnight, W1 to Sunday 00:00, MN1 to the 1st of the month.
#pragma once
#include <cstdint>

namespace tradeapi::sim::detail {

class Timeframe {
 public:
  // Returns false for a value that is not a TIMEFRAME_* constant.
  static bool from_constant(int64_t constant, Timeframe& out);

  int64_t open_of(int64_t t) const;       // open time of the bar containing t
  int64_t next_open(int64_t open) const;  // open time of the following bar
  int64_t prev_open(int64_t open) const;  // open time of the preceding bar
  // The shortest bar length (a month is at least 28 days): bounds the number of bars in a span.
  int64_t min_seconds() const { return kind_ == Kind::Fixed ? seconds_ : kind_ == Kind::Week ? 7 * 86400 : 28 * 86400; }

 private:
  enum class Kind { Fixed, Week, Month };
  Kind kind_ = Kind::Fixed;
  int64_t seconds_ = 60;  // Fixed only
};

}  // namespace tradeapi::sim::detail
