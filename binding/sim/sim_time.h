// Calendar arithmetic on epoch seconds/minutes without <ctime> (no time zones, no locale):
// floor division, civil dates (H. Hinnant's algorithms), weekdays, timeframe bar boundaries.
#pragma once
#include <cstdint>

namespace tradeapi::sim::detail {

inline constexpr int64_t kMinuteMs = 60000;
inline constexpr int64_t kDayS = 86400;
inline constexpr int64_t kMinutesPerDay = 1440;

inline int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// 0 = Sunday ... 6 = Saturday (DAY_OF_WEEK_*). 1970-01-01 was a Thursday.
inline int64_t weekday_of_day(int64_t day) {
  const int64_t r = (day + 4) % 7;
  return r < 0 ? r + 7 : r;
}

struct Civil {
  int64_t y;
  int64_t m;  // 1..12
  int64_t d;  // 1..31
};

inline int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = floor_div(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

inline Civil civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = floor_div(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  return Civil{yoe + era * 400 + (m <= 2), m, d};
}

}  // namespace tradeapi::sim::detail
