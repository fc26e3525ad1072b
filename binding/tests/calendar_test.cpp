// Tests of the simulator's clock and calendar (issue 14 item 5): exchange time zones with daylight
// saving, the NYSE's holidays, sessions in the exchange's clock, and a broker's server time zone
// (server_clock.h) that relabels the market's ticks without changing them.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "sim/exchange_calendar.h"
#include "sim/market.h"
#include "sim/server_clock.h"
#include "sim/sim_time.h"
#include "terminal/constants.h"
#include "terminal/errors.h"

namespace tradeapi::sim {
namespace {

namespace m = tradeapi::mt5;
using detail::days_from_civil;
using detail::weekday_of_day;

int64_t utc(int64_t y, int64_t mo, int64_t d, int64_t h = 0, int64_t mi = 0, int64_t s = 0) {
  return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}
int64_t day_of(int64_t y, int64_t mo, int64_t d) { return days_from_civil(y, mo, d); }

// A zone as the gateway hands it over: transitions found hour by hour from an offset function.
std::vector<ZoneTransition> zone_of(const std::function<int64_t(int64_t)>& offset, int64_t shift_s) {
  std::vector<ZoneTransition> out{{utc(2019, 1, 1), offset(utc(2019, 1, 1)) + shift_s}};
  for (int64_t t = utc(2019, 1, 1); t < utc(2031, 1, 1); t += 3600) {
    if (offset(t) + shift_s == out.back().offset_s) continue;
    int64_t lo = t - 3600, hi = t;  // the change lies in (lo, hi]
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      (offset(mid) + shift_s == out.back().offset_s ? lo : hi) = mid;
    }
    out.push_back({hi, offset(hi) + shift_s});
  }
  return out;
}
// The "New York close" broker clock: New York + 7 h, i.e. UTC+2 / UTC+3 on US dates.
std::vector<ZoneTransition> new_york_plus_7() { return zone_of(detail::new_york_offset_s, 7 * 3600); }
// Europe/Athens-like: UTC+2 / UTC+3 on EU dates.
std::vector<ZoneTransition> eu_plus_2() { return zone_of(detail::london_offset_s, 2 * 3600); }

SimConfig config(std::vector<ZoneTransition> zone = {}) {
  SimConfig c;
  c.seed = 42;
  c.now_ms = utc(2025, 2, 1) * 1000;  // a Saturday: every day below is complete
  c.history_start = utc(2023, 1, 1);
  c.maxbars = 1000000;
  c.server_zone = std::move(zone);
  return c;
}

TickColumns ticks(const Market& mk, const std::string& sym, int64_t from_ms, int64_t to_ms) {
  TickColumns all, part;
  auto cursor = mk.ticks_range(*mk.find(sym), from_ms, to_ms, m::COPY_TICKS_ALL);
  while (cursor->next(SIZE_MAX, part)) {
    all.time_msc.insert(all.time_msc.end(), part.time_msc.begin(), part.time_msc.end());
    all.bid.insert(all.bid.end(), part.bid.begin(), part.bid.end());
    all.ask.insert(all.ask.end(), part.ask.begin(), part.ask.end());
    all.flags.insert(all.flags.end(), part.flags.begin(), part.flags.end());
  }
  return all;
}
std::vector<int64_t> bar_times(const Market& mk, const std::string& sym, int64_t tf, int64_t from_s, int64_t to_s) {
  std::vector<int64_t> out;
  RateColumns part;
  auto cursor = mk.rates_range(*mk.find(sym), tf, from_s, to_s);
  while (cursor->next(SIZE_MAX, part)) out.insert(out.end(), part.time.begin(), part.time.end());
  return out;
}

TEST(ExchangeClocks, DaylightSavingByUsAndEuRules) {
  // US: 10 March 2024 07:00 UTC to 3 November 2024 06:00 UTC.
  EXPECT_EQ(detail::new_york_offset_s(utc(2024, 3, 10, 7) - 1), -5 * 3600);
  EXPECT_EQ(detail::new_york_offset_s(utc(2024, 3, 10, 7)), -4 * 3600);
  EXPECT_EQ(detail::new_york_offset_s(utc(2024, 11, 3, 6) - 1), -4 * 3600);
  EXPECT_EQ(detail::new_york_offset_s(utc(2024, 11, 3, 6)), -5 * 3600);
  EXPECT_EQ(detail::new_york_offset_s(utc(2025, 3, 9, 7)), -4 * 3600);
  // EU: 31 March 2024 01:00 UTC to 27 October 2024 01:00 UTC.
  EXPECT_EQ(detail::london_offset_s(utc(2024, 3, 31, 1) - 1), 0);
  EXPECT_EQ(detail::london_offset_s(utc(2024, 3, 31, 1)), 3600);
  EXPECT_EQ(detail::frankfurt_offset_s(utc(2024, 10, 27, 1) - 1), 7200);
  EXPECT_EQ(detail::frankfurt_offset_s(utc(2024, 10, 27, 1)), 3600);
}

TEST(ExchangeClocks, NyseHolidaysAndEarlyCloses) {
  using detail::NyseDay;
  const std::map<int64_t, NyseDay> expected = {
      // 2024, as published by the NYSE.
      {day_of(2024, 1, 1), NyseDay::Closed}, {day_of(2024, 1, 15), NyseDay::Closed},
      {day_of(2024, 2, 19), NyseDay::Closed}, {day_of(2024, 3, 29), NyseDay::Closed},
      {day_of(2024, 5, 27), NyseDay::Closed}, {day_of(2024, 6, 19), NyseDay::Closed},
      {day_of(2024, 7, 4), NyseDay::Closed}, {day_of(2024, 9, 2), NyseDay::Closed},
      {day_of(2024, 11, 28), NyseDay::Closed}, {day_of(2024, 12, 25), NyseDay::Closed},
      {day_of(2024, 7, 3), NyseDay::EarlyClose}, {day_of(2024, 11, 29), NyseDay::EarlyClose},
      {day_of(2024, 12, 24), NyseDay::EarlyClose},
      // 2025: the day of mourning for President Carter, Good Friday in April.
      {day_of(2025, 1, 9), NyseDay::Closed}, {day_of(2025, 4, 18), NyseDay::Closed},
      {day_of(2025, 1, 20), NyseDay::Closed},
  };
  for (int64_t d = day_of(2024, 1, 1); d < day_of(2025, 1, 1); ++d) {
    auto it = expected.find(d);
    EXPECT_EQ(detail::nyse_day(d), it == expected.end() ? NyseDay::Open : it->second) << "day " << d;
  }
  for (const auto& [d, kind] : expected) EXPECT_EQ(detail::nyse_day(d), kind) << "day " << d;
  // Weekend observance: 2021 Christmas (Saturday) on Friday 24th, Independence Day (Sunday) on
  // Monday 5 July; 2022 New Year's Day (Saturday) is not moved into 2021; Juneteenth 2022
  // (Sunday) on Monday 20 June; 2027 Juneteenth (Saturday) on Friday 18 June.
  EXPECT_EQ(detail::nyse_day(day_of(2021, 12, 24)), NyseDay::Closed);
  EXPECT_EQ(detail::nyse_day(day_of(2021, 7, 5)), NyseDay::Closed);
  EXPECT_EQ(detail::nyse_day(day_of(2021, 12, 31)), NyseDay::Open);
  EXPECT_EQ(detail::nyse_day(day_of(2022, 6, 20)), NyseDay::Closed);
  EXPECT_EQ(detail::nyse_day(day_of(2027, 6, 18)), NyseDay::Closed);
  EXPECT_EQ(detail::nyse_day(day_of(2021, 6, 18)), NyseDay::Open);  // before Juneteenth was a holiday
  // Outside the table's years the same rules are computed on demand.
  EXPECT_EQ(detail::nyse_day(day_of(2150, 12, 25)), NyseDay::Closed);
}

TEST(ExchangeClocks, SessionsFollowTheExchangeClock) {
  using detail::session_open;
  // NYSE 09:30 New York: 14:30 UTC in January, 13:30 UTC in July.
  EXPECT_FALSE(session_open(SessionKind::Stock, utc(2024, 1, 10, 14, 29)));
  EXPECT_TRUE(session_open(SessionKind::Stock, utc(2024, 1, 10, 14, 30)));
  EXPECT_FALSE(session_open(SessionKind::Stock, utc(2024, 7, 10, 13, 29)));
  EXPECT_TRUE(session_open(SessionKind::Stock, utc(2024, 7, 10, 13, 30)));
  EXPECT_FALSE(session_open(SessionKind::Stock, utc(2024, 7, 10, 20)));  // 16:00 New York
  EXPECT_FALSE(session_open(SessionKind::Stock, utc(2024, 7, 3, 17)));   // early close: 13:00 New York
  EXPECT_TRUE(session_open(SessionKind::Stock, utc(2024, 7, 3, 16, 59)));
  EXPECT_FALSE(session_open(SessionKind::Stock, utc(2024, 7, 4, 15)));   // Independence Day
  // FX: Sunday 17:00 New York to Friday 17:00 New York.
  EXPECT_FALSE(session_open(SessionKind::Forex, utc(2024, 1, 14, 21, 59)));
  EXPECT_TRUE(session_open(SessionKind::Forex, utc(2024, 1, 14, 22)));
  EXPECT_FALSE(session_open(SessionKind::Forex, utc(2024, 7, 14, 20, 59)));
  EXPECT_TRUE(session_open(SessionKind::Forex, utc(2024, 7, 14, 21)));
  EXPECT_TRUE(session_open(SessionKind::Forex, utc(2024, 7, 19, 20, 59)));
  EXPECT_FALSE(session_open(SessionKind::Forex, utc(2024, 7, 19, 21)));
  // Holidays: the FX trading day of 25 December runs 24 Dec 17:00 to 25 Dec 17:00 New York.
  EXPECT_FALSE(session_open(SessionKind::Forex, utc(2024, 12, 24, 22)));
  EXPECT_FALSE(session_open(SessionKind::Forex, utc(2024, 12, 25, 21, 59)));
  EXPECT_TRUE(session_open(SessionKind::Forex, utc(2024, 12, 25, 22)));
  EXPECT_FALSE(session_open(SessionKind::Forex, utc(2025, 1, 1, 12)));
  EXPECT_TRUE(session_open(SessionKind::Crypto, utc(2024, 12, 25, 12)));
  // Metals and US index CFDs: the CME's 17:00-18:00 New York pause.
  EXPECT_FALSE(session_open(SessionKind::Metal, utc(2024, 7, 16, 21, 30)));
  EXPECT_TRUE(session_open(SessionKind::Metal, utc(2024, 7, 16, 22)));
  EXPECT_FALSE(session_open(SessionKind::IndexUS, utc(2024, 1, 16, 22, 30)));
  EXPECT_TRUE(session_open(SessionKind::IndexUS, utc(2024, 1, 16, 23)));
  // DE40 01:15-22:00 Frankfurt, UK100 01:00-21:00 London, on EU dates.
  EXPECT_FALSE(session_open(SessionKind::IndexDE, utc(2024, 1, 16, 0, 14)));
  EXPECT_TRUE(session_open(SessionKind::IndexDE, utc(2024, 1, 16, 0, 15)));
  EXPECT_FALSE(session_open(SessionKind::IndexDE, utc(2024, 7, 16, 20)));
  EXPECT_TRUE(session_open(SessionKind::IndexUK, utc(2024, 7, 16, 19, 59)));
  EXPECT_FALSE(session_open(SessionKind::IndexUK, utc(2024, 7, 16, 20)));
}

TEST(ServerClock, MapsServerMinutesToUtc) {
  const detail::ServerClock fixed(2 * 3600);
  EXPECT_EQ(fixed.utc_minute(1000), 1000 - 120);
  EXPECT_EQ(fixed.offset_at_utc(0), 7200);
  const detail::ServerClock broker(new_york_plus_7());
  // 10 March 2024 07:00 UTC: server 09:00 (UTC+2) jumps to 10:00 (UTC+3); 09:xx never happens.
  const int64_t spring = utc(2024, 3, 10, 7) / 60;
  EXPECT_EQ(broker.utc_minute(spring + 120 - 1), spring - 1);
  EXPECT_EQ(broker.utc_minute(spring + 120), detail::ServerClock::kNoMinute);
  EXPECT_EQ(broker.utc_minute(spring + 180 - 1), detail::ServerClock::kNoMinute);
  EXPECT_EQ(broker.utc_minute(spring + 180), spring);
  // 3 November 2024 06:00 UTC: server 09:00 (UTC+3) falls back to 08:00 (UTC+2); 08:xx happens
  // twice and stands for the earlier pass.
  const int64_t fall = utc(2024, 11, 3, 6) / 60;
  EXPECT_EQ(broker.utc_minute(fall + 180 - 1), fall - 1);
  EXPECT_EQ(broker.utc_minute(fall + 120), fall - 60);
  EXPECT_EQ(broker.utc_minute(fall + 180), fall + 60);
  EXPECT_EQ(broker.offset_at_utc(utc(2024, 7, 1)), 3 * 3600);
  EXPECT_EQ(broker.offset_at_utc(utc(2024, 12, 1)), 2 * 3600);
}

TEST(BrokerServerTime, FiveDailyBarsAWeekOnTheNewYorkCloseClock) {
  const Market broker(config(new_york_plus_7()));
  // 2024 and January 2025, across both US changes, Christmas and New Year.
  const std::vector<int64_t> d1 = bar_times(broker, "EURUSD", m::TIMEFRAME_D1, utc(2024, 1, 1), utc(2025, 1, 31));
  std::map<int64_t, int> per_week;  // by the week's Monday
  for (const int64_t t : d1) {
    ASSERT_EQ(t % 86400, 0);
    const int64_t day = t / 86400, wd = weekday_of_day(day);
    EXPECT_TRUE(wd >= 1 && wd <= 5) << "D1 bar on weekday " << wd << " at " << t;
    per_week[day - (wd + 6) % 7]++;
  }
  const std::set<int64_t> holiday_weeks = {day_of(2024, 1, 1), day_of(2024, 12, 23), day_of(2024, 12, 30)};
  EXPECT_EQ(per_week.size(), 57u);
  for (const auto& [monday, n] : per_week) EXPECT_EQ(n, holiday_weeks.count(monday) ? 4 : 5) << "week of day " << monday;
  // No bar on 25 December or 1 January.
  for (const int64_t t : d1) EXPECT_TRUE(t != utc(2024, 1, 1) && t != utc(2024, 12, 25) && t != utc(2025, 1, 1));
  // Every week opens at Monday 00:00 and closes Friday 23:59 server time, summer and winter.
  for (const int64_t monday : {utc(2024, 1, 15), utc(2024, 7, 15)}) {
    const TickColumns week = ticks(broker, "EURUSD", (monday - 86400) * 1000, (monday + 6 * 86400) * 1000);
    ASSERT_GT(week.time_msc.size(), 0u);
    EXPECT_LT(week.time_msc.front(), monday * 1000 + 60000);
    EXPECT_GE(week.time_msc.front(), monday * 1000);
    EXPECT_GE(week.time_msc.back(), (monday + 5 * 86400) * 1000 - 60000);
    EXPECT_LT(week.time_msc.back(), (monday + 5 * 86400) * 1000);
  }
  // Gold pauses at 00:00-01:00 server time, so its day opens at 01:00.
  const std::vector<int64_t> gold = bar_times(broker, "XAUUSD", m::TIMEFRAME_H1, utc(2024, 7, 16), utc(2024, 7, 17) - 1);
  ASSERT_EQ(gold.size(), 23u);
  EXPECT_EQ(gold.front(), utc(2024, 7, 16, 1));
}

TEST(BrokerServerTime, UtcServerHasSundayBarsAndEuClockHasThemOnlyBetweenTheChanges) {
  const Market plain(config());
  const std::vector<int64_t> d1 = bar_times(plain, "EURUSD", m::TIMEFRAME_D1, utc(2024, 1, 1), utc(2024, 3, 1));
  int sundays = 0;
  for (const int64_t t : d1) sundays += weekday_of_day(t / 86400) == 0;
  EXPECT_EQ(sundays, 8);  // the FX week opens Sunday 22:00 UTC
  // UTC+2/+3 on EU dates: while New York is already on summer time and Europe is not (10-31 March
  // 2024), the week opens Sunday 23:00 server time -- a one-hour Sunday bar, as at such brokers.
  const Market eu(config(eu_plus_2()));
  const std::vector<int64_t> e = bar_times(eu, "EURUSD", m::TIMEFRAME_D1, utc(2024, 1, 1), utc(2024, 6, 1));
  std::vector<int64_t> sunday_bars;
  for (const int64_t t : e) if (weekday_of_day(t / 86400) == 0) sunday_bars.push_back(t);
  EXPECT_EQ(sunday_bars, (std::vector<int64_t>{utc(2024, 3, 10), utc(2024, 3, 17), utc(2024, 3, 24)}));
}

TEST(BrokerServerTime, SessionOpensShiftWithDaylightSaving) {
  const Market plain(config());
  const Market broker(config(new_york_plus_7()));
  // AAPL opens 09:30 New York: 14:30 / 13:30 UTC, and 16:30 server time all year on the broker clock.
  for (const auto& [day, open_utc] : std::vector<std::pair<int64_t, int64_t>>{
           {utc(2024, 1, 10), utc(2024, 1, 10, 14, 30)}, {utc(2024, 7, 10), utc(2024, 7, 10, 13, 30)}}) {
    const std::vector<int64_t> a = bar_times(plain, "AAPL", m::TIMEFRAME_M1, day, day + 86399);
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a.front(), open_utc);
    EXPECT_EQ(a.size(), 390u);
    const std::vector<int64_t> b = bar_times(broker, "AAPL", m::TIMEFRAME_M1, day, day + 86399);
    ASSERT_FALSE(b.empty());
    EXPECT_EQ(b.front(), day + 16 * 3600 + 1800);
  }
  // Holidays and early closes: no AAPL bar on Thanksgiving, 210 minutes the day after.
  EXPECT_TRUE(bar_times(plain, "AAPL", m::TIMEFRAME_M1, utc(2024, 11, 28), utc(2024, 11, 29) - 1).empty());
  EXPECT_EQ(bar_times(plain, "AAPL", m::TIMEFRAME_M1, utc(2024, 11, 29), utc(2024, 11, 30) - 1).size(), 210u);
  EXPECT_TRUE(bar_times(plain, "AMZN", m::TIMEFRAME_M1, utc(2025, 1, 9), utc(2025, 1, 10) - 1).empty());
  // Bitcoin trades on Christmas Day; the FX majors do not.
  EXPECT_EQ(bar_times(plain, "BTCUSD", m::TIMEFRAME_H1, utc(2024, 12, 25), utc(2024, 12, 26) - 1).size(), 24u);
  EXPECT_TRUE(bar_times(broker, "EURUSD", m::TIMEFRAME_H1, utc(2024, 12, 25), utc(2024, 12, 26) - 1).empty());
}

TEST(BrokerServerTime, TheZoneRelabelsTicksWithoutChangingThem) {
  const Market plain(config());
  const Market broker(config(new_york_plus_7()));
  // The same UTC hour in winter (+2) and summer (+3), for an FX pair, a share and bitcoin.
  for (const auto& [sym, from] : std::vector<std::pair<std::string, int64_t>>{
           {"EURUSD", utc(2024, 1, 10, 10)}, {"EURUSD", utc(2024, 7, 10, 10)}, {"AAPL", utc(2024, 7, 10, 15)},
           {"BTCUSD", utc(2024, 7, 13, 3)}}) {
    const int64_t shift = (from >= utc(2024, 3, 10) && from < utc(2024, 11, 3)) ? 3 * 3600 : 2 * 3600;
    const TickColumns a = ticks(plain, sym, from * 1000, (from + 3600) * 1000 - 1);
    const TickColumns b = ticks(broker, sym, (from + shift) * 1000, (from + shift + 3600) * 1000 - 1);
    ASSERT_GT(a.time_msc.size(), 100u) << sym;
    ASSERT_EQ(a.time_msc.size(), b.time_msc.size()) << sym;
    for (size_t i = 0; i < a.time_msc.size(); ++i) EXPECT_EQ(a.time_msc[i] + shift * 1000, b.time_msc[i]);
    EXPECT_EQ(a.bid, b.bid) << sym;
    EXPECT_EQ(a.ask, b.ask) << sym;
    EXPECT_EQ(a.flags, b.flags) << sym;
  }
}

TEST(BrokerServerTime, ClockChangesNeitherRepeatNorInventTicks) {
  const Market broker(config(new_york_plus_7()));
  // Bitcoin trades through both changes. Spring: server 09:00-10:00 on 10 March 2024 never
  // happens, so that server day has 23 hourly bars.
  EXPECT_EQ(bar_times(broker, "BTCUSD", m::TIMEFRAME_H1, utc(2024, 3, 10), utc(2024, 3, 11) - 1).size(), 23u);
  EXPECT_TRUE(ticks(broker, "BTCUSD", utc(2024, 3, 10, 9) * 1000, utc(2024, 3, 10, 10) * 1000 - 1).time_msc.empty());
  // Autumn: server 08:00-09:00 on 3 November 2024 happens twice; its ticks appear once, in time order.
  const TickColumns fall = ticks(broker, "BTCUSD", utc(2024, 11, 3, 7) * 1000, utc(2024, 11, 3, 10) * 1000);
  ASSERT_GT(fall.time_msc.size(), 100u);
  for (size_t i = 1; i < fall.time_msc.size(); ++i) ASSERT_LT(fall.time_msc[i - 1], fall.time_msc[i]);
  EXPECT_EQ(bar_times(broker, "BTCUSD", m::TIMEFRAME_H1, utc(2024, 11, 3), utc(2024, 11, 4) - 1).size(), 24u);
}

TEST(BrokerServerTime, LiveClockIsUtcPlusTheOffsetInForce) {
  SimConfig c = config(new_york_plus_7());
  c.now_ms = 0;  // the wall clock
  const Market broker(c);
  const int64_t utc_now = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t offset = detail::new_york_offset_s(utc_now / 1000) + 7 * 3600;
  EXPECT_NEAR(static_cast<double>(broker.now_ms() - utc_now), static_cast<double>(offset * 1000), 5000.0);
}

TEST(BrokerServerTime, RejectsUnorderedTransitions) {
  SimConfig c = config({{utc(2024, 6, 1), 7200}, {utc(2024, 1, 1), 10800}});
  EXPECT_THROW({ const Market mk(c); }, TerminalError);
}

}  // namespace
}  // namespace tradeapi::sim
