// Deterministic demo-account generator. Everything derives from config.seed through one Rng, and
// prices come from the market's pure price path (market.tick_at), so two terminals with the same
// config produce the same history, ticket for ticket.
#include "history_generator.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "calc_math.h"
#include "money.h"
#include "rng.h"
#include "swap.h"
#include "symbol_flags.h"

namespace tradeapi::sim {
namespace {

constexpr int64_t kDay = 86400;
constexpr int64_t kHourMs = 3600 * 1000;
constexpr int64_t kStepMs = 15 * 60 * 1000;     // granularity of the search for an open market
constexpr int64_t kSearchMs = 8 * 24 * kHourMs; // longest closed stretch searched over (weekend + holiday)

using flags::kFillingFok;
using flags::kFillingIoc;
using flags::kOrderLimit;
using flags::kOrderMarket;
using flags::kOrderStop;

// Symbols a retail demo account plausibly trades, tried first when the market has them.
const std::array<const char*, 9> kPreferredSymbols = {"EURUSD", "GBPUSD", "USDJPY", "XAUUSD", "AUDUSD",
                                                      "USDCHF", "EURJPY", "US500",  "BTCUSD"};
const std::array<int64_t, 6> kMagics = {0, 0, 234000, 234000, 100500, 777};

// One market position over its life; close_msc == 0 while it is still open.
struct TradePlan {
  const SymbolSpec* s = nullptr;
  bool buy = true;
  double volume = 0;
  int64_t open_msc = 0, close_msc = 0;
  double open_price = 0, close_price = 0, sl = 0, tp = 0;
  int64_t magic = 0;
  int64_t commission_in = 0, commission_out = 0, profit = 0;  // cents
  int64_t swap = 0;  // cents accrued over the rollovers it was held through (closed trades)
  int64_t position = 0;                                        // set when tickets are assigned
};

// A pending order; done_msc == 0 while it is still active, otherwise it was cancelled then.
struct PendingPlan {
  const SymbolSpec* s = nullptr;
  int64_t type = 0;
  double volume = 0, price = 0, sl = 0, tp = 0, price_at_done = 0;
  int64_t setup_msc = 0, done_msc = 0, magic = 0;
};

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

double round_to_tick(const SymbolSpec& s, double price) {
  const double tick = s.info.trade_tick_size > 0 ? s.info.trade_tick_size : s.info.point;
  const double snapped = tick > 0 ? std::round(price / tick) * tick : price;
  return round_price(snapped, s.info.digits);
}

bool allows(const SymbolSpec& s, int64_t order_flag) {
  // A catalogue that leaves order_mode at 0 is taken as "everything allowed".
  return s.info.order_mode == 0 || (s.info.order_mode & order_flag) != 0;
}

bool is_forex(const SymbolSpec& s) {
  return s.info.trade_calc_mode == mt5::SYMBOL_CALC_MODE_FOREX ||
         s.info.trade_calc_mode == mt5::SYMBOL_CALC_MODE_FOREX_NO_LEVERAGE;
}

class Generator {
 public:
  explicit Generator(const Market& market)
      : market_(market),
        config_(market.config()),
        rng_(market.config().seed ^ 0xACC0C0FFEE5EEDULL),
        anchor_(account_anchor(market)),
        start_(std::max(config_.history_start, anchor_ - 365 * kDay)) {}

  AccountState run() {
    if (config_.demo_trades) {
      choose_symbols();
      if (!symbols_.empty()) {
        plan_closed_trades();
        plan_cancelled_orders();
        plan_open_positions();
        plan_active_orders();
      }
    }
    const int64_t deposit = settle_deposit();
    AccountState st = build(deposit);
    if (config_.demo_trades) {
      st.live_from_msc = anchor_ * 1000;
      for (const SymbolSpec* s : symbols_) st.symbols.push_back(s->info.name);
    }
    return st;
  }

 private:
  // ---- symbols -------------------------------------------------------------------------------

  bool tradable(const SymbolSpec& s) const {
    if (s.info.trade_mode != mt5::SYMBOL_TRADE_MODE_FULL || !allows(s, kOrderMarket)) return false;
    if (!(s.info.volume_min > 0) || !(s.info.trade_contract_size > 0)) return false;
    // The profit must be convertible into the deposit currency; probe the path with unit quotes.
    try {
      const calc::QuoteSource unit = [](const SymbolSpec&) {
        Tick t;
        t.bid = t.ask = 1.0;
        return t;
      };
      calc::to_deposit(market_, 1.0, s.info.currency_profit, calc::Purpose::Profit, calc::OwnPrice{&s, 1.0}, unit);
      return true;
    } catch (const TerminalError&) {
      return false;
    }
  }

  void choose_symbols() {
    for (const char* name : kPreferredSymbols) {
      const SymbolSpec* s = market_.find(name);
      if (s != nullptr && tradable(*s)) symbols_.push_back(s);
    }
    for (const SymbolSpec& s : market_.symbols()) {
      if (symbols_.size() >= 6) break;
      if (std::find(symbols_.begin(), symbols_.end(), &s) == symbols_.end() && tradable(s)) symbols_.push_back(&s);
    }
  }

  const SymbolSpec& pick_symbol() {
    return *symbols_[static_cast<size_t>(rng_.between(0, static_cast<int64_t>(symbols_.size()) - 1))];
  }

  // ---- time and size helpers -----------------------------------------------------------------

  int64_t earliest_msc() const { return config_.history_start * 1000 + kHourMs; }

  std::optional<int64_t> open_at_or_after(const SymbolSpec& s, int64_t msc, int64_t limit_msc) const {
    for (int64_t t = std::max(msc, earliest_msc()); t <= limit_msc && t <= msc + kSearchMs; t += kStepMs)
      if (market_.is_open(s, t)) return t;
    return std::nullopt;
  }

  std::optional<int64_t> open_at_or_before(const SymbolSpec& s, int64_t msc) const {
    for (int64_t t = msc; t >= earliest_msc() && t >= msc - kSearchMs; t -= kStepMs)
      if (market_.is_open(s, t)) return t;
    return std::nullopt;
  }

  // Small lots on the volume grid, so that the results stay small next to the balance.
  double lots(const SymbolSpec& s) {
    static const std::array<int64_t, 7> multiples = {1, 1, 1, 2, 2, 3, 5};
    const double min = s.info.volume_min;
    const double step = s.info.volume_step > 0 ? s.info.volume_step : min;
    double v = min * static_cast<double>(multiples[static_cast<size_t>(rng_.between(0, 6))]);
    if (s.info.volume_max > 0) v = std::min(v, s.info.volume_max);
    v = std::max(min, std::round(v / step) * step);
    return std::round(v * 1e8) / 1e8;
  }

  Tick tick(const SymbolSpec& s, int64_t msc) const { return market_.tick_at(s, msc); }

  // ---- plans ---------------------------------------------------------------------------------

  // Sets the open price (buys open at the ask, sells at the bid) and the entry commission.
  // Throws TerminalError when the path has no price at that time.
  void open_trade(TradePlan& p) const {
    const Tick t = tick(*p.s, p.open_msc);
    p.open_price = round_price(p.buy ? t.ask : t.bid, p.s->info.digits);
    p.commission_in = commission_cents(*p.s, p.volume);
  }

  void plan_closed_trades() {
    const int64_t span = anchor_ - start_;
    if (span < 4 * kDay) return;
    const int64_t n = (150 + rng_.between(0, 150)) * span / (365 * kDay);
    const int64_t first = (start_ + kDay) * 1000;
    const int64_t window = (span - 3 * kDay) * 1000;
    const int64_t last_close = (anchor_ - kDay) * 1000;
    for (int64_t k = 0; k < n; ++k) {
      TradePlan p;
      p.s = &pick_symbol();
      p.buy = rng_.chance(0.55);
      p.volume = lots(*p.s);
      p.magic = kMagics[static_cast<size_t>(rng_.between(0, 5))];
      const double at = (static_cast<double>(k) + rng_.real()) / static_cast<double>(n);
      const int64_t wanted_open = first + static_cast<int64_t>(at * static_cast<double>(window));
      const double kind = rng_.real();
      const int64_t hold = kind < 0.6 ? rng_.between(5, 8 * 60) : kind < 0.9 ? rng_.between(8 * 60, 3 * 24 * 60)
                                                                             : rng_.between(3 * 24 * 60, 10 * 24 * 60);
      const auto open = open_at_or_after(*p.s, wanted_open, last_close);
      if (!open) continue;
      const auto close = open_at_or_after(*p.s, *open + hold * 60 * 1000 + rng_.between(0, 59999), last_close);
      if (!close) continue;
      p.open_msc = *open + rng_.between(0, 59) * 1000 + rng_.between(0, 999);
      p.close_msc = std::max(*close, p.open_msc + 1000);
      try {
        open_trade(p);
        const Tick t = tick(*p.s, p.close_msc);
        p.close_price = round_price(p.buy ? t.bid : t.ask, p.s->info.digits);
        p.commission_out = commission_cents(*p.s, p.volume);
        // The realised profit follows order_calc_profit's rules with the quotes of the close time.
        const int64_t close_msc = p.close_msc;
        const calc::QuoteSource then = [this, close_msc](const SymbolSpec& q) { return tick(q, close_msc); };
        p.profit = to_cents(calc::profit(market_, p.buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, *p.s,
                                         p.volume, p.open_price, p.close_price, then));
        // Swaps of every rollover it was held over, booked on the closing deal as MT5 does.
        p.swap = swap::accrued_cents(market_, *p.s, p.buy, p.volume, p.open_price, p.open_msc, p.close_msc);
      } catch (const TerminalError&) {
        continue;  // no price on the path at that time: skip the trade
      }
      trades_.push_back(p);
    }
  }

  // Pending orders placed and later cancelled by the trader; they leave no deals.
  void plan_cancelled_orders() {
    const int64_t span = anchor_ - start_;
    if (span < 4 * kDay) return;
    const int64_t count = rng_.between(3, 8);
    for (int64_t k = 0; k < count; ++k) {
      PendingPlan p;
      p.s = &pick_symbol();
      const int64_t wanted = (start_ + kDay) * 1000 + rng_.between(0, (span - 3 * kDay) * 1000);
      const auto setup = open_at_or_after(*p.s, wanted, (anchor_ - kDay) * 1000);
      if (!setup) continue;
      p.setup_msc = *setup + rng_.between(0, 59999);
      p.done_msc = std::min(p.setup_msc + rng_.between(10 * 60, 3 * kDay) * 1000, (anchor_ - 60) * 1000);
      if (p.done_msc <= p.setup_msc) continue;
      p.type = mt5::ORDER_TYPE_BUY_LIMIT + rng_.between(0, 3);
      if (!place(p)) continue;
      try {
        const Tick t = tick(*p.s, p.done_msc);
        p.price_at_done = calc::is_buy_side(p.type) ? t.ask : t.bid;
      } catch (const TerminalError&) {
        continue;
      }
      pendings_.push_back(p);
    }
  }

  // Prices a pending order 3% away from the market on the side its type requires.
  bool place(PendingPlan& p) {
    const bool limit = p.type == mt5::ORDER_TYPE_BUY_LIMIT || p.type == mt5::ORDER_TYPE_SELL_LIMIT;
    if (!allows(*p.s, limit ? kOrderLimit : kOrderStop)) return false;
    Tick t;
    try {
      t = tick(*p.s, p.setup_msc);
    } catch (const TerminalError&) {
      return false;
    }
    const bool buy = calc::is_buy_side(p.type);
    const bool below = p.type == mt5::ORDER_TYPE_BUY_LIMIT || p.type == mt5::ORDER_TYPE_SELL_STOP;
    const double market = buy ? t.ask : t.bid;
    p.price = round_to_tick(*p.s, market * (below ? 0.97 : 1.03));
    p.volume = lots(*p.s);
    p.magic = kMagics[static_cast<size_t>(rng_.between(0, 5))];
    if (rng_.chance(0.5)) {
      p.sl = round_to_tick(*p.s, p.price * (buy ? 0.98 : 1.02));
      p.tp = round_to_tick(*p.s, p.price * (buy ? 1.04 : 0.96));
    }
    return true;
  }

  // 4-6 positions opened in the last days before the anchor; the first two are opposite positions
  // on one symbol (the account is hedging).
  void plan_open_positions() {
    const int64_t count = rng_.between(4, 6);
    const SymbolSpec& hedged = *symbols_.front();
    for (int64_t k = 0; k < count; ++k) {
      TradePlan p;
      p.s = k < 2 ? &hedged : &pick_symbol();
      p.buy = k == 0 ? true : k == 1 ? false : rng_.chance(0.5);
      p.volume = lots(*p.s);
      p.magic = kMagics[static_cast<size_t>(rng_.between(0, 5))];
      const int64_t wanted = anchor_ * 1000 - rng_.between(1, 60) * kHourMs - rng_.between(0, 3599999);
      const auto open = open_at_or_before(*p.s, wanted);
      if (!open) continue;
      p.open_msc = *open;
      try {
        open_trade(p);
        // Keep the open exposure modest next to the balance (small configured balances get
        // fewer positions rather than a margin call).
        const int64_t open_msc = p.open_msc;
        const calc::QuoteSource then = [this, open_msc](const SymbolSpec& q) { return tick(q, open_msc); };
        const double m = calc::margin(market_, p.buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, *p.s, p.volume,
                                      p.open_price, then);
        if (open_margin_ + m > 0.3 * config_.balance) continue;
        open_margin_ += m;
      } catch (const TerminalError&) {
        continue;
      }
      if (rng_.chance(0.5)) {
        p.sl = round_to_tick(*p.s, p.open_price * (p.buy ? 0.97 : 1.03));
        p.tp = round_to_tick(*p.s, p.open_price * (p.buy ? 1.05 : 0.95));
        // The account's life starts at the anchor: levels the price reached before it would have
        // closed the position then, so such a position keeps none.
        const Market::QuoteRange r = since(*p.s, p.open_msc);
        const bool reached = p.buy ? (r.bid_low <= p.sl || r.bid_high >= p.tp) : (r.ask_high >= p.sl || r.ask_low <= p.tp);
        if (r.any && reached) p.sl = p.tp = 0;
      }
      trades_.push_back(p);
    }
  }

  void plan_active_orders() {
    static const std::array<int64_t, 5> types = {mt5::ORDER_TYPE_BUY_LIMIT, mt5::ORDER_TYPE_SELL_STOP,
                                                  mt5::ORDER_TYPE_SELL_LIMIT, mt5::ORDER_TYPE_BUY_STOP,
                                                  mt5::ORDER_TYPE_BUY_LIMIT};
    const int64_t count = rng_.between(3, 5);
    for (int64_t k = 0; k < count; ++k) {
      PendingPlan p;
      p.s = &pick_symbol();
      p.type = types[static_cast<size_t>(k)];
      const auto setup = open_at_or_before(*p.s, anchor_ * 1000 - rng_.between(1, 48) * kHourMs);
      if (!setup) continue;
      p.setup_msc = *setup + rng_.between(0, 59999);
      if (place(p) && !reached_before_anchor(p)) pendings_.push_back(p);
    }
  }

  // The quotes' extremes from the minute of msc to the anchor (whole minutes: a little wider).
  Market::QuoteRange since(const SymbolSpec& s, int64_t msc) const {
    return market_.quote_range(s, floor_div(msc, 60000), floor_div(anchor_, 60), anchor_ * 1000);
  }

  // An active order whose price the market reached between its setup and the anchor would have
  // triggered then (ledger.cpp plays triggers from the anchor on): such an order is not generated.
  bool reached_before_anchor(const PendingPlan& p) const {
    const Market::QuoteRange r = since(*p.s, p.setup_msc);
    if (!r.any) return false;
    switch (p.type) {
      case mt5::ORDER_TYPE_BUY_LIMIT: return r.ask_low <= p.price;
      case mt5::ORDER_TYPE_BUY_STOP: return r.ask_high >= p.price;
      case mt5::ORDER_TYPE_SELL_LIMIT: return r.bid_high >= p.price;
      case mt5::ORDER_TYPE_SELL_STOP: return r.bid_low <= p.price;
      default: return false;
    }
  }

  // ---- the deposit -----------------------------------------------------------------------------

  int64_t results_cents() const {
    int64_t sum = 0;
    for (const TradePlan& p : trades_) sum += p.commission_in + p.commission_out + p.profit + p.swap;
    return sum;
  }

  // The opening deposit is what makes the history add up to the configured balance. Should the
  // trades have earned most of the balance, the most profitable ones are dropped so that the
  // deposit stays a sensible positive amount.
  int64_t settle_deposit() {
    const int64_t balance = to_cents(config_.balance);
    const int64_t floor = balance / 2;
    int64_t deposit = balance - results_cents();
    while (deposit < floor) {
      auto best = trades_.end();
      auto result = [](const TradePlan& p) { return p.profit + p.swap; };
      for (auto it = trades_.begin(); it != trades_.end(); ++it)
        if (it->close_msc != 0 && (best == trades_.end() || result(*it) > result(*best))) best = it;
      if (best == trades_.end() || result(*best) <= 0) break;
      trades_.erase(best);
      deposit = balance - results_cents();
    }
    return deposit;
  }

  // ---- records ---------------------------------------------------------------------------------

  int64_t next_order() { return order_ticket_ += rng_.between(1, 40); }
  int64_t next_deal() { return deal_ticket_ += rng_.between(1, 40); }

  static TradeOrder market_order(const TradePlan& p, int64_t ticket, int64_t msc, bool opening) {
    TradeOrder o;
    o.ticket = ticket;
    o.time_setup = o.time_done = msc / 1000;
    o.time_setup_msc = o.time_done_msc = msc;
    o.type = (p.buy == opening) ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL;
    o.type_time = mt5::ORDER_TIME_GTC;
    o.type_filling = market_filling(*p.s);
    o.state = mt5::ORDER_STATE_FILLED;
    o.magic = p.magic;
    o.position_id = p.position;
    o.reason = mt5::ORDER_REASON_EXPERT;
    o.volume_initial = p.volume;
    o.volume_current = 0;  // fully filled
    o.price_open = o.price_current = opening ? p.open_price : p.close_price;
    if (opening) {
      o.sl = p.sl;
      o.tp = p.tp;
    }
    o.symbol = p.s->info.name;
    return o;
  }

  static TradeDeal market_deal(const TradePlan& p, int64_t ticket, int64_t order, int64_t msc, bool opening) {
    TradeDeal d;
    d.ticket = ticket;
    d.order = order;
    d.time = msc / 1000;
    d.time_msc = msc;
    d.type = (p.buy == opening) ? mt5::DEAL_TYPE_BUY : mt5::DEAL_TYPE_SELL;
    d.entry = opening ? mt5::DEAL_ENTRY_IN : mt5::DEAL_ENTRY_OUT;
    d.magic = p.magic;
    d.position_id = p.position;
    d.reason = mt5::DEAL_REASON_EXPERT;
    d.volume = p.volume;
    d.price = opening ? p.open_price : p.close_price;
    d.commission = from_cents(opening ? p.commission_in : p.commission_out);
    d.profit = opening ? 0.0 : from_cents(p.profit);
    d.swap = opening ? 0.0 : from_cents(p.swap);
    d.symbol = p.s->info.name;
    return d;
  }

  static TradeOrder pending_order(const PendingPlan& p, int64_t ticket) {
    TradeOrder o;
    o.ticket = ticket;
    o.time_setup = p.setup_msc / 1000;
    o.time_setup_msc = p.setup_msc;
    o.time_done = p.done_msc / 1000;
    o.time_done_msc = p.done_msc;
    o.type = p.type;
    o.type_time = mt5::ORDER_TIME_GTC;
    o.type_filling = mt5::ORDER_FILLING_RETURN;  // pending orders use RETURN (§4.9)
    o.state = p.done_msc != 0 ? mt5::ORDER_STATE_CANCELED : mt5::ORDER_STATE_PLACED;
    o.magic = p.magic;
    o.reason = mt5::ORDER_REASON_EXPERT;
    o.volume_initial = o.volume_current = p.volume;  // nothing filled
    o.price_open = p.price;
    o.sl = p.sl;
    o.tp = p.tp;
    o.price_current = p.price_at_done;  // live orders get the live price in Account::orders()
    o.symbol = p.s->info.name;
    return o;
  }

  AccountState build(int64_t deposit) {
    order_ticket_ = 50000000 + rng_.between(0, 999999);
    deal_ticket_ = 40000000 + rng_.between(0, 999999);
    AccountState st;

    TradeDeal funding;
    funding.ticket = next_deal();
    funding.time = std::min(start_, anchor_);
    funding.time_msc = funding.time * 1000;
    funding.type = mt5::DEAL_TYPE_BALANCE;
    funding.reason = mt5::DEAL_REASON_CLIENT;  // non-trading deals carry CLIENT (§5.5)
    funding.profit = from_cents(deposit);
    funding.comment = "Deposit";
    st.history_deals.push_back(funding);

    // Tickets are handed out in time order across all events, as a server would.
    enum Kind { kOpen = 0, kPending = 1, kClose = 2 };
    struct Event {
      int64_t msc;
      int kind;
      size_t index;
    };
    std::vector<Event> events;
    for (size_t i = 0; i < trades_.size(); ++i) {
      events.push_back({trades_[i].open_msc, kOpen, i});
      if (trades_[i].close_msc != 0) events.push_back({trades_[i].close_msc, kClose, i});
    }
    for (size_t i = 0; i < pendings_.size(); ++i) events.push_back({pendings_[i].setup_msc, kPending, i});
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      if (a.msc != b.msc) return a.msc < b.msc;
      if (a.kind != b.kind) return a.kind < b.kind;
      return a.index < b.index;
    });

    for (const Event& e : events) {
      if (e.kind == kPending) {
        const PendingPlan& p = pendings_[e.index];
        TradeOrder o = pending_order(p, next_order());
        (p.done_msc != 0 ? st.history_orders : st.orders).push_back(o);
        continue;
      }
      TradePlan& p = trades_[e.index];
      const bool opening = e.kind == kOpen;
      const int64_t order = next_order();
      if (opening) p.position = order;  // position ticket = identifier = opening order ticket
      st.history_orders.push_back(market_order(p, order, e.msc, opening));
      st.history_deals.push_back(market_deal(p, next_deal(), order, e.msc, opening));
      if (opening && p.close_msc == 0) st.positions.push_back(position_of(p));
    }

    std::stable_sort(st.history_orders.begin(), st.history_orders.end(), [](const TradeOrder& a, const TradeOrder& b) {
      return a.time_setup_msc != b.time_setup_msc ? a.time_setup_msc < b.time_setup_msc : a.ticket < b.ticket;
    });
    return st;
  }

  static TradePosition position_of(const TradePlan& p) {
    TradePosition pos;
    pos.ticket = pos.identifier = p.position;
    pos.time = pos.time_update = p.open_msc / 1000;
    pos.time_msc = pos.time_update_msc = p.open_msc;
    pos.type = p.buy ? mt5::POSITION_TYPE_BUY : mt5::POSITION_TYPE_SELL;
    pos.magic = p.magic;
    pos.reason = mt5::POSITION_REASON_EXPERT;
    pos.volume = p.volume;
    pos.price_open = p.open_price;
    pos.sl = p.sl;
    pos.tp = p.tp;
    pos.price_current = p.open_price;
    pos.symbol = p.s->info.name;
    return pos;
  }

  const Market& market_;
  const SimConfig& config_;
  Rng rng_;
  int64_t anchor_, start_;
  std::vector<const SymbolSpec*> symbols_;
  std::vector<TradePlan> trades_;
  std::vector<PendingPlan> pendings_;
  double open_margin_ = 0;  // margin of the planned open positions, at their open time
  int64_t order_ticket_ = 0, deal_ticket_ = 0;
};

}  // namespace

// The filling a Python script would use for a market order on this symbol.
int64_t market_filling(const SymbolSpec& s) {
  if (s.info.trade_exemode != mt5::SYMBOL_TRADE_EXECUTION_MARKET &&
      s.info.trade_exemode != mt5::SYMBOL_TRADE_EXECUTION_EXCHANGE)
    return mt5::ORDER_FILLING_FOK;
  if (s.info.filling_mode & kFillingFok) return mt5::ORDER_FILLING_FOK;
  if (s.info.filling_mode & kFillingIoc) return mt5::ORDER_FILLING_IOC;
  return mt5::ORDER_FILLING_RETURN;
}

int64_t commission_cents(const SymbolSpec& s, double volume) {
  // 3.50 per lot and side in the deposit currency on FX pairs, a typical ECN charge; CFDs are
  // commission-free (spread only).
  return is_forex(s) ? -std::llround(volume * 350.0) : 0;
}

int64_t account_anchor(const Market& market) {
  if (market.config().account_anchor != 0) return market.config().account_anchor;
  return floor_div(floor_div(market.now_ms(), 1000), kDay) * kDay;
}

AccountState generate_account(const Market& market) { return Generator(market).run(); }

}  // namespace tradeapi::sim
