// The ledger's trading primitives and its replay of events in time order (ledger.h). MT5's rules
// (mt5-reference §5.3-5.5, MQL5 docs): buy limit triggers at Ask <= price, buy stop at Ask >= price,
// sell limit at Bid >= price, sell stop at Bid <= price (Last for symbols charted by last); a limit
// fills at its price or the tick's if better (a gap), a stop at the tick's price; a stop-limit
// places its limit. SL/TP watch Bid for buys and Ask for sells. Stop-out closes the largest loss
// first while the margin level is at or below the stop-out level.
#include "ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "hash.h"
#include "money.h"
#include "sim_time.h"
#include "swap.h"
#include "trading_schedule.h"

namespace tradeapi::sim {
namespace {

using detail::floor_div;
using detail::kMinuteMs;

constexpr int kTrigger = 0, kStopLoss = 1, kTakeProfit = 2, kStopOut = 3;

bool buy_side(int64_t type) {
  return type == mt5::ORDER_TYPE_BUY || type == mt5::ORDER_TYPE_BUY_LIMIT || type == mt5::ORDER_TYPE_BUY_STOP ||
         type == mt5::ORDER_TYPE_BUY_STOP_LIMIT;
}

bool by_last(const SymbolSpec& s) { return s.info.chart_mode == mt5::SYMBOL_CHART_MODE_LAST; }

// Whether a tick crosses a pending order's price.
bool triggers(const SymbolSpec& s, const TradeOrder& o, const Tick& t) {
  const bool last = by_last(s);
  if (last && (t.flags & static_cast<uint32_t>(mt5::TICK_FLAG_LAST)) == 0) return false;
  const double ask = last ? t.last : t.ask, bid = last ? t.last : t.bid;
  switch (o.type) {
    case mt5::ORDER_TYPE_BUY_LIMIT: return ask <= o.price_open;
    case mt5::ORDER_TYPE_BUY_STOP:
    case mt5::ORDER_TYPE_BUY_STOP_LIMIT: return ask >= o.price_open;
    case mt5::ORDER_TYPE_SELL_LIMIT: return bid >= o.price_open;
    case mt5::ORDER_TYPE_SELL_STOP:
    case mt5::ORDER_TYPE_SELL_STOP_LIMIT: return bid <= o.price_open;
    default: return false;
  }
}

// Whether a minute's range may hold a crossing tick (a superset test: ticks decide).
bool may_trigger(const SymbolSpec& s, const TradeOrder& o, const Market::QuoteRange& r) {
  if (!r.any) return false;
  if (by_last(s)) {
    if (!r.has_last) return false;
    const bool up = o.type == mt5::ORDER_TYPE_BUY_STOP || o.type == mt5::ORDER_TYPE_BUY_STOP_LIMIT ||
                    o.type == mt5::ORDER_TYPE_SELL_LIMIT;
    return up ? r.last_high >= o.price_open : r.last_low <= o.price_open;
  }
  switch (o.type) {
    case mt5::ORDER_TYPE_BUY_LIMIT: return r.ask_low <= o.price_open;
    case mt5::ORDER_TYPE_BUY_STOP:
    case mt5::ORDER_TYPE_BUY_STOP_LIMIT: return r.ask_high >= o.price_open;
    case mt5::ORDER_TYPE_SELL_LIMIT: return r.bid_high >= o.price_open;
    case mt5::ORDER_TYPE_SELL_STOP:
    case mt5::ORDER_TYPE_SELL_STOP_LIMIT: return r.bid_low <= o.price_open;
    default: return false;
  }
}

// SL or TP of a position reached by a tick (kStopLoss / kTakeProfit), or -1.
int level_hit(const TradePosition& p, double bid, double ask) {
  if (p.type == mt5::POSITION_TYPE_BUY) {
    if (p.sl > 0 && bid <= p.sl) return kStopLoss;
    if (p.tp > 0 && bid >= p.tp) return kTakeProfit;
  } else {
    if (p.sl > 0 && ask >= p.sl) return kStopLoss;
    if (p.tp > 0 && ask <= p.tp) return kTakeProfit;
  }
  return -1;
}

bool may_hit_level(const TradePosition& p, const Market::QuoteRange& r) {
  if (!r.any) return false;
  if (p.type == mt5::POSITION_TYPE_BUY) return (p.sl > 0 && r.bid_low <= p.sl) || (p.tp > 0 && r.bid_high >= p.tp);
  return (p.sl > 0 && r.ask_high >= p.sl) || (p.tp > 0 && r.ask_low <= p.tp);
}

std::string price_text(double price, int64_t digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(digits), price);
  return buf;
}

// The end of the server day holding msc (ORDER_TIME_DAY orders expire then).
int64_t day_end_msc(int64_t msc) { return (floor_div(msc, detail::kDayS * 1000) + 1) * detail::kDayS * 1000; }

int64_t expiry_msc(const TradeOrder& o) {
  if (o.type_time == mt5::ORDER_TIME_SPECIFIED) return o.time_expiration * 1000;
  if (o.type_time == mt5::ORDER_TIME_SPECIFIED_DAY) return day_end_msc(o.time_expiration * 1000);
  if (o.type_time == mt5::ORDER_TIME_DAY) return day_end_msc(o.time_setup_msc);
  return INT64_MAX;
}

double margin_level(int64_t equity_cents, double margin) {
  return margin > 0 ? static_cast<double>(equity_cents) / 100.0 / margin * 100.0 : 0.0;
}

}  // namespace

Ledger::Ledger(const Market& market, AccountState state)
    : market_(market),
      orders_(std::move(state.orders)),
      history_orders_(std::move(state.history_orders)),
      history_deals_(std::move(state.history_deals)),
      symbols_(std::move(state.symbols)),
      live_(state.live_from_msc != 0),
      through_(state.live_from_msc),
      scan_from_(state.live_from_msc),
      acted_(state.live_from_msc) {
  for (const TradeDeal& d : history_deals_) {
    balance_cents_ += to_cents(d.profit) + to_cents(d.commission) + to_cents(d.swap) + to_cents(d.fee);
    deal_ticket_ = std::max(deal_ticket_, d.ticket);
  }
  for (const TradeOrder& o : history_orders_) order_ticket_ = std::max(order_ticket_, o.ticket);
  for (const TradeOrder& o : orders_) order_ticket_ = std::max(order_ticket_, o.ticket);
  // Each position keeps the margin conversion rate of its opening (quotes at its open time), so
  // that the account margin is fixed while it is open.
  for (TradePosition& p : state.positions) {
    order_ticket_ = std::max(order_ticket_, p.ticket);
    HeldPosition held;
    held.leg.buy = p.type == mt5::POSITION_TYPE_BUY;
    held.leg.volume = p.volume;
    held.leg.price = p.price_open;
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
      held.leg.rate = calc::margin_rate(market_, *s, held.leg.buy, p.price_open, then);
    }
    held.swap_through_msc = p.time_msc;
    held.record = std::move(p);
    positions_.push_back(std::move(held));
  }
}

// ---- tickets and quotes ---------------------------------------------------------------------------

// Tickets increase by small hashed steps, as a server shared with other accounts hands them out.
int64_t Ledger::next_order() {
  return order_ticket_ += 1 + static_cast<int64_t>(detail::hash2(market_.config().seed, static_cast<uint64_t>(order_ticket_)) % 40);
}
int64_t Ledger::next_deal() {
  return deal_ticket_ += 1 + static_cast<int64_t>(detail::hash2(market_.config().seed ^ 0xDEA1, static_cast<uint64_t>(deal_ticket_)) % 40);
}

std::optional<Tick> Ledger::quote(const SymbolSpec& s, int64_t msc) const {
  try {
    return market_.tick_at(s, msc);
  } catch (const TerminalError&) {
    return std::nullopt;
  }
}

calc::QuoteSource Ledger::quotes_at(int64_t msc) const {
  return [this, msc](const SymbolSpec& q) { return market_.tick_at(q, msc); };
}

int64_t Ledger::swap_cents(size_t k, int64_t msc) {
  HeldPosition& h = positions_[k];
  if (msc > h.swap_through_msc) {
    const SymbolSpec* s = market_.find(h.record.symbol);
    if (s != nullptr) {
      h.swap_cents += swap::accrued_cents(market_, *s, h.leg.buy, h.record.volume, h.record.price_open,
                                          h.swap_through_msc, msc);
    }
    h.swap_through_msc = msc;
  }
  return h.swap_cents;
}

double Ledger::margin(const SymbolSpec* extra_symbol, const calc::MarginLeg* extra) const {
  struct Symbol {
    const SymbolSpec* spec = nullptr;
    std::vector<calc::MarginLeg> legs;
  };
  std::map<std::string, Symbol> by_name;
  for (const HeldPosition& h : positions_) {
    Symbol& sym = by_name[h.record.symbol];
    if (sym.spec == nullptr) sym.spec = market_.find(h.record.symbol);
    sym.legs.push_back(h.leg);
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

int64_t Ledger::floating_cents(int64_t msc, const calc::QuoteSource& quote) {
  int64_t cents = 0;
  for (size_t k = 0; k < positions_.size(); ++k) {
    const TradePosition& p = positions_[k].record;
    const SymbolSpec* s = market_.find(p.symbol);
    if (s == nullptr) continue;
    const Tick t = quote(*s);
    const bool buy = p.type == mt5::POSITION_TYPE_BUY;
    cents += to_cents(calc::profit(market_, buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, *s, p.volume, p.price_open,
                                   buy ? t.bid : t.ask, quote));
    cents += swap_cents(k, msc);
  }
  return cents;
}

// ---- records ---------------------------------------------------------------------------------------

void Ledger::to_history(TradeOrder o) {
  // Kept in time_setup order (history_orders_get dates orders by it).
  auto at = std::upper_bound(history_orders_.begin(), history_orders_.end(), o, [](const TradeOrder& a, const TradeOrder& b) {
    return a.time_setup_msc != b.time_setup_msc ? a.time_setup_msc < b.time_setup_msc : a.ticket < b.ticket;
  });
  history_orders_.insert(at, std::move(o));
}

void Ledger::fill(const SymbolSpec& s, bool buy, double volume, double price, double sl, double tp, int64_t magic,
                  int64_t order, int64_t reason, const std::string& comment, int64_t msc) {
  TradeDeal d;
  d.ticket = next_deal();
  d.order = order;
  d.time = floor_div(msc, 1000);
  d.time_msc = msc;
  d.type = buy ? mt5::DEAL_TYPE_BUY : mt5::DEAL_TYPE_SELL;
  d.entry = mt5::DEAL_ENTRY_IN;
  d.magic = magic;
  d.position_id = order;  // position identifier = ticket of the order that opened it
  d.reason = reason;
  d.volume = volume;
  d.price = price;
  d.commission = from_cents(commission_cents(s, volume));
  d.symbol = s.info.name;
  d.comment = comment;
  balance_cents_ += to_cents(d.commission);
  history_deals_.push_back(d);

  HeldPosition h;
  TradePosition& p = h.record;
  p.ticket = p.identifier = order;
  p.time = p.time_update = d.time;
  p.time_msc = p.time_update_msc = msc;
  p.type = buy ? mt5::POSITION_TYPE_BUY : mt5::POSITION_TYPE_SELL;
  p.magic = magic;
  p.reason = mt5::POSITION_REASON_EXPERT;
  p.volume = volume;
  p.price_open = p.price_current = price;
  p.sl = sl;
  p.tp = tp;
  p.symbol = s.info.name;
  p.comment = comment;
  h.leg.buy = buy;
  h.leg.volume = volume;
  h.leg.price = price;
  h.leg.rate = calc::margin_rate(market_, s, buy, price, quotes_at(msc));
  h.swap_through_msc = msc;
  positions_.push_back(std::move(h));
}

TradeOrder Ledger::market_order(const SymbolSpec& s, int64_t type, double volume, double price, int64_t msc,
                                int64_t magic, int64_t position, int64_t reason, const std::string& comment) {
  TradeOrder o;
  o.ticket = next_order();
  o.time_setup = o.time_done = floor_div(msc, 1000);
  o.time_setup_msc = o.time_done_msc = msc;
  o.type = type;
  o.type_time = mt5::ORDER_TIME_GTC;
  o.type_filling = market_filling(s);
  o.state = mt5::ORDER_STATE_FILLED;
  o.magic = magic;
  o.position_id = position;
  o.reason = reason;
  o.volume_initial = volume;
  o.price_open = o.price_current = price;
  o.symbol = s.info.name;
  o.comment = comment;
  return o;
}

void Ledger::settle(size_t k, double volume, double price, int64_t msc, int64_t order_reason, int64_t deal_reason,
                    const std::string& comment) {
  const TradePosition& p = positions_[k].record;
  const SymbolSpec& s = *market_.find(p.symbol);
  const int64_t type = p.type == mt5::POSITION_TYPE_BUY ? mt5::ORDER_TYPE_SELL : mt5::ORDER_TYPE_BUY;
  const TradeOrder o = market_order(s, type, std::min(volume, p.volume), price, msc, p.magic, p.identifier, order_reason, comment);
  to_history(o);
  book_out(k, o, price, mt5::DEAL_ENTRY_OUT, deal_reason, commission_cents(s, o.volume_initial));
}

void Ledger::book_out(size_t k, const TradeOrder& order, double price, int64_t entry, int64_t reason,
                      int64_t commission) {
  HeldPosition& h = positions_[k];
  TradePosition& p = h.record;
  const SymbolSpec& s = *market_.find(p.symbol);
  const bool buy = p.type == mt5::POSITION_TYPE_BUY;
  double volume = order.volume_initial;
  const bool whole = volume >= p.volume - 1e-9;
  if (whole) volume = p.volume;
  // The swap accrued so far reaches the balance in proportion to the volume closed.
  const int64_t msc = order.time_done_msc;
  const int64_t accrued = swap_cents(k, msc);
  const int64_t swap = whole ? accrued : std::llround(static_cast<double>(accrued) * volume / p.volume);

  TradeDeal d;
  d.ticket = next_deal();
  d.order = order.ticket;
  d.time = order.time_done;
  d.time_msc = msc;
  d.type = buy ? mt5::DEAL_TYPE_SELL : mt5::DEAL_TYPE_BUY;
  d.entry = entry;
  d.magic = p.magic;
  d.position_id = p.identifier;
  d.reason = reason;
  d.volume = volume;
  d.price = price;
  d.commission = from_cents(commission);
  d.swap = from_cents(swap);
  d.profit = calc::profit(market_, buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, s, volume, p.price_open, price,
                          quotes_at(msc));
  d.symbol = p.symbol;
  d.comment = order.comment;
  balance_cents_ += to_cents(d.profit) + to_cents(d.commission) + to_cents(d.swap);
  history_deals_.push_back(d);

  if (whole) {
    positions_.erase(positions_.begin() + static_cast<std::ptrdiff_t>(k));
    return;
  }
  p.volume = std::round((p.volume - volume) * 1e8) / 1e8;
  h.leg.volume = p.volume;
  h.swap_cents = accrued - swap;
  p.time_update = order.time_done;
  p.time_update_msc = msc;
}

// ---- trading ----------------------------------------------------------------------------------------

bool Ledger::open(const SymbolSpec& s, bool buy, double volume, double sl, double tp, int64_t magic, int64_t msc,
                  const std::string& comment) {
  if (!market_.is_open(s, msc)) return false;
  const std::optional<Tick> t = quote(s, msc);
  if (!t) return false;
  const double price = buy ? t->ask : t->bid;
  // The position's identifier is the ticket of the order that opens it.
  TradeOrder o = market_order(s, buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, volume, price, msc, magic, 0,
                              mt5::ORDER_REASON_EXPERT, comment);
  o.position_id = o.ticket;
  o.sl = sl;
  o.tp = tp;
  to_history(o);
  fill(s, buy, volume, price, sl, tp, magic, o.ticket, mt5::DEAL_REASON_EXPERT, comment, msc);
  return true;
}

bool Ledger::close(size_t k, double volume, int64_t msc) {
  if (k >= positions_.size() || !(volume > 0)) return false;
  const SymbolSpec* s = market_.find(positions_[k].record.symbol);
  if (s == nullptr || !market_.is_open(*s, msc)) return false;
  const std::optional<Tick> t = quote(*s, msc);
  if (!t) return false;
  const bool buy = positions_[k].record.type == mt5::POSITION_TYPE_BUY;
  settle(k, volume, buy ? t->bid : t->ask, msc, mt5::ORDER_REASON_EXPERT, mt5::DEAL_REASON_EXPERT, "");
  return true;
}

bool Ledger::close_by(size_t k, size_t by, int64_t msc) {
  if (k >= positions_.size() || by >= positions_.size() || k == by) return false;
  TradePosition& a = positions_[k].record;
  TradePosition& b = positions_[by].record;
  if (a.symbol != b.symbol || a.type == b.type) return false;
  const SymbolSpec& s = *market_.find(a.symbol);
  if (!market_.is_open(s, msc)) return false;
  const double volume = std::min(a.volume, b.volume);
  // One CLOSE_BY order; a deal per position (entry OUT_BY), both at the open price of the position
  // closed by, so that the pair's result is the difference of their open prices, once (MT5's close by).
  TradeOrder o;
  o.ticket = next_order();
  o.time_setup = o.time_done = floor_div(msc, 1000);
  o.time_setup_msc = o.time_done_msc = msc;
  o.type = mt5::ORDER_TYPE_CLOSE_BY;
  o.type_filling = mt5::ORDER_FILLING_FOK;
  o.state = mt5::ORDER_STATE_FILLED;
  o.magic = a.magic;
  o.position_id = a.identifier;
  o.position_by_id = b.identifier;
  o.reason = mt5::ORDER_REASON_EXPERT;
  o.volume_initial = volume;
  o.price_open = o.price_current = b.price_open;
  o.symbol = a.symbol;
  o.comment = "#" + std::to_string(a.identifier) + " by #" + std::to_string(b.identifier);
  to_history(o);
  // Close the later index first so that erasing it leaves the earlier one in place.
  const size_t first = std::max(k, by), second = std::min(k, by);
  const double price = b.price_open;  // a and b do not outlive the first erase
  book_out(first, o, price, mt5::DEAL_ENTRY_OUT_BY, mt5::DEAL_REASON_EXPERT, 0);
  book_out(second, o, price, mt5::DEAL_ENTRY_OUT_BY, mt5::DEAL_REASON_EXPERT, 0);
  return true;
}

bool Ledger::modify(size_t k, double sl, double tp, int64_t msc) {
  if (k >= positions_.size()) return false;
  TradePosition& p = positions_[k].record;
  p.sl = sl;
  p.tp = tp;
  p.time_update = floor_div(msc, 1000);
  p.time_update_msc = msc;
  return true;
}

bool Ledger::place(TradeOrder o, int64_t msc) {
  const SymbolSpec* s = market_.find(o.symbol);
  if (s == nullptr || !market_.is_open(*s, msc) || expiry_msc(o) <= msc) return false;
  o.ticket = next_order();
  o.time_setup = floor_div(msc, 1000);
  o.time_setup_msc = msc;
  o.time_done = o.time_done_msc = 0;
  o.type_filling = mt5::ORDER_FILLING_RETURN;  // pending orders use RETURN (§4.9)
  o.state = mt5::ORDER_STATE_PLACED;
  o.reason = mt5::ORDER_REASON_EXPERT;
  o.volume_current = o.volume_initial;
  orders_.push_back(o);
  return true;
}

bool Ledger::cancel(size_t k, int64_t msc) {
  if (k >= orders_.size()) return false;
  TradeOrder o = orders_[k];
  orders_.erase(orders_.begin() + static_cast<std::ptrdiff_t>(k));
  o.state = mt5::ORDER_STATE_CANCELED;
  o.time_done = floor_div(msc, 1000);
  o.time_done_msc = msc;
  if (const SymbolSpec* s = market_.find(o.symbol)) {
    if (const std::optional<Tick> t = quote(*s, msc)) o.price_current = buy_side(o.type) ? t->ask : t->bid;
  }
  to_history(o);
  return true;
}

// ---- the replay -------------------------------------------------------------------------------------

std::optional<int64_t> Ledger::next_expiry() const {
  std::optional<int64_t> first;
  for (const TradeOrder& o : orders_) {
    const int64_t e = expiry_msc(o);
    if (e != INT64_MAX && (!first || e < *first)) first = e;
  }
  return first;
}

void Ledger::expire(int64_t msc) {
  for (size_t k = 0; k < orders_.size();) {
    if (expiry_msc(orders_[k]) > msc) {
      ++k;
      continue;
    }
    TradeOrder o = orders_[k];
    orders_.erase(orders_.begin() + static_cast<std::ptrdiff_t>(k));
    o.state = mt5::ORDER_STATE_EXPIRED;
    o.time_done = floor_div(msc, 1000);
    o.time_done_msc = msc;
    to_history(o);
  }
}

void Ledger::advance(int64_t to_msc) {
  if (!live_) return;
  const SimConfig& config = market_.config();
  while (through_ < to_msc) {
    // The next instant something is due (an expiry, a scheduled action), unless the market
    // crosses an order or a level before it.
    const std::optional<int64_t> expiry = next_expiry();
    const std::optional<int64_t> action = schedule::next_action(config, acted_);
    int64_t horizon = to_msc;
    if (expiry) horizon = std::min(horizon, std::max(*expiry, through_));
    if (action) horizon = std::min(horizon, *action);
    if (const std::optional<Hit> hit = first_crossing(scan_from_, horizon)) {
      // Another order or position may cross at the same tick: look again from just before it
      // (an event that changed nothing moves past it, so the replay always progresses).
      const bool changed = apply(*hit);
      through_ = hit->msc;
      scan_from_ = changed ? hit->msc - 1 : hit->msc;
      continue;
    }
    through_ = scan_from_ = horizon;
    if (expiry && *expiry <= horizon) expire(horizon);
    if (action && *action == horizon) {
      schedule::act(*this, market_, horizon);
      acted_ = horizon;
    }
  }
}

std::optional<Ledger::Hit> Ledger::first_crossing(int64_t after, int64_t until) {
  if (orders_.empty() && positions_.empty()) return std::nullopt;
  const bool any_levels = std::any_of(positions_.begin(), positions_.end(),
                                      [](const HeldPosition& h) { return h.record.sl > 0 || h.record.tp > 0; });
  // For the stop-out bound: per held symbol the worst quotes of its last minute with ticks (the
  // price between ticks is the last tick's, inside that range), conversions at the scan's start.
  StopOutScan so;
  so.margin = positions_.empty() ? 0.0 : margin();
  if (so.margin > 0) {
    for (const HeldPosition& h : positions_) {
      const SymbolSpec* s = market_.find(h.record.symbol);
      if (s == nullptr || so.sticky.count(s) != 0) continue;
      if (const std::optional<Tick> t = quote(*s, after)) so.sticky[s] = *t;
    }
  }
  for (int64_t minute = floor_div(after, kMinuteMs), last = floor_div(until, kMinuteMs); minute <= last; ++minute) {
    std::map<const SymbolSpec*, Market::QuoteRange> ranges;
    auto range = [&](const SymbolSpec& s) -> const Market::QuoteRange& {
      auto it = ranges.find(&s);
      if (it == ranges.end()) it = ranges.emplace(&s, market_.minute_range(s, minute, until)).first;
      return it->second;
    };
    std::optional<Hit> best;
    auto consider = [&](const SymbolSpec& s, int kind, size_t index, const std::function<bool(const Tick&)>& crosses) {
      const int64_t before = best ? best->msc : until;
      if (const std::optional<Tick> t = market_.first_tick_where(s, minute, after, before, crosses)) {
        if (!best || t->time_msc < best->msc) best = Hit{t->time_msc, kind, index, *t};
      }
    };
    for (size_t k = 0; k < orders_.size(); ++k) {
      const SymbolSpec* s = market_.find(orders_[k].symbol);
      if (s == nullptr || !may_trigger(*s, orders_[k], range(*s))) continue;
      const TradeOrder& o = orders_[k];
      consider(*s, kTrigger, k, [s, &o](const Tick& t) { return triggers(*s, o, t); });
    }
    if (any_levels) {
      for (size_t k = 0; k < positions_.size(); ++k) {
        const TradePosition& p = positions_[k].record;
        const SymbolSpec* s = market_.find(p.symbol);
        if (s == nullptr || !may_hit_level(p, range(*s))) continue;
        consider(*s, kStopLoss, k, [&p](const Tick& t) { return level_hit(p, t.bid, t.ask) >= 0; });
        if (best && best->index == k && best->kind == kStopLoss) best->kind = level_hit(p, best->tick.bid, best->tick.ask);
      }
    }
    if (so.margin > 0) {
      bool moved = false;
      for (auto& [s, t] : so.sticky) {
        const Market::QuoteRange& r = range(*s);
        if (!r.any) continue;
        moved = true;
        t.bid = r.bid_low;  // buys are worst at the bid's low, sells at the ask's high
        t.ask = r.ask_high;
      }
      if (moved || minute == floor_div(after, kMinuteMs)) {
        if (std::optional<Hit> hit = stop_out_in(so, minute, after, best ? best->msc - 1 : until)) best = hit;
      }
    }
    if (best) return best;
  }
  return std::nullopt;
}

// Stop-out within one minute: a bound first (every position at its minute's worst price) and only
// when that bound comes near the level, the ticks, at exact quotes.
std::optional<Ledger::Hit> Ledger::stop_out_in(StopOutScan& so, int64_t minute, int64_t after, int64_t until) {
  if (until <= after) return std::nullopt;
  const int64_t start = std::max(after, minute * kMinuteMs);
  const calc::QuoteSource bound = [&](const SymbolSpec& q) {
    auto it = so.sticky.find(&q);
    if (it != so.sticky.end()) return it->second;
    auto c = so.conversions.find(&q);
    if (c == so.conversions.end()) c = so.conversions.emplace(&q, market_.tick_at(q, start)).first;
    return c->second;
  };
  // A margin of safety for the conversions (taken once per scan): the ticks decide.
  if (margin_level(balance_cents_ + floating_cents(start, bound), so.margin) > kStopOutPercent * 1.5) return std::nullopt;
  // Tick by tick, all the positions' symbols merged in time order.
  struct Stamped {
    const SymbolSpec* s;
    Tick t;
  };
  std::vector<Stamped> ticks;
  std::map<const SymbolSpec*, Tick> current;
  for (const auto& [s, unused] : so.sticky) {
    (void)unused;
    if (std::optional<Tick> t = quote(*s, start)) current[s] = *t;
    market_.first_tick_where(*s, minute, after, until, [&ticks, s = s](const Tick& t) {
      ticks.push_back({s, t});
      return false;
    });
  }
  std::stable_sort(ticks.begin(), ticks.end(), [](const Stamped& a, const Stamped& b) { return a.t.time_msc < b.t.time_msc; });
  for (size_t i = 0; i < ticks.size(); ++i) {
    current[ticks[i].s] = ticks[i].t;
    const int64_t msc = ticks[i].t.time_msc;
    if (i + 1 < ticks.size() && ticks[i + 1].t.time_msc == msc) continue;  // every tick of that ms first
    const calc::QuoteSource exact = [&](const SymbolSpec& q) {
      auto it = current.find(&q);
      return it != current.end() ? it->second : market_.tick_at(q, msc);
    };
    const int64_t equity = balance_cents_ + floating_cents(msc, exact);
    if (margin_level(equity, so.margin) <= kStopOutPercent) return Hit{msc, kStopOut, 0, ticks[i].t};
  }
  return std::nullopt;
}

bool Ledger::apply(const Hit& hit) {
  if (hit.kind == kStopOut) return stop_out(hit.msc);
  if (hit.kind == kStopLoss || hit.kind == kTakeProfit) {
    const TradePosition& p = positions_[hit.index].record;
    const SymbolSpec& s = *market_.find(p.symbol);
    const bool buy = p.type == mt5::POSITION_TYPE_BUY;
    const bool sl = hit.kind == kStopLoss;
    // MT5 writes the level reached in the comment: "[sl 1.08500]", "[tp 1.09500]".
    const std::string comment = std::string(sl ? "[sl " : "[tp ") + price_text(sl ? p.sl : p.tp, s.info.digits) + "]";
    settle(hit.index, p.volume, buy ? hit.tick.bid : hit.tick.ask, hit.msc, sl ? mt5::ORDER_REASON_SL : mt5::ORDER_REASON_TP,
           sl ? mt5::DEAL_REASON_SL : mt5::DEAL_REASON_TP, comment);
    return true;
  }
  TradeOrder o = orders_[hit.index];
  const SymbolSpec& s = *market_.find(o.symbol);
  orders_.erase(orders_.begin() + static_cast<std::ptrdiff_t>(hit.index));
  if (o.type == mt5::ORDER_TYPE_BUY_STOP_LIMIT || o.type == mt5::ORDER_TYPE_SELL_STOP_LIMIT) {
    // The stop price reached: the order becomes the limit order at its stop-limit price, same
    // ticket (what the terminal shows; [U] whether a server files a separate record).
    o.type = o.type == mt5::ORDER_TYPE_BUY_STOP_LIMIT ? mt5::ORDER_TYPE_BUY_LIMIT : mt5::ORDER_TYPE_SELL_LIMIT;
    o.price_open = o.price_stoplimit;
    o.price_stoplimit = 0;
    orders_.push_back(o);
    return true;
  }
  const bool buy = buy_side(o.type);
  double price = buy ? hit.tick.ask : hit.tick.bid;
  // A limit fills at its price, or at the tick's when a gap jumped past it (better for the trader).
  if (o.type == mt5::ORDER_TYPE_BUY_LIMIT) price = std::min(price, o.price_open);
  if (o.type == mt5::ORDER_TYPE_SELL_LIMIT) price = std::max(price, o.price_open);
  price = round_price(price, s.info.digits);
  o.state = mt5::ORDER_STATE_FILLED;
  o.time_done = floor_div(hit.msc, 1000);
  o.time_done_msc = hit.msc;
  o.volume_current = 0;
  o.price_current = price;
  o.position_id = o.ticket;
  to_history(o);
  fill(s, buy, o.volume_initial, price, o.sl, o.tp, o.magic, o.ticket, mt5::DEAL_REASON_EXPERT, o.comment, hit.msc);
  return true;
}

bool Ledger::stop_out(int64_t msc) {
  const calc::QuoteSource then = quotes_at(msc);
  bool closed = false;
  while (!positions_.empty()) {
    const double m = margin();
    const int64_t equity = balance_cents_ + floating_cents(msc, then);
    const double level = margin_level(equity, m);
    if (!(m > 0) || level > kStopOutPercent) return closed;
    closed = true;
    // The position with the largest loss (profit + swap) goes first.
    size_t worst = 0;
    int64_t worst_cents = INT64_MAX;
    double worst_price = 0;
    for (size_t k = 0; k < positions_.size(); ++k) {
      const TradePosition& p = positions_[k].record;
      const SymbolSpec& s = *market_.find(p.symbol);
      const Tick t = then(s);
      const bool buy = p.type == mt5::POSITION_TYPE_BUY;
      const double price = buy ? t.bid : t.ask;
      const int64_t result = to_cents(calc::profit(market_, buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, s,
                                                   p.volume, p.price_open, price, then)) + swap_cents(k, msc);
      if (result < worst_cents) {
        worst = k;
        worst_cents = result;
        worst_price = price;
      }
    }
    // MT5's stop-out comment: the margin level, equity and margin at the moment.
    char comment[96];
    std::snprintf(comment, sizeof comment, "so: %.2f%%/%.2f/%.2f", level, static_cast<double>(equity) / 100.0, m);
    settle(worst, positions_[worst].record.volume, worst_price, msc, mt5::ORDER_REASON_SO, mt5::DEAL_REASON_SO, comment);
  }
  return closed;
}

}  // namespace tradeapi::sim
