// The demo account: its generated state (history_generator.cpp) and its live view at the current
// quotes. order_check lives in order_check.cpp.
#include <map>
#include <string>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "history_generator.h"
#include "money.h"
#include "swap.h"
#include "trading.h"

namespace tradeapi::sim {

Account::Account(const Market& market, const Calculator& calc) : Account(market, calc, generate_account(market)) {}

Account::Account(const Market& market, const Calculator& calc, AccountState state)
    : market_(market), calc_(calc), ledger_(market, std::move(state)) {}

Ledger& Account::ledger() const {
  ledger_.advance(market_.now_ms());
  return ledger_;
}

const std::vector<TradeOrder>& Account::history_orders() const { return ledger().history_orders(); }
const std::vector<TradeDeal>& Account::history_deals() const { return ledger().history_deals(); }

std::vector<TradePosition> Account::positions() const {
  const int64_t now = market_.now_ms();
  ledger_.advance(now);
  return positions_at(now);
}

std::vector<TradePosition> Account::positions_at(int64_t now) const {
  Ledger& book = ledger_;
  std::vector<TradePosition> out;
  out.reserve(book.positions().size());
  for (size_t k = 0; k < book.positions().size(); ++k) {
    TradePosition p = book.positions()[k].record;
    const SymbolSpec* s = market_.find(p.symbol);
    if (s == nullptr) continue;  // cannot happen: positions are generated from the market's symbols
    const Tick t = market_.live_tick(*s);
    const bool buy = p.type == mt5::POSITION_TYPE_BUY;
    // A position is valued at the price it would close at: bid for buys, ask for sells (§6.2).
    p.price_current = buy ? t.bid : t.ask;
    p.profit = calc_.profit(buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, *s, p.volume, p.price_open,
                            p.price_current);
    // Swaps of the rollovers passed since it opened (each rollover is computed once).
    p.swap = from_cents(book.swap_cents(k, now));
    out.push_back(std::move(p));
  }
  return out;
}

double Account::margin(const SymbolSpec* extra_symbol, const calc::MarginLeg* extra) const {
  return ledger().margin(extra_symbol, extra);
}

std::vector<TradeOrder> Account::orders() const {
  std::vector<TradeOrder> out = ledger().orders();
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

  // Deposit plus every deal's profit, commission, swap and fee, to the cent.
  // One instant for the whole answer: the balance and the positions come from the same history.
  const int64_t now = market_.now_ms();
  ledger_.advance(now);
  a.balance = from_cents(ledger_.balance_cents());
  a.credit = 0;
  // Floating result of the open positions: profit at live prices plus the swaps they have accrued
  // (equity - balance - credit, as MT5 reports it).
  int64_t profit = 0;
  for (const TradePosition& p : positions_at(now)) profit += to_cents(p.profit) + to_cents(p.swap);
  a.profit = from_cents(profit);
  a.equity = round_money(a.balance + a.credit + a.profit);
  a.margin = ledger_.margin();
  a.margin_free = round_money(a.equity - a.margin);
  a.margin_level = a.margin > 0 ? a.equity / a.margin * 100.0 : 0.0;
  a.margin_so_call = kMarginCallPercent;
  a.margin_so_so = kStopOutPercent;
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
