#include "exchange_calendar.h"

#include <vector>

#include "sim_time.h"

namespace tradeapi::sim::detail {

namespace {

constexpr int64_t kHourS = 3600;
constexpr int64_t kSunday = 0, kMonday = 1, kThursday = 4, kFriday = 5, kSaturday = 6;

// The n-th (1-based) weekday wd of a month, as a day number.
int64_t nth_weekday(int64_t y, int64_t m, int64_t wd, int64_t n) {
  const int64_t first = days_from_civil(y, m, 1);
  return first + (wd - weekday_of_day(first) + 7) % 7 + 7 * (n - 1);
}

int64_t last_weekday(int64_t y, int64_t m, int64_t wd) {
  const int64_t last = (m == 12 ? days_from_civil(y + 1, 1, 1) : days_from_civil(y, m + 1, 1)) - 1;
  return last - (weekday_of_day(last) - wd + 7) % 7;
}

int64_t year_of(int64_t utc_s) { return civil_from_days(floor_div(utc_s, kDayS)).y; }

// Easter Sunday (Gregorian; the anonymous algorithm of Meeus/Jones/Butcher), as a day number.
int64_t easter(int64_t y) {
  const int64_t a = y % 19, b = y / 100, c = y % 100, d = b / 4, e = b % 4, f = (b + 8) / 25, g = (b - f + 1) / 3;
  const int64_t h = (19 * a + b - d - g + 15) % 30, i = c / 4, k = c % 4;
  const int64_t l = (32 + 2 * e + 2 * i - h - k) % 7, m = (a + 11 * h + 22 * l) / 451;
  const int64_t month = (h + l - 7 * m + 114) / 31, day = (h + l - 7 * m + 114) % 31 + 1;
  return days_from_civil(y, month, day);
}

// A fixed-date holiday as the NYSE observes it: Saturday -> the Friday before, Sunday -> the Monday after.
int64_t observed(int64_t day) {
  const int64_t wd = weekday_of_day(day);
  return wd == kSaturday ? day - 1 : (wd == kSunday ? day + 1 : day);
}

struct NyseYear {
  std::vector<int64_t> closed, early;
};

NyseYear nyse_year(int64_t y) {
  NyseYear out;
  // New Year's Day: a Saturday one is not moved back into December (NYSE rule 7.2).
  const int64_t new_year = days_from_civil(y, 1, 1);
  if (weekday_of_day(new_year) != kSaturday) out.closed.push_back(observed(new_year));
  out.closed.push_back(nth_weekday(y, 1, kMonday, 3));   // Martin Luther King Jr. Day
  out.closed.push_back(nth_weekday(y, 2, kMonday, 3));   // Washington's Birthday
  out.closed.push_back(easter(y) - 2);                   // Good Friday
  out.closed.push_back(last_weekday(y, 5, kMonday));     // Memorial Day
  if (y >= 2022) out.closed.push_back(observed(days_from_civil(y, 6, 19)));  // Juneteenth
  out.closed.push_back(observed(days_from_civil(y, 7, 4)));                   // Independence Day
  out.closed.push_back(nth_weekday(y, 9, kMonday, 1));   // Labor Day
  const int64_t thanksgiving = nth_weekday(y, 11, kThursday, 4);
  out.closed.push_back(thanksgiving);
  out.closed.push_back(observed(days_from_civil(y, 12, 25)));  // Christmas
  // Special closures of the simulator's years: national days of mourning.
  if (y == 2018) out.closed.push_back(days_from_civil(2018, 12, 5));
  if (y == 2025) out.closed.push_back(days_from_civil(2025, 1, 9));
  // Early closes (13:00): the eve of Independence Day and Christmas Eve when they are Monday to
  // Thursday (a Friday one is the observed holiday itself), and the day after Thanksgiving.
  for (const int64_t eve : {days_from_civil(y, 7, 3), days_from_civil(y, 12, 24)}) {
    const int64_t wd = weekday_of_day(eve);
    if (wd >= kMonday && wd <= kThursday) out.early.push_back(eve);
  }
  out.early.push_back(thanksgiving + 1);
  return out;
}

NyseDay nyse_day_computed(int64_t day) {
  const NyseYear y = nyse_year(civil_from_days(day).y);
  for (const int64_t d : y.closed) if (d == day) return NyseDay::Closed;
  for (const int64_t d : y.early) if (d == day) return NyseDay::EarlyClose;
  return NyseDay::Open;
}

// 2000-2099, one byte a day, built once: stock sessions ask for every minute they scan.
constexpr int64_t kTableFirstYear = 2000, kTableEndYear = 2100;
const std::vector<NyseDay>& nyse_table() {
  static const std::vector<NyseDay> table = [] {
    const int64_t first = days_from_civil(kTableFirstYear, 1, 1);
    std::vector<NyseDay> t(static_cast<size_t>(days_from_civil(kTableEndYear, 1, 1) - first), NyseDay::Open);
    for (int64_t y = kTableFirstYear; y < kTableEndYear; ++y) {
      const NyseYear days = nyse_year(y);
      for (const int64_t d : days.closed) t[static_cast<size_t>(d - first)] = NyseDay::Closed;
      for (const int64_t d : days.early) t[static_cast<size_t>(d - first)] = NyseDay::EarlyClose;
    }
    return t;
  }();
  return table;
}

bool new_year_or_christmas(int64_t day) {
  const Civil c = civil_from_days(day);
  return (c.m == 12 && c.d == 25) || (c.m == 1 && c.d == 1);
}

// An exchange's local clock at a UTC instant, split into day, weekday and second of day.
struct Local {
  int64_t day, weekday, sod;
  explicit Local(int64_t local_s)
      : day(floor_div(local_s, kDayS)), weekday(weekday_of_day(day)), sod(local_s - day * kDayS) {}
  bool weekday_mon_fri() const { return weekday >= kMonday && weekday <= kFriday; }
};

}  // namespace

int64_t new_york_offset_s(int64_t utc_s) {
  const int64_t y = year_of(utc_s);
  // 02:00 EST = 07:00 UTC on the second Sunday of March; 02:00 EDT = 06:00 UTC on the first Sunday of November.
  const int64_t start = nth_weekday(y, 3, kSunday, 2) * kDayS + 7 * kHourS;
  const int64_t end = nth_weekday(y, 11, kSunday, 1) * kDayS + 6 * kHourS;
  return (utc_s >= start && utc_s < end) ? -4 * kHourS : -5 * kHourS;
}

namespace {
bool eu_summer(int64_t utc_s) {
  const int64_t y = year_of(utc_s);
  const int64_t start = last_weekday(y, 3, kSunday) * kDayS + 1 * kHourS;
  const int64_t end = last_weekday(y, 10, kSunday) * kDayS + 1 * kHourS;
  return utc_s >= start && utc_s < end;
}
}  // namespace

int64_t london_offset_s(int64_t utc_s) { return eu_summer(utc_s) ? kHourS : 0; }
int64_t frankfurt_offset_s(int64_t utc_s) { return eu_summer(utc_s) ? 2 * kHourS : kHourS; }

NyseDay nyse_day(int64_t day) {
  static const int64_t first = days_from_civil(kTableFirstYear, 1, 1);
  const std::vector<NyseDay>& t = nyse_table();
  if (day >= first && day < first + static_cast<int64_t>(t.size())) return t[static_cast<size_t>(day - first)];
  return nyse_day_computed(day);
}

bool session_open(SessionKind kind, int64_t utc_s) {
  switch (kind) {
    case SessionKind::Crypto:
      return true;
    case SessionKind::Forex:
    case SessionKind::Metal:
    case SessionKind::IndexUS: {
      // The FX trading day runs from 17:00 to 17:00 New York: 7 h ahead, it is a calendar day.
      const Local t(utc_s + new_york_offset_s(utc_s) + 7 * kHourS);
      if (!t.weekday_mon_fri() || new_year_or_christmas(t.day)) return false;
      return kind == SessionKind::Forex || t.sod >= kHourS;  // CME Globex pauses 17:00-18:00 New York
    }
    case SessionKind::IndexDE: {
      const Local t(utc_s + frankfurt_offset_s(utc_s));
      return t.weekday_mon_fri() && !new_year_or_christmas(t.day) && t.sod >= kHourS + 15 * 60 && t.sod < 22 * kHourS;
    }
    case SessionKind::IndexUK: {
      const Local t(utc_s + london_offset_s(utc_s));
      return t.weekday_mon_fri() && !new_year_or_christmas(t.day) && t.sod >= kHourS && t.sod < 21 * kHourS;
    }
    case SessionKind::Stock: {
      const Local t(utc_s + new_york_offset_s(utc_s));
      if (!t.weekday_mon_fri() || t.sod < 9 * kHourS + 30 * 60) return false;
      const NyseDay d = nyse_day(t.day);
      if (d == NyseDay::Closed) return false;
      return t.sod < (d == NyseDay::EarlyClose ? 13 : 16) * kHourS;
    }
  }
  return false;
}

}  // namespace tradeapi::sim::detail
