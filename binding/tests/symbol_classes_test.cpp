// Tests of the catalogue's per-class broker setup (issue 14): margin rates by asset class (retail
// leverage: FX at the account's 1:100, indices 1:20, shares 1:5, crypto 1:2-1:10), OTC stock CFDs
// without exchange trade data, and the exchange-traded shares that have it.
#include <gtest/gtest.h>

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
    } else if (s.session == SessionKind::Stock) {
      EXPECT_EQ(lev, 5.0) << s.info.name;
    }
  }
}

}  // namespace
}  // namespace tradeapi::sim
