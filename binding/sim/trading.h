// The simulated trading side: margin/profit (mt5-reference §6), the demo account with positions,
// pending orders and a consistent history, and order_check (§7).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../terminal/records.h"
#include "config.h"
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

class Account {
 public:
  Account(const Market& market, const Calculator& calc);
  AccountInfo info() const;                       // equity, margin... at live prices
  std::vector<TradePosition> positions() const;   // price_current/profit at live prices
  std::vector<TradeOrder> orders() const;         // active pending orders
  const std::vector<TradeOrder>& history_orders() const { return history_orders_; }
  const std::vector<TradeDeal>& history_deals() const { return history_deals_; }
  OrderCheckResult check(const TradeRequest& request) const;

 private:
  const Market& market_;
  const Calculator& calc_;
  std::vector<TradePosition> positions_;
  std::vector<TradeOrder> orders_;
  std::vector<TradeOrder> history_orders_;
  std::vector<TradeDeal> history_deals_;
};

}  // namespace tradeapi::sim
