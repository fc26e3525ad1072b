// Tests of the catalogue's per-class broker setup (issue 14): margin rates by asset class (retail
// leverage: FX at the account's 1:100, indices 1:20, shares 1:5, crypto 1:2-1:10), OTC stock CFDs
// without exchange trade data, and the exchange-traded shares that have it.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/market.h"
#include "sim/sim_terminal.h"
#include "sim/sim_time.h"
#include "terminal/constants.h"

namespace tradeapi::sim {
namespace {

namespace m = tradeapi::mt5;

SimConfig account() {
  SimConfig c;
  c.now_ms = (detail::days_from_civil(2024, 3, 14) * 86400 + 15 * 3600) * 1000;  // Thursday 15:00 UTC
  c.demo_trades = false;
  c.leverage = 100;
  c.fixed_quotes["EURUSD"] = FixedQuote{1.0800, 1.0802};
  return c;
}

// Notional over margin, in the deposit currency (USD).
double leverage_of(SimTerminal& t, const std::string& symbol, double volume, double price, double usd_per_unit = 1.0) {
  const SymbolInfo info = t.symbol_info(symbol);
  const double notional = volume * info.trade_contract_size * price * usd_per_unit;
  return notional / t.order_calc_margin(m::ORDER_TYPE_BUY, symbol, volume, price);
}

TEST(SymbolClasses, MarginRatesByClass) {
  SimTerminal t(account());
  // FX: the account leverage.
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_BUY, "EURUSD", 1.0, 1.1), 1100.0);
  EXPECT_NEAR(leverage_of(t, "EURUSD", 1.0, 1.1), 100.0, 1e-9);
  // Index CFDs: 5 % (1:20), whatever the account leverage; DE40's EUR margin converts at EURUSD's ask.
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_BUY, "US500", 1.0, 5000.0), 250.0);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_BUY, "US30", 0.5, 38000.0), 950.0);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_BUY, "DE40", 1.0, 18000.0), 972.18);  // 900 EUR * 1.0802
  EXPECT_NEAR(leverage_of(t, "USTEC", 2.0, 17000.0), 20.0, 1e-6);
  // Share CFDs: 20 % (1:5).
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_BUY, "AAPL", 10.0, 200.0), 400.0);
  EXPECT_NEAR(leverage_of(t, "NVDA", 3.0, 700.0), 5.0, 1e-6);
  // Crypto CFDs: BTC 1:5, ETH 1:2 (not the account's 1:100).
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_BUY, "BTCUSD", 1.0, 60000.0), 12000.0);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_SELL, "ETHUSD", 2.0, 3000.0), 3000.0);
  for (const SymbolSpec& s : symbol_catalogue()) {
    const double lev = s.info.trade_calc_mode == m::SYMBOL_CALC_MODE_FOREX ? 100.0 : 1.0 / s.margin_rate;
    if (s.info.category == "Indices") {
      EXPECT_EQ(lev, 20.0) << s.info.name;
    } else if (s.info.category == "Crypto") {
      EXPECT_TRUE(lev >= 2.0 && lev <= 10.0) << s.info.name;
    } else if (s.info.trade_calc_mode == m::SYMBOL_CALC_MODE_CFD && s.session == SessionKind::Stock) {
      EXPECT_EQ(lev, 5.0) << s.info.name;
    } else if (s.info.trade_calc_mode == m::SYMBOL_CALC_MODE_EXCH_STOCKS) {
      EXPECT_EQ(lev, 1.0) << s.info.name;  // exchange shares: cash
    }
  }
}

// OTC share CFDs are the broker's quotes: no LAST/VOLUME/BUY/SELL ticks, no real volume, chart by BID.
// Exchange-traded shares carry the exchange's trades, chart by LAST and margin at 100 %.
TEST(SymbolClasses, OtcCfdsWithoutTradeDataExchangeSharesWithIt) {
  SimConfig c = account();
  Market mk(c);
  const int64_t from = (detail::days_from_civil(2024, 3, 13) * 86400 + 14 * 3600 + 30 * 60), to = from + 3600;
  for (const char* name : {"AAPL", "MSFT", "TSLA", "NVDA"}) {
    const SymbolSpec& s = *mk.find(name);
    EXPECT_EQ(s.info.trade_calc_mode, m::SYMBOL_CALC_MODE_CFD) << name;
    EXPECT_EQ(s.info.chart_mode, 0) << name;
    TickColumns all, part;
    auto cursor = mk.ticks_range(s, from * 1000, to * 1000, m::COPY_TICKS_ALL);
    while (cursor->next(100000, part)) {
      all.flags.insert(all.flags.end(), part.flags.begin(), part.flags.end());
      all.last.insert(all.last.end(), part.last.begin(), part.last.end());
      all.volume.insert(all.volume.end(), part.volume.begin(), part.volume.end());
    }
    ASSERT_GT(all.flags.size(), 1000u) << name;
    for (size_t k = 0; k < all.flags.size(); ++k) {
      ASSERT_EQ(all.flags[k] & (m::TICK_FLAG_LAST | m::TICK_FLAG_VOLUME | m::TICK_FLAG_BUY | m::TICK_FLAG_SELL), 0u);
      ASSERT_EQ(all.last[k], 0.0);
      ASSERT_EQ(all.volume[k], 0u);
    }
    EXPECT_FALSE(mk.ticks_range(s, from * 1000, to * 1000, m::COPY_TICKS_TRADE)->next(1000, part)) << name;
    RateColumns bars;
    ASSERT_TRUE(mk.rates_range(s, m::TIMEFRAME_M5, from, to)->next(1000, bars));
    for (uint64_t v : bars.real_volume) EXPECT_EQ(v, 0u) << name;
  }
  const SymbolSpec& amzn = *mk.find("AMZN");
  EXPECT_EQ(amzn.info.trade_calc_mode, m::SYMBOL_CALC_MODE_EXCH_STOCKS);
  EXPECT_EQ(amzn.info.trade_exemode, m::SYMBOL_TRADE_EXECUTION_EXCHANGE);
  EXPECT_EQ(amzn.info.chart_mode, 1);
  // M1 bars by LAST: OHLC of the trade prices, real volume the traded volume.
  TickColumns trades;
  ASSERT_TRUE(mk.ticks_range(amzn, from * 1000, (from + 60) * 1000 - 1, m::COPY_TICKS_TRADE)->next(100000, trades));
  ASSERT_GT(trades.rows(), 10u);
  double hi = 0, lo = 1e300;
  uint64_t volume = 0;
  for (size_t k = 0; k < trades.rows(); ++k) {
    ASSERT_TRUE(trades.flags[k] & m::TICK_FLAG_LAST);
    ASSERT_TRUE(trades.flags[k] & (m::TICK_FLAG_BUY | m::TICK_FLAG_SELL));
    hi = std::max(hi, trades.last[k]);
    lo = std::min(lo, trades.last[k]);
    volume += trades.volume[k];
  }
  RateColumns m1;
  ASSERT_TRUE(mk.rates_range(amzn, m::TIMEFRAME_M1, from, from)->next(10, m1));
  ASSERT_EQ(m1.rows(), 1u);
  EXPECT_EQ(m1.open[0], trades.last.front());
  EXPECT_EQ(m1.close[0], trades.last.back());
  EXPECT_EQ(m1.high[0], hi);
  EXPECT_EQ(m1.low[0], lo);
  EXPECT_EQ(m1.real_volume[0], volume);
  // A cash share: the whole price as margin, whatever the leverage.
  SimTerminal t(c);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(m::ORDER_TYPE_BUY, "AMZN", 10.0, 175.0), 1750.0);
}

}  // namespace
}  // namespace tradeapi::sim

namespace tradeapi::sim {
namespace {
// Issue 14 item 9: a build and a release date that belong together (build 5100: 5 June 2025).
TEST(SymbolClasses, VersionIsARealBuildAndDate) {
  SimTerminal t(account());
  const Version v = t.version();
  EXPECT_EQ(v.build, 5100);
  EXPECT_EQ(v.build_date, "5 Jun 2025");
  EXPECT_EQ(t.terminal_info().build, v.build);
}
}  // namespace
}  // namespace tradeapi::sim
