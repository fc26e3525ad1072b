// The simulated trading side: margin/profit (mt5-reference §6), the demo account with positions,
// pending orders and a consistent history, and order_check (§7).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../terminal/records.h"
#include "calc_math.h"
#include "config.h"
#include "history_generator.h"
#include "ledger.h"
#include "market.h"

namespace tradeapi::sim {

class Calculator {
 public:
  explicit Calculator(const Market& market) : market_(market) {}
  // Margin for one new order in the deposit currency (§6.1, §6.3). Throws invalid_params for a bad action.
  double margin(int64_t order_type, const SymbolSpec& s, double volume, double price) const;
  // Profit in the deposit currency (§6.2, §6.3); only ORDER_TYPE_BUY/SELL are valid.
  double profit(int64_t order_type, const SymbolSpec& s, double volume, double price_open, double price_close) const;

 private:
  const Market& market_;
};

// The demo account: its generated history and its life after it (ledger.h), seen at the market's
// clock: every read first plays the events up to now.
class Account {
 public:
  Account(const Market& market, const Calculator& calc);  // the generated demo account
  Account(const Market& market, const Calculator& calc, AccountState state);  // a given state (tests)
  AccountInfo info() const;                       // equity and profit at live prices
  std::vector<TradePosition> positions() const;   // price_current/profit at live prices, swap to now
  std::vector<TradeOrder> orders() const;         // active pending orders
  const std::vector<TradeOrder>& history_orders() const;
  const std::vector<TradeDeal>& history_deals() const;
  OrderCheckResult check(const TradeRequest& request) const;
  // Margin of the open positions, plus `extra` (a position about to open on `extra_symbol`) when
  // given: MT5's hedged rule per symbol, at the positions' open prices and opening conversion
  // rates (§6.1), so it does not move with the quotes.
  double margin(const SymbolSpec* extra_symbol = nullptr, const calc::MarginLeg* extra = nullptr) const;
  // The ledger played up to now (worker thread only, like the market's caches).
  Ledger& ledger() const;

 private:
  std::vector<TradePosition> positions_at(int64_t now) const;  // the ledger as played, valued live

  const Market& market_;
  const Calculator& calc_;
  mutable Ledger ledger_;
};

}  // namespace tradeapi::sim
