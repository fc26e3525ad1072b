#include "timeframe.h"

#include "../terminal/constants.h"
#include "sim_time.h"

namespace tradeapi::sim::detail {

bool Timeframe::from_constant(int64_t c, Timeframe& out) {
  namespace m = tradeapi::mt5;
  out = Timeframe{};
  switch (c) {
    case m::TIMEFRAME_M1: case m::TIMEFRAME_M2: case m::TIMEFRAME_M3: case m::TIMEFRAME_M4:
    case m::TIMEFRAME_M5: case m::TIMEFRAME_M6: case m::TIMEFRAME_M10: case m::TIMEFRAME_M12:
    case m::TIMEFRAME_M15: case m::TIMEFRAME_M20: case m::TIMEFRAME_M30:
      out.seconds_ = c * 60;  // minute frames are encoded as their number of minutes
      return true;
    case m::TIMEFRAME_H1: case m::TIMEFRAME_H2: case m::TIMEFRAME_H3: case m::TIMEFRAME_H4:
    case m::TIMEFRAME_H6: case m::TIMEFRAME_H8: case m::TIMEFRAME_H12:
      out.seconds_ = (c - 0x4000) * 3600;  // hour frames: 0x4000 | hours
      return true;
    case m::TIMEFRAME_D1:
      out.seconds_ = kDayS;
      return true;
    case m::TIMEFRAME_W1:
      out.kind_ = Kind::Week;
      return true;
    case m::TIMEFRAME_MN1:
      out.kind_ = Kind::Month;
      return true;
    default:
      return false;
  }
}

int64_t Timeframe::open_of(int64_t t) const {
  switch (kind_) {
    case Kind::Fixed:
      return floor_div(t, seconds_) * seconds_;
    case Kind::Week: {
      const int64_t day = floor_div(t, kDayS);
      return (day - weekday_of_day(day)) * kDayS;
    }
    case Kind::Month: {
      const Civil c = civil_from_days(floor_div(t, kDayS));
      return days_from_civil(c.y, c.m, 1) * kDayS;
    }
  }
  return t;
}

int64_t Timeframe::next_open(int64_t open) const {
  switch (kind_) {
    case Kind::Fixed: return open + seconds_;
    case Kind::Week: return open + 7 * kDayS;
    case Kind::Month: {
      const Civil c = civil_from_days(floor_div(open, kDayS));
      return (c.m == 12 ? days_from_civil(c.y + 1, 1, 1) : days_from_civil(c.y, c.m + 1, 1)) * kDayS;
    }
  }
  return open;
}

int64_t Timeframe::prev_open(int64_t open) const {
  switch (kind_) {
    case Kind::Fixed: return open - seconds_;
    case Kind::Week: return open - 7 * kDayS;
    case Kind::Month: {
      const Civil c = civil_from_days(floor_div(open, kDayS));
      return (c.m == 1 ? days_from_civil(c.y - 1, 12, 1) : days_from_civil(c.y, c.m - 1, 1)) * kDayS;
    }
  }
  return open;
}

}  // namespace tradeapi::sim::detail
