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
    : market_(market),
      calc_(calc),
      positions_(std::move(state.positions)),
      orders_(std::move(state.orders)),
      history_orders_(std::move(state.history_orders)),
      history_deals_(std::move(state.history_deals)) {
  // Each position keeps the margin conversion rate of its opening (quotes at its open time), so
  // that the account margin is fixed while it is open.
  for (const TradePosition& p : positions_) {
    calc::MarginLeg leg;
    leg.buy = p.type == mt5::POSITION_TYPE_BUY;
    leg.volume = p.volume;
    leg.price = p.price_open;
    const SymbolSpec* s = market_.find(p.symbol);
    if (s != nullptr) {
      const int64_t open_msc = p.time_msc;
      const calc::QuoteSource then = [this, open_msc](const SymbolSpec& q) {
        try {
          return market_.tick_at(q, open_msc);
        } catch (const TerminalError&) {
          return market_.live_tick(q);  // no history that early: the best quote there is
        }
      };
      leg.rate = calc::margin_rate(market_, *s, leg.buy, p.price_open, then);
    }
    legs_.push_back(leg);
    swaps_.push_back(SwapSoFar{p.time_msc, 0});
  }
}

std::vector<TradePosition> Account::positions() const {
  std::vector<TradePosition> out = positions_;
  const int64_t now = market_.now_ms();
  for (size_t k = 0; k < out.size(); ++k) {
    TradePosition& p = out[k];
    const SymbolSpec* s = market_.find(p.symbol);
    if (s == nullptr) continue;  // cannot happen: positions are generated from the market's symbols
    const Tick t = market_.live_tick(*s);
    const bool buy = p.type == mt5::POSITION_TYPE_BUY;
    // A position is valued at the price it would close at: bid for buys, ask for sells (§6.2).
    p.price_current = buy ? t.bid : t.ask;
    p.profit = calc_.profit(buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, *s, p.volume, p.price_open,
                            p.price_current);
    // Swaps of the rollovers passed since it opened (each rollover is computed once).
    SwapSoFar& so_far = swaps_[k];
    if (now > so_far.through_msc) {
      so_far.cents += swap::accrued_cents(market_, *s, buy, p.volume, p.price_open, so_far.through_msc, now);
      so_far.through_msc = now;
    }
    p.swap = from_cents(so_far.cents);
  }
  return out;
}

double Account::margin(const SymbolSpec* extra_symbol, const calc::MarginLeg* extra) const {
  struct Symbol {
    const SymbolSpec* spec = nullptr;
    std::vector<calc::MarginLeg> legs;
  };
  std::map<std::string, Symbol> by_name;
  for (size_t k = 0; k < positions_.size(); ++k) {
    Symbol& sym = by_name[positions_[k].symbol];
    if (sym.spec == nullptr) sym.spec = market_.find(positions_[k].symbol);
    sym.legs.push_back(legs_[k]);
  }
  if (extra_symbol != nullptr && extra != nullptr) {
    Symbol& sym = by_name[extra_symbol->info.name];
    sym.spec = extra_symbol;  // the specification the caller checks against
    sym.legs.push_back(*extra);
  }
  int64_t cents = 0;
  for (const auto& [name, sym] : by_name)
    if (sym.spec != nullptr) cents += to_cents(calc::symbol_margin(market_, *sym.spec, sym.legs));
  return from_cents(cents);
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
  // Floating result of the open positions: profit at live prices plus the swaps they have accrued
  // (equity - balance - credit, as MT5 reports it).
  int64_t profit = 0;
  for (const TradePosition& p : positions()) profit += to_cents(p.profit) + to_cents(p.swap);
  a.profit = from_cents(profit);
  a.equity = round_money(a.balance + a.credit + a.profit);
  a.margin = margin();
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
