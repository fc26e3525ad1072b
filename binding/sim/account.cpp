// The demo account: its generated state (history_generator.cpp) and its live view at the current
// quotes. order_check lives in order_check.cpp.
#include <algorithm>
#include <map>

#include "../terminal/constants.h"
#include "history_generator.h"
#include "money.h"
#include "trading.h"

namespace tradeapi::sim {

Account::Account(const Market& market, const Calculator& calc) : market_(market), calc_(calc) {
  AccountState state = generate_account(market_);
  positions_ = std::move(state.positions);
  orders_ = std::move(state.orders);
  history_orders_ = std::move(state.history_orders);
  history_deals_ = std::move(state.history_deals);
}

std::vector<TradePosition> Account::positions() const {
  std::vector<TradePosition> out = positions_;
  for (TradePosition& p : out) {
    const SymbolSpec* s = market_.find(p.symbol);
    if (s == nullptr) continue;  // cannot happen: positions are generated from the market's symbols
    const Tick t = market_.live_tick(*s);
    const bool buy = p.type == mt5::POSITION_TYPE_BUY;
    // A position is valued at the price it would close at: bid for buys, ask for sells (§6.2).
    p.price_current = buy ? t.bid : t.ask;
    p.profit = calc_.profit(buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, *s, p.volume, p.price_open,
                            p.price_current);
  }
  return out;
}

std::vector<TradeOrder> Account::orders() const {
  std::vector<TradeOrder> out = orders_;
  for (TradeOrder& o : out) {
    const SymbolSpec* s = market_.find(o.symbol);
    if (s == nullptr) continue;
    const Tick t = market_.live_tick(*s);
    const bool buy = o.type == mt5::ORDER_TYPE_BUY_LIMIT || o.type == mt5::ORDER_TYPE_BUY_STOP ||
                     o.type == mt5::ORDER_TYPE_BUY_STOP_LIMIT;
    o.price_current = buy ? t.ask : t.bid;  // the price the order would trigger against
  }
  return out;
}

AccountInfo Account::info() const {
  const SimConfig& config = market_.config();
  AccountInfo a;
  a.login = config.login;
  a.trade_mode = mt5::ACCOUNT_TRADE_MODE_DEMO;
  a.leverage = config.leverage;
  a.limit_orders = 200;
  a.margin_so_mode = mt5::ACCOUNT_STOPOUT_MODE_PERCENT;
  a.trade_allowed = true;
  a.trade_expert = true;
  a.margin_mode = mt5::ACCOUNT_MARGIN_MODE_RETAIL_HEDGING;
  a.currency_digits = kCurrencyDigits;
  a.fifo_close = false;

  a.balance = round_money(config.balance);
  a.credit = 0;
  // Margin of open positions at the current market price (ask for buys, bid for sells), as MT5
  // recalculates margin with current prices and rates. Hedged legs of one symbol: with
  // margin_hedged_use_leg the larger side is charged (§6.1); otherwise both legs are charged in
  // full — a conservative simplification of the margin_hedged rule.
  struct Legs {
    double buy = 0, sell = 0;
  };
  std::map<std::string, Legs> legs;
  double profit = 0;
  for (const TradePosition& p : positions()) {
    const SymbolSpec* s = market_.find(p.symbol);
    if (s == nullptr) continue;
    profit += p.profit;
    const Tick t = market_.live_tick(*s);
    const bool buy = p.type == mt5::POSITION_TYPE_BUY;
    const double m = calc_.margin(buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, *s, p.volume, buy ? t.ask : t.bid);
    (buy ? legs[p.symbol].buy : legs[p.symbol].sell) += m;
  }
  double margin = 0;
  for (const auto& [name, l] : legs) {
    const SymbolSpec* s = market_.find(name);
    margin += (s != nullptr && s->info.margin_hedged_use_leg) ? std::max(l.buy, l.sell) : l.buy + l.sell;
  }
  a.profit = round_money(profit);
  a.equity = round_money(a.balance + a.credit + a.profit);
  a.margin = round_money(margin);
  a.margin_free = round_money(a.equity - a.margin);
  a.margin_level = a.margin > 0 ? a.equity / a.margin * 100.0 : 0.0;
  a.margin_so_call = 50.0;
  a.margin_so_so = 30.0;
  // Pending orders on OTC symbols reserve nothing; maintenance/assets/liabilities are not modelled.
  a.margin_initial = 0;
  a.margin_maintenance = 0;
  a.name = "Tradeapi Demo";
  a.server = "Tradeapi-Sim";
  a.currency = config.currency;
  a.company = "Tradeapi Simulated Markets Ltd.";
  return a;
}

}  // namespace tradeapi::sim
