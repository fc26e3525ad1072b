// Tests of the simulated market: determinism, tick/bar consistency, row semantics of the series
// requests (mt5-reference §3), sessions, the group filter and the market side of SimTerminal.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "sim/market.h"
#include "sim/sim_terminal.h"
#include "sim/sim_time.h"
#include "terminal/constants.h"

namespace tradeapi::sim {
namespace {

namespace m = tradeapi::mt5;

int64_t utc(int64_t y, int64_t mo, int64_t d, int64_t h = 0, int64_t mi = 0, int64_t s = 0) {
  return detail::days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

// Friday 2024-03-15 15:30:12.345 (London/New York overlap).
const int64_t kNowMs = utc(2024, 3, 15, 15, 30, 12) * 1000 + 345;

SimConfig test_config(uint64_t seed = 42) {
  SimConfig c;
  c.seed = seed;
  c.now_ms = kNowMs;
  c.history_start = utc(2023, 1, 1);
  c.maxbars = 100000;
  return c;
}

TickColumns drain(TickCursor& cursor, size_t chunk = SIZE_MAX) {
  TickColumns all, part;
  while (cursor.next(chunk, part)) {
    EXPECT_LE(part.rows(), chunk);
    all.time.insert(all.time.end(), part.time.begin(), part.time.end());
    all.bid.insert(all.bid.end(), part.bid.begin(), part.bid.end());
    all.ask.insert(all.ask.end(), part.ask.begin(), part.ask.end());
    all.last.insert(all.last.end(), part.last.begin(), part.last.end());
    all.volume.insert(all.volume.end(), part.volume.begin(), part.volume.end());
    all.time_msc.insert(all.time_msc.end(), part.time_msc.begin(), part.time_msc.end());
    all.flags.insert(all.flags.end(), part.flags.begin(), part.flags.end());
    all.volume_real.insert(all.volume_real.end(), part.volume_real.begin(), part.volume_real.end());
  }
  return all;
}

RateColumns drain(RateCursor& cursor, size_t chunk = SIZE_MAX) {
  RateColumns all, part;
  while (cursor.next(chunk, part)) {
    all.time.insert(all.time.end(), part.time.begin(), part.time.end());
    all.open.insert(all.open.end(), part.open.begin(), part.open.end());
    all.high.insert(all.high.end(), part.high.begin(), part.high.end());
    all.low.insert(all.low.end(), part.low.begin(), part.low.end());
    all.close.insert(all.close.end(), part.close.begin(), part.close.end());
    all.tick_volume.insert(all.tick_volume.end(), part.tick_volume.begin(), part.tick_volume.end());
    all.spread.insert(all.spread.end(), part.spread.begin(), part.spread.end());
    all.real_volume.insert(all.real_volume.end(), part.real_volume.begin(), part.real_volume.end());
  }
  return all;
}

bool same(const TickColumns& a, const TickColumns& b) {
  return a.time == b.time && a.bid == b.bid && a.ask == b.ask && a.last == b.last && a.volume == b.volume &&
         a.time_msc == b.time_msc && a.flags == b.flags && a.volume_real == b.volume_real;
}
bool same(const RateColumns& a, const RateColumns& b) {
  return a.time == b.time && a.open == b.open && a.high == b.high && a.low == b.low && a.close == b.close &&
         a.tick_volume == b.tick_volume && a.spread == b.spread && a.real_volume == b.real_volume;
}

TickColumns ticks(const Market& mk, const std::string& sym, int64_t from_ms, int64_t to_ms,
                  int64_t flags = m::COPY_TICKS_ALL) {
  return drain(*mk.ticks_range(*mk.find(sym), from_ms, to_ms, flags));
}
RateColumns rates_range(const Market& mk, const std::string& sym, int64_t tf, int64_t from_s, int64_t to_s) {
  return drain(*mk.rates_range(*mk.find(sym), tf, from_s, to_s));
}

TEST(MarketCatalogue, RealisticSpecs) {
  const auto all = symbol_catalogue();
  EXPECT_GE(all.size(), 30u);
  EXPECT_EQ(all[0].info.name, "EURUSD");
  std::set<std::string> names;
  int fx = 0;
  for (const SymbolSpec& s : all) {
    EXPECT_TRUE(names.insert(s.info.name).second) << "duplicate " << s.info.name;
    EXPECT_GT(s.info.point, 0);
    EXPECT_EQ(s.info.trade_tick_size, s.info.point);
    EXPECT_GT(s.info.trade_contract_size, 0);
    EXPECT_GT(s.info.trade_tick_value, 0) << s.info.name;
    EXPECT_FALSE(s.info.description.empty());
    EXPECT_FALSE(s.info.currency_profit.empty());
    EXPECT_GT(s.base_price, 0);
    if (s.info.trade_calc_mode == m::SYMBOL_CALC_MODE_FOREX) {
      ++fx;
      EXPECT_EQ(s.info.trade_contract_size, 100000.0);
      EXPECT_EQ(s.info.digits, s.info.currency_profit == "JPY" ? 3 : 5);
      EXPECT_EQ(s.info.path, "Forex\\" + s.info.name);
    }
  }
  EXPECT_GE(fx, 16);
  EXPECT_DOUBLE_EQ(all[0].info.trade_tick_value, 1.0);  // EURUSD on a USD account
}

TEST(MarketTicks, DeterministicAcrossCallsAndInstances) {
  Market a(test_config()), b(test_config()), c(test_config(43));
  const int64_t from = utc(2024, 3, 14, 12) * 1000, to = utc(2024, 3, 14, 13) * 1000;
  const TickColumns t1 = ticks(a, "EURUSD", from, to);
  ASSERT_GT(t1.rows(), 1000u);
  EXPECT_TRUE(same(t1, ticks(a, "EURUSD", from, to)));
  EXPECT_TRUE(same(t1, ticks(b, "EURUSD", from, to)));
  EXPECT_FALSE(same(t1, ticks(c, "EURUSD", from, to)));
  // A sub-range is a slice of the bigger range (nothing depends on where a request starts).
  const TickColumns sub = ticks(a, "EURUSD", from + 600000, from + 1200000);
  auto it = std::find(t1.time_msc.begin(), t1.time_msc.end(), sub.time_msc.front());
  ASSERT_NE(it, t1.time_msc.end());
  const size_t at = static_cast<size_t>(it - t1.time_msc.begin());
  for (size_t i = 0; i < sub.rows(); ++i) {
    ASSERT_EQ(sub.bid[i], t1.bid[at + i]);
    ASSERT_EQ(sub.time_msc[i], t1.time_msc[at + i]);
  }
}

TEST(MarketTicks, ChunkedEqualsSingle) {
  Market mk(test_config());
  const SymbolSpec& s = *mk.find("AAPL");
  const int64_t from = utc(2024, 3, 14, 14, 0) * 1000, to = utc(2024, 3, 14, 16) * 1000;
  const TickColumns whole = drain(*mk.ticks_range(s, from, to, m::COPY_TICKS_ALL));
  ASSERT_GT(whole.rows(), 1000u);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{333}, size_t{4096}}) {
    EXPECT_TRUE(same(whole, drain(*mk.ticks_range(s, from, to, m::COPY_TICKS_ALL), chunk))) << chunk;
  }
  const TickColumns first = drain(*mk.ticks_from(s, from, 2500, m::COPY_TICKS_ALL));
  ASSERT_EQ(first.rows(), 2500u);
  EXPECT_TRUE(same(first, drain(*mk.ticks_from(s, from, 2500, m::COPY_TICKS_ALL), 97)));
  EXPECT_GE(first.time_msc.front(), from);
  EXPECT_EQ(first.time_msc.front(), whole.time_msc.front());
}

TEST(MarketTicks, WellFormed) {
  Market mk(test_config());
  for (const char* sym : {"EURUSD", "USDJPY", "XAUUSD", "US500", "AAPL", "BTCUSD"}) {
    const SymbolSpec& s = *mk.find(sym);
    const TickColumns t = ticks(mk, sym, utc(2024, 3, 14, 0) * 1000, utc(2024, 3, 15) * 1000 - 1);
    ASSERT_GT(t.rows(), 100u) << sym;
    for (size_t i = 0; i < t.rows(); ++i) {
      ASSERT_EQ(t.time[i], t.time_msc[i] / 1000);
      if (i > 0) {
        ASSERT_GT(t.time_msc[i], t.time_msc[i - 1]) << sym;
      }
      ASSERT_LT(t.bid[i], t.ask[i]);
      ASSERT_NE(t.flags[i], 0u);
      // Prices sit on the point grid.
      ASSERT_NEAR(t.bid[i] / s.info.point, std::round(t.bid[i] / s.info.point), 1e-6);
      if (!s.trade_ticks) {
        ASSERT_EQ(t.last[i], 0.0);
        ASSERT_EQ(t.volume[i], 0u);
      } else {
        ASSERT_GT(t.last[i], 0.0);
      }
    }
    // Within the band of a realistic day around the base price.
    EXPECT_GT(t.bid.front(), s.base_price * 0.5) << sym;
    EXPECT_LT(t.bid.front(), s.base_price * 2.0) << sym;
  }
}

// Trade ticks of a symbol that has none: answered at once, not by scanning the whole history
// (ticks_from with a count that can never be reached used to walk every minute since 2020).
TEST(MarketTicks, TradeTicksOfAnOtcSymbolAnswerAtOnce) {
  Market mk(test_config());
  const SymbolSpec& s = *mk.find("EURUSD");
  auto cursor = mk.ticks_from(s, utc(2020, 1, 2) * 1000, 1000000, m::COPY_TICKS_TRADE);
  TickColumns out;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(cursor->next(65536, out));
  EXPECT_EQ(out.rows(), 0u);
  // Not a speed target: the old scan took ~8 s; 2 s separates the two even under sanitizers.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  auto range = mk.ticks_range(s, utc(2020, 1, 2) * 1000, mk.now_ms(), m::COPY_TICKS_TRADE);
  EXPECT_FALSE(range->next(65536, out));
  EXPECT_EQ(out.rows(), 0u);
}

TEST(MarketTicks, CopyTicksFlags) {
  Market mk(test_config());
  const int64_t from = utc(2024, 3, 14, 15) * 1000, to = utc(2024, 3, 14, 15, 30) * 1000;
  for (const char* sym : {"EURUSD", "AMZN"}) {  // AMZN: an exchange-traded share, with trades
    const TickColumns all = ticks(mk, sym, from, to, m::COPY_TICKS_ALL);
    const TickColumns info = ticks(mk, sym, from, to, m::COPY_TICKS_INFO);
    const TickColumns trade = ticks(mk, sym, from, to, m::COPY_TICKS_TRADE);
    size_t want_info = 0, want_trade = 0;
    for (uint32_t f : all.flags) {
      want_info += (f & (m::TICK_FLAG_BID | m::TICK_FLAG_ASK)) != 0;
      want_trade += (f & (m::TICK_FLAG_LAST | m::TICK_FLAG_VOLUME)) != 0;
    }
    EXPECT_EQ(info.rows(), want_info);
    EXPECT_EQ(trade.rows(), want_trade);
    for (uint32_t f : trade.flags) ASSERT_TRUE(f & m::TICK_FLAG_LAST);
    if (std::string(sym) == "EURUSD") {
      EXPECT_EQ(info.rows(), all.rows());
      EXPECT_EQ(trade.rows(), 0u);
    } else {
      EXPECT_GT(trade.rows(), 100u);
      for (size_t i = 0; i < trade.rows(); ++i) {
        ASSERT_TRUE((trade.flags[i] & (m::TICK_FLAG_BUY | m::TICK_FLAG_SELL)) != 0);
        ASSERT_GT(trade.volume[i], 0u);
        ASSERT_EQ(trade.volume_real[i], static_cast<double>(trade.volume[i]));
      }
    }
  }
  const SymbolSpec& s = *mk.find("EURUSD");
  EXPECT_THROW(mk.ticks_range(s, from, to, 3), TerminalError);
  EXPECT_THROW(mk.ticks_range(s, from, to, 0), TerminalError);
  EXPECT_THROW(mk.ticks_range(s, to, from, m::COPY_TICKS_ALL), TerminalError);
  EXPECT_THROW(mk.ticks_from(s, from, 0, m::COPY_TICKS_ALL), TerminalError);
}

TEST(MarketSessions, WeekendGap) {
  Market mk(test_config());
  const int64_t sat = utc(2024, 3, 9), sun = utc(2024, 3, 10);
  EXPECT_EQ(ticks(mk, "EURUSD", sat * 1000, (sun + 21 * 3600) * 1000 - 1).rows(), 0u);
  EXPECT_EQ(rates_range(mk, "EURUSD", m::TIMEFRAME_M1, sat, sun + 21 * 3600 - 1).rows(), 0u);
  EXPECT_GT(ticks(mk, "BTCUSD", sat * 1000, (sat + 3600) * 1000).rows(), 100u);
  EXPECT_EQ(rates_range(mk, "BTCUSD", m::TIMEFRAME_H1, sat, sun - 1).rows(), 24u);
  // FX reopens Sunday 17:00 New York: 21:00 UTC on 10 March 2024, the day US clocks went
  // forward; it closed Friday 17:00 New York, 22:00 UTC, still in winter time.
  const TickColumns reopen = ticks(mk, "EURUSD", sun * 1000, (sun + 86400) * 1000);
  ASSERT_GT(reopen.rows(), 0u);
  EXPECT_GE(reopen.time.front(), sun + 21 * 3600);
  EXPECT_LT(reopen.time.front(), sun + 21 * 3600 + 60);
  const TickColumns fri = ticks(mk, "EURUSD", utc(2024, 3, 8, 21) * 1000, utc(2024, 3, 9) * 1000);
  ASSERT_GT(fri.rows(), 0u);
  EXPECT_LT(fri.time.back(), utc(2024, 3, 8, 22));
  // Stock CFDs: cash hours only, 09:30-16:00 New York = 13:30-20:00 UTC in summer time.
  const RateColumns aapl = rates_range(mk, "AAPL", m::TIMEFRAME_M1, utc(2024, 3, 14), utc(2024, 3, 15) - 1);
  ASSERT_FALSE(aapl.time.empty());
  EXPECT_EQ(aapl.time.front(), utc(2024, 3, 14, 13, 30));
  EXPECT_EQ(aapl.time.back(), utc(2024, 3, 14, 19, 59));
  // D1: no Saturday bar, and (FX, at a UTC server) no Sunday bar before 21:00/22:00 UTC, so Sunday's bar is 2-3 hours.
  const RateColumns d1 = rates_range(mk, "EURUSD", m::TIMEFRAME_D1, utc(2024, 3, 4), utc(2024, 3, 11));
  for (int64_t t : d1.time) EXPECT_NE(detail::weekday_of_day(t / 86400), 6);
}

TEST(MarketSessions, ServerOffsetShiftsStamps) {
  SimConfig cfg = test_config();
  cfg.server_utc_offset_s = 2 * 3600;
  cfg.now_ms = kNowMs + 2 * 3600 * 1000;  // same instant, expressed in server time
  Market mk(cfg);
  // FX closes at Friday 22:00 UTC = 24:00 server time: the D1 bars line up with trading days.
  const TickColumns fri = ticks(mk, "EURUSD", utc(2024, 3, 8, 23) * 1000, utc(2024, 3, 9, 1) * 1000);
  ASSERT_GT(fri.rows(), 0u);
  EXPECT_LT(fri.time.back(), utc(2024, 3, 9));
  EXPECT_GE(fri.time.back(), utc(2024, 3, 8, 23, 50));
}

// The first request over many days builds them on several threads (History::warm_days); the bars
// must be those built one day at a time (requests of a few days stay on the serial path).
TEST(MarketBars, ParallelDaysMatchSerialOnes) {
  for (const char* sym : {"EURUSD", "AMZN", "BTCUSD"}) {
    const Market parallel(test_config()), serial(test_config());
    const int64_t from = utc(2023, 9, 1), to = utc(2024, 3, 1);
    for (const int64_t tf : {m::TIMEFRAME_D1, m::TIMEFRAME_W1, m::TIMEFRAME_MN1}) {
      const RateColumns p = rates_range(parallel, sym, tf, from, to);
      for (int64_t t = from; t < to; t += 7 * 86400) {  // a week at a time: below the parallel threshold
        rates_range(serial, sym, m::TIMEFRAME_D1, t, std::min(t + 7 * 86400, to) - 1);
      }
      const RateColumns s = rates_range(serial, sym, tf, from, to);  // from the serially built day cache
      ASSERT_GT(p.rows(), 0u) << sym;
      EXPECT_TRUE(same(p, s)) << sym << " timeframe " << tf;
    }
  }
}

TEST(MarketBars, M1MatchesTicks) {
  Market mk(test_config());
  for (const char* sym : {"EURUSD", "AAPL"}) {
    const SymbolSpec& s = *mk.find(sym);
    const int64_t from = utc(2024, 3, 14, 15), to = utc(2024, 3, 14, 16);
    const RateColumns bars = rates_range(mk, sym, m::TIMEFRAME_M1, from, to - 60);
    ASSERT_EQ(bars.rows(), 60u);
    const TickColumns t = ticks(mk, sym, from * 1000, to * 1000 - 1);
    size_t i = 0;
    for (size_t b = 0; b < bars.rows(); ++b) {
      const size_t start = i;
      double hi = -1, lo = 1e300;
      int32_t min_spread = INT32_MAX;
      uint64_t volume = 0;
      while (i < t.rows() && t.time[i] < bars.time[b] + 60) {
        hi = std::max(hi, t.bid[i]);
        lo = std::min(lo, t.bid[i]);
        min_spread = std::min(min_spread, static_cast<int32_t>(std::llround((t.ask[i] - t.bid[i]) / s.info.point)));
        if (t.flags[i] & m::TICK_FLAG_VOLUME) volume += t.volume[i];
        ++i;
      }
      ASSERT_GT(i, start);
      EXPECT_EQ(bars.open[b], t.bid[start]);
      EXPECT_EQ(bars.close[b], t.bid[i - 1]);
      EXPECT_EQ(bars.high[b], hi);
      EXPECT_EQ(bars.low[b], lo);
      EXPECT_EQ(bars.tick_volume[b], i - start);
      EXPECT_EQ(bars.spread[b], min_spread);
      EXPECT_EQ(bars.real_volume[b], s.trade_ticks ? volume : 0u);
    }
    EXPECT_EQ(i, t.rows());
  }
}

TEST(MarketBars, HigherTimeframesAggregateM1) {
  Market mk(test_config());
  const int64_t from = utc(2024, 3, 13), to = utc(2024, 3, 14) - 1;
  const RateColumns m1 = rates_range(mk, "GBPUSD", m::TIMEFRAME_M1, from, to);
  for (int64_t tf : {m::TIMEFRAME_M5, m::TIMEFRAME_M15, m::TIMEFRAME_H1, m::TIMEFRAME_H4, m::TIMEFRAME_D1}) {
    const RateColumns big = rates_range(mk, "GBPUSD", tf, from, to);
    ASSERT_FALSE(big.time.empty());
    size_t i = 0;
    for (size_t b = 0; b < big.rows(); ++b) {
      const int64_t end = b + 1 < big.rows() ? big.time[b + 1] : INT64_MAX;
      ASSERT_EQ(m1.time[i], big.time[b]);  // every bar here starts with an M1 bar (FX mid-week)
      double hi = -1, lo = 1e300;
      uint64_t n = 0;
      int32_t spread = INT32_MAX;
      const size_t start = i;
      while (i < m1.rows() && m1.time[i] < end) {
        hi = std::max(hi, m1.high[i]);
        lo = std::min(lo, m1.low[i]);
        n += m1.tick_volume[i];
        spread = std::min(spread, m1.spread[i]);
        ++i;
      }
      EXPECT_EQ(big.open[b], m1.open[start]);
      EXPECT_EQ(big.close[b], m1.close[i - 1]);
      EXPECT_EQ(big.high[b], hi);
      EXPECT_EQ(big.low[b], lo);
      EXPECT_EQ(big.tick_volume[b], n);
      EXPECT_EQ(big.spread[b], spread);
    }
  }
  // D1 for a mid-week day is one bar at midnight with ~1440 M1 bars' ticks.
  const RateColumns d1 = rates_range(mk, "GBPUSD", m::TIMEFRAME_D1, from, to);
  ASSERT_EQ(d1.rows(), 1u);
  EXPECT_EQ(d1.time[0], from);
}

TEST(MarketBars, CalendarAlignment) {
  Market mk(test_config());
  const RateColumns w1 = rates_range(mk, "EURUSD", m::TIMEFRAME_W1, utc(2024, 1, 1), utc(2024, 3, 15));
  ASSERT_GT(w1.rows(), 8u);
  for (int64_t t : w1.time) EXPECT_EQ(detail::weekday_of_day(t / 86400), 0);  // Sunday
  const RateColumns mn = rates_range(mk, "EURUSD", m::TIMEFRAME_MN1, utc(2023, 1, 1), utc(2024, 3, 15));
  ASSERT_EQ(mn.rows(), 15u);
  for (int64_t t : mn.time) EXPECT_EQ(detail::civil_from_days(t / 86400).d, 1);
  const RateColumns h4 = rates_range(mk, "EURUSD", m::TIMEFRAME_H4, utc(2024, 3, 12), utc(2024, 3, 13));
  ASSERT_EQ(h4.rows(), 7u);
  for (int64_t t : h4.time) EXPECT_EQ(t % (4 * 3600), 0);
  // Book example (§3.1): M5 00:00-00:30 holds 7 bars, both ends included.
  EXPECT_EQ(rates_range(mk, "EURUSD", m::TIMEFRAME_M5, utc(2024, 3, 12), utc(2024, 3, 12, 0, 30)).rows(), 7u);
  // Chunked rates are identical.
  const SymbolSpec& s = *mk.find("EURUSD");
  const RateColumns whole = drain(*mk.rates_range(s, m::TIMEFRAME_M15, utc(2024, 3, 1), utc(2024, 3, 15)));
  EXPECT_TRUE(same(whole, drain(*mk.rates_range(s, m::TIMEFRAME_M15, utc(2024, 3, 1), utc(2024, 3, 15)), 13)));
}

TEST(MarketBars, RowSemantics) {
  Market mk(test_config());
  const SymbolSpec& s = *mk.find("EURUSD");
  // copy_rates_from: the `count` bars with open <= date_from, ending with the bar containing it.
  const RateColumns a = drain(*mk.rates_from(s, m::TIMEFRAME_H1, utc(2024, 3, 12, 10, 30), 10));
  ASSERT_EQ(a.rows(), 10u);
  EXPECT_EQ(a.time.back(), utc(2024, 3, 12, 10));
  EXPECT_EQ(a.time.front(), utc(2024, 3, 12, 1));
  const RateColumns b = drain(*mk.rates_from(s, m::TIMEFRAME_H1, utc(2024, 3, 12, 10), 1));
  ASSERT_EQ(b.rows(), 1u);
  EXPECT_EQ(b.time[0], utc(2024, 3, 12, 10));
  // Across the weekend: FX reopens Sunday 21:00 UTC (17:00 New York summer time); the bar before
  // is Friday 21:00 (it closed at 22:00 UTC, 17:00 New York winter time).
  const RateColumns w = drain(*mk.rates_from(s, m::TIMEFRAME_H1, utc(2024, 3, 11, 0), 5));
  ASSERT_EQ(w.rows(), 5u);
  EXPECT_EQ(w.time[0], utc(2024, 3, 8, 21));
  EXPECT_EQ(w.time[1], utc(2024, 3, 10, 21));
  EXPECT_EQ(w.time[2], utc(2024, 3, 10, 22));
  EXPECT_EQ(w.time[3], utc(2024, 3, 10, 23));
  EXPECT_EQ(w.time[4], utc(2024, 3, 11, 0));
  // copy_rates_from_pos: 0 = the forming bar containing now.
  const RateColumns p = drain(*mk.rates_from_pos(s, m::TIMEFRAME_M1, 0, 5));
  ASSERT_EQ(p.rows(), 5u);
  EXPECT_EQ(p.time.back(), kNowMs / 60000 * 60);
  const RateColumns p1 = drain(*mk.rates_from_pos(s, m::TIMEFRAME_M1, 1, 5));
  EXPECT_EQ(p1.time.back(), p.time[3]);
  // copy_rates_range: both ends inclusive.
  const RateColumns r = drain(*mk.rates_range(s, m::TIMEFRAME_M1, utc(2024, 3, 12, 10), utc(2024, 3, 12, 10, 5)));
  ASSERT_EQ(r.rows(), 6u);
  EXPECT_EQ(r.time.front(), utc(2024, 3, 12, 10));
  EXPECT_EQ(r.time.back(), utc(2024, 3, 12, 10, 5));
  // No bars in range: empty, not an error.
  EXPECT_EQ(drain(*mk.rates_range(s, m::TIMEFRAME_M1, utc(2024, 3, 9), utc(2024, 3, 9, 5))).rows(), 0u);
  // Argument errors.
  EXPECT_THROW(mk.rates_from(s, m::TIMEFRAME_H1, utc(2024, 3, 12), 0), TerminalError);
  EXPECT_THROW(mk.rates_from(s, 7, utc(2024, 3, 12), 10), TerminalError);
  EXPECT_THROW(mk.rates_from(s, m::TIMEFRAME_M1, utc(2024, 3, 12), 100000), TerminalError);  // >= maxbars
  EXPECT_THROW(mk.rates_from_pos(s, m::TIMEFRAME_M1, -1, 10), TerminalError);
  EXPECT_THROW(mk.rates_range(s, m::TIMEFRAME_M1, utc(2024, 3, 12), utc(2024, 3, 11)), TerminalError);
  // A range holding >= maxbars bars fails as a whole (maxbars is 100000 here: ~70 FX days of M1).
  EXPECT_THROW(mk.rates_range(s, m::TIMEFRAME_M1, utc(2023, 6, 1), utc(2024, 3, 1)), TerminalError);
  EXPECT_GT(drain(*mk.rates_range(s, m::TIMEFRAME_H1, utc(2023, 6, 1), utc(2024, 3, 1))).rows(), 4500u);
  try {
    mk.rates_from_pos(s, m::TIMEFRAME_M1, 0, 0);
    FAIL();
  } catch (const TerminalError& e) {
    EXPECT_EQ(e.code(), -2);
  }
}

TEST(MarketTime, NothingInTheFutureNorBeforeHistory) {
  Market mk(test_config());
  const SymbolSpec& s = *mk.find("EURUSD");
  const TickColumns t = ticks(mk, "EURUSD", kNowMs - 120000, kNowMs + 86400000);
  ASSERT_GT(t.rows(), 0u);
  EXPECT_LE(t.time_msc.back(), kNowMs);
  const Tick live = mk.live_tick(s);
  EXPECT_EQ(live.time_msc, t.time_msc.back());
  EXPECT_EQ(live.bid, t.bid.back());
  // The forming M1 bar holds exactly the ticks so far.
  const RateColumns forming = drain(*mk.rates_from_pos(s, m::TIMEFRAME_M1, 0, 1));
  const TickColumns in_bar = ticks(mk, "EURUSD", forming.time[0] * 1000, kNowMs);
  EXPECT_EQ(forming.tick_volume[0], in_bar.rows());
  EXPECT_EQ(forming.close[0], live.bid);
  // A range entirely in the future is outside the history: it fails (-4) rather than being empty.
  EXPECT_THROW(mk.rates_range(s, m::TIMEFRAME_M1, kNowMs / 1000 + 60, kNowMs / 1000 + 86400), TerminalError);
  // Before history_start: nothing.
  const int64_t hs = test_config().history_start;
  const TickColumns early = drain(*mk.ticks_from(s, 0, 10, m::COPY_TICKS_ALL));
  ASSERT_EQ(early.rows(), 10u);
  EXPECT_GE(early.time.front(), hs);
  const RateColumns d1 = drain(*mk.rates_range(s, m::TIMEFRAME_D1, 0, hs + 10 * 86400));
  ASSERT_FALSE(d1.time.empty());
  EXPECT_GE(d1.time.front(), hs);
  EXPECT_THROW(mk.tick_at(s, (hs - 86400) * 1000), TerminalError);
}

// Issue 14 item 8: only the served history exists. A range entirely before history_start (or
// after now) fails with (-4, not found), as MT5's copy_rates_range does; and with maxbars bars on
// the chart, older bars are unreachable by range, from and from_pos alike.
TEST(MarketHistory, OutsideTheServedHistoryFails) {
  SimConfig cfg = test_config();
  cfg.maxbars = 5000;
  Market mk(cfg);
  const SymbolSpec& s = *mk.find("EURUSD");
  const int64_t hs = cfg.history_start;
  auto code_of = [](auto&& call) {
    try {
      call();
    } catch (const TerminalError& e) {
      return e.code();
    }
    return int64_t{0};
  };
  EXPECT_EQ(code_of([&] { mk.rates_range(s, m::TIMEFRAME_H1, hs - 30 * 86400, hs - 86400); }), -4);
  EXPECT_EQ(drain(*mk.rates_from(s, m::TIMEFRAME_H1, hs - 86400, 10)).rows(), 0u);  // from: empty
  EXPECT_EQ(code_of([&] { mk.rates_range(s, m::TIMEFRAME_D1, kNowMs / 1000 + 86400, kNowMs / 1000 + 9 * 86400); }), -4);
  // Overlapping the start: the bars inside.
  const RateColumns edge = drain(*mk.rates_range(s, m::TIMEFRAME_D1, hs - 30 * 86400, hs + 5 * 86400));
  ASSERT_FALSE(edge.time.empty());
  EXPECT_GE(edge.time.front(), hs);
  // maxbars: the chart holds the newest 5000 M1 bars (~3.5 FX days). Position 4999 is the oldest.
  const RateColumns newest = drain(*mk.rates_from_pos(s, m::TIMEFRAME_M1, 0, 4999));
  const RateColumns oldest = drain(*mk.rates_from_pos(s, m::TIMEFRAME_M1, 4999, 10));
  ASSERT_EQ(newest.rows(), 4999u);
  ASSERT_EQ(oldest.rows(), 1u);  // positions 5000.. are not on the chart
  EXPECT_LT(oldest.time[0], newest.time.front());
  EXPECT_EQ(code_of([&] { mk.rates_from_pos(s, m::TIMEFRAME_M1, 5000, 10); }), -4);
  const int64_t first_served = oldest.time[0];
  // A range reaching further back starts at the oldest served bar...
  const RateColumns r = drain(*mk.rates_range(s, m::TIMEFRAME_M1, first_served - 3600, first_served + 600));
  ASSERT_FALSE(r.time.empty());
  EXPECT_EQ(r.time.front(), first_served);
  // ...one entirely older fails, although that minute exists in the price history...
  EXPECT_EQ(code_of([&] { mk.rates_range(s, m::TIMEFRAME_M1, first_served - 7200, first_served - 3600); }), -4);
  // ...copy_rates_from before it is empty; from within it stops at the oldest served bar.
  EXPECT_EQ(drain(*mk.rates_from(s, m::TIMEFRAME_M1, first_served - 3600, 10)).rows(), 0u);
  const RateColumns f = drain(*mk.rates_from(s, m::TIMEFRAME_M1, first_served + 120, 100));
  ASSERT_FALSE(f.time.empty());
  EXPECT_EQ(f.time.front(), first_served);
  // Higher timeframes hold fewer bars than maxbars here: everything since history_start is served.
  EXPECT_GT(drain(*mk.rates_range(s, m::TIMEFRAME_D1, hs, kNowMs / 1000)).rows(), 300u);
}

TEST(MarketLive, SymbolInfoAndFixedQuotes) {
  SimConfig cfg = test_config();
  cfg.fixed_quotes["GBPUSD"] = FixedQuote{1.25, 1.2502};
  Market mk(cfg);
  const SymbolInfo eur = mk.symbol_info(*mk.find("EURUSD"));
  EXPECT_GT(eur.bid, 0);
  EXPECT_EQ(eur.spread, std::llround((eur.ask - eur.bid) * 1e5));
  EXPECT_LE(eur.bidlow, eur.bid);
  EXPECT_GE(eur.bidhigh, eur.bid);
  EXPECT_GT(eur.session_close, 0);
  EXPECT_EQ(eur.time, kNowMs / 1000 - (kNowMs / 1000 - eur.time));
  const SymbolInfo jpy = mk.symbol_info(*mk.find("USDJPY"));
  EXPECT_NEAR(jpy.trade_tick_value, 100.0 / jpy.ask, 1e-9);
  EXPECT_GT(jpy.trade_tick_value_loss, jpy.trade_tick_value_profit);
  const Tick gbp = mk.live_tick(*mk.find("GBPUSD"));
  EXPECT_EQ(gbp.bid, 1.25);
  EXPECT_EQ(gbp.ask, 1.2502);
  EXPECT_EQ(gbp.time_msc, kNowMs);
}

TEST(MarketBook, OrderingAndVolumes) {
  Market mk(test_config());
  const SymbolSpec& s = *mk.find("EURUSD");
  const auto book = mk.book(s);
  ASSERT_EQ(book.size(), 20u);
  const Tick live = mk.live_tick(s);
  for (size_t i = 0; i < book.size(); ++i) {
    EXPECT_EQ(book[i].type, i < 10 ? m::BOOK_TYPE_SELL : m::BOOK_TYPE_BUY);
    if (i > 0) {
      EXPECT_GT(book[i - 1].price, book[i].price);
    }
    EXPECT_EQ(book[i].volume, static_cast<int64_t>(book[i].volume_dbl));
    EXPECT_GE(book[i].volume, 1);
  }
  EXPECT_EQ(book[9].price, live.ask);
  EXPECT_EQ(book[10].price, live.bid);
  EXPECT_EQ(book.size(), mk.book(s).size());
  EXPECT_TRUE(mk.book(*mk.find("TSLA")).empty());
}

TEST(MarketGroup, Filter) {
  EXPECT_TRUE(group_match("", "EURUSD"));
  EXPECT_TRUE(group_match("EUR*", "EURUSD"));
  EXPECT_FALSE(group_match("EUR*", "GBPEUR"));
  EXPECT_TRUE(group_match("*JPY", "USDJPY"));
  EXPECT_FALSE(group_match("*JPY", "JPYUSD"));
  EXPECT_TRUE(group_match(" EURUSD , GBPUSD", "GBPUSD"));
  EXPECT_TRUE(group_match(" EURUSD , GBPUSD", "EURUSD"));
  EXPECT_FALSE(group_match(" EURUSD , GBPUSD", "USDJPY"));
  EXPECT_FALSE(group_match("!EURUSD", "EURUSD"));
  EXPECT_FALSE(group_match("!EURUSD", "GBPUSD"));  // exclusions alone select nothing
  EXPECT_FALSE(group_match("eurusd", "EURUSD"));   // case-sensitive
  EXPECT_TRUE(group_match("E*U*D", "EURUSD"));     // '*' in the middle
  EXPECT_TRUE(group_match("*, !EUR*", "GBPUSD"));
  EXPECT_FALSE(group_match("*, !EUR*", "EURGBP"));
  EXPECT_TRUE(group_match("!EURUSD, EUR*", "EURUSD"));  // order matters: later inclusion wins
  const char* docs = "*,!*USD*,!*EUR*,!*JPY*,!*GBP*";
  std::vector<std::string> kept;
  for (const SymbolSpec& s : symbol_catalogue()) {
    if (group_match(docs, s.info.name)) kept.push_back(s.info.name);
  }
  for (const std::string& n : kept) {
    EXPECT_EQ(n.find("USD"), std::string::npos);
    EXPECT_EQ(n.find("EUR"), std::string::npos);
  }
  EXPECT_NE(std::find(kept.begin(), kept.end(), "AAPL"), kept.end());
  EXPECT_EQ(std::find(kept.begin(), kept.end(), "EURUSD"), kept.end());
  std::vector<std::string> noeu;
  for (const SymbolSpec& s : symbol_catalogue()) {
    if (group_match("*,!*USD*,!*EUR*", s.info.name)) noeu.push_back(s.info.name);
  }
  EXPECT_NE(std::find(noeu.begin(), noeu.end(), "GBPJPY"), noeu.end());
  EXPECT_EQ(std::find(noeu.begin(), noeu.end(), "XAUUSD"), noeu.end());
}

TEST(MarketTerminal, SymbolsAndBook) {
  SimTerminal term(test_config());
  EXPECT_EQ(term.symbols_total(), static_cast<int64_t>(symbol_catalogue().size()));
  EXPECT_EQ(term.last_error().code, 1);
  const auto all = term.symbols_get(std::nullopt);
  ASSERT_EQ(static_cast<int64_t>(all.size()), term.symbols_total());
  size_t selected = 0;
  for (const SymbolInfo& s : all) selected += s.select;
  EXPECT_GT(selected, 5u);
  EXPECT_LT(selected, all.size());
  EXPECT_EQ(term.symbols_get(std::string("*JPY")).size(), 7u);
  EXPECT_THROW(term.symbol_info("NOPE"), TerminalError);
  EXPECT_EQ(term.last_error().code, -4);
  EXPECT_EQ(term.symbol_info("EURUSD").name, "EURUSD");
  EXPECT_EQ(term.last_error().code, 1);
  EXPECT_FALSE(term.symbol_info("TSLA").select);
  EXPECT_TRUE(term.symbol_select("TSLA", true));
  EXPECT_TRUE(term.symbol_info("TSLA").visible);
  EXPECT_GT(term.symbol_info_tick("TSLA").bid, 0);  // selected just above
  // A symbol outside Market Watch has no live tick: (-1) with kind not_selected, until selected.
  EXPECT_FALSE(term.symbol_info("ETHUSD").select);
  try {
    term.symbol_info_tick("ETHUSD");
    ADD_FAILURE() << "symbol_info_tick of a hidden symbol answered";
  } catch (const TerminalError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotSelected);
    EXPECT_EQ(e.code(), -1);
  }
  EXPECT_EQ(term.last_error().code, -1);
  EXPECT_EQ(term.last_error().description, "Terminal: Call failed");
  EXPECT_TRUE(term.symbol_select("ETHUSD", true));
  EXPECT_GT(term.symbol_info_tick("ETHUSD").bid, 0);
  EXPECT_TRUE(term.symbol_select("ETHUSD", false));
  EXPECT_THROW(term.symbol_info_tick("ETHUSD"), TerminalError);
  EXPECT_EQ(term.last_error().code, -1);
  EXPECT_THROW(term.symbol_info_tick("NOPE"), TerminalError);
  EXPECT_EQ(term.last_error().code, -4);  // unknown stays not found
  // Book: subscription needed; no book for a symbol without depth.
  EXPECT_THROW(term.market_book_get("EURUSD"), TerminalError);
  EXPECT_EQ(term.last_error().code, -1);
  EXPECT_THROW(term.market_book_release("EURUSD"), TerminalError);
  EXPECT_THROW(term.market_book_add("TSLA"), TerminalError);
  EXPECT_TRUE(term.market_book_add("AAPL"));
  EXPECT_TRUE(term.symbol_info("AAPL").select);
  EXPECT_EQ(term.market_book_get("AAPL").size(), 20u);
  EXPECT_TRUE(term.market_book_release("AAPL"));
  EXPECT_THROW(term.market_book_get("AAPL"), TerminalError);
  const TerminalInfo ti = term.terminal_info();
  EXPECT_TRUE(ti.connected);
  EXPECT_EQ(ti.maxbars, 100000);
  EXPECT_EQ(ti.build, term.version().build);
  // Series through the terminal.
  EXPECT_THROW(term.copy_rates_from_pos("EURUSD", m::TIMEFRAME_M1, 0, 100000), TerminalError);
  EXPECT_EQ(term.last_error().code, -2);
  EXPECT_EQ(drain(*term.copy_rates_from_pos("EURUSD", m::TIMEFRAME_H1, 0, 24)).rows(), 24u);
  EXPECT_EQ(term.last_error().code, 1);
}

TEST(MarketTerminal, CannotHideSymbolInUse) {
  SimTerminal term(test_config());
  const auto positions = term.positions_get(TradeFilter{});
  if (positions.empty()) GTEST_SKIP() << "demo account has no open positions";
  const std::string sym = positions.front().symbol;
  EXPECT_TRUE(term.symbol_info(sym).select);
  EXPECT_THROW(term.symbol_select(sym, false), TerminalError);
  EXPECT_EQ(term.last_error().code, -1);
}

TEST(MarketPerf, TickThroughput) {
  Market mk(test_config());
  const SymbolSpec& s = *mk.find("EURUSD");
  const int64_t from = utc(2024, 2, 1) * 1000, to = utc(2024, 3, 1) * 1000;
  auto cursor = mk.ticks_range(s, from, to, m::COPY_TICKS_ALL);
  TickColumns chunk;
  size_t rows = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (cursor->next(1 << 16, chunk)) rows += chunk.rows();  // 64K rows: ~4 MB, cache-resident
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ perf     ] %zu EURUSD ticks (Feb 2024, 64K-row chunks) in %.3f s = %.1f M ticks/s\n", rows, secs, rows / secs / 1e6);

  const auto t1 = std::chrono::steady_clock::now();
  const RateColumns d1 = drain(*mk.rates_range(s, m::TIMEFRAME_D1, utc(2023, 3, 1), utc(2024, 3, 1)));
  const double d1_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  uint64_t n = 0;
  for (uint64_t v : d1.tick_volume) n += v;
  std::printf("[ perf     ] a year of D1 (%zu bars, %llu ticks) in %.3f s cold", d1.rows(),
              static_cast<unsigned long long>(n), d1_secs);
  const auto t2 = std::chrono::steady_clock::now();
  drain(*mk.rates_range(s, m::TIMEFRAME_D1, utc(2023, 3, 1), utc(2024, 3, 1)));
  std::printf(", %.4f s warm\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count());
  EXPECT_GT(rows, 1000000u);
}

}  // namespace
}  // namespace tradeapi::sim
