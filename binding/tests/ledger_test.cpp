// The simulated account's life (binding/sim/ledger.h) against MT5's rules: pending orders trigger at
// the first crossing tick with MT5's fill prices, expire (SPECIFIED, DAY), SL/TP close on the right
// side of the quote, stop-out closes the largest loss first; and the account at any instant is a
// pure function of (config, T): played in steps or at once, on one terminal or two, the balance is
// the deposit plus the deals to the cent. Expected crossings come from a brute-force walk over
// every tick, not from the ledger's M1 shortcut.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <map>
#include <set>

#include "sim/ledger.h"
#include "sim/sim_terminal.h"
#include "terminal/constants.h"

using namespace tradeapi;
using namespace tradeapi::sim;

namespace {

constexpr int64_t kNowMs = 1763553600000;   // Wed 2025-11-19 12:00 UTC: FX open
constexpr int64_t kFromMs = kNowMs - 4 * 3600000;  // the account's life starts 08:00
constexpr int64_t kAnchor = 1763510400;     // 2025-11-19 00:00 UTC

int64_t cents(double v) { return std::llround(v * 100.0); }

SimConfig frozen(int64_t now_ms = kNowMs) {
  SimConfig c;
  c.now_ms = now_ms;
  c.demo_trades = false;
  c.trades_per_hour = 0;
  return c;
}

AccountState deposit(double amount) {
  AccountState st;
  TradeDeal d;
  d.ticket = 1000;
  d.type = mt5::DEAL_TYPE_BALANCE;
  d.profit = amount;
  d.time = kFromMs / 1000 - 86400;
  d.time_msc = d.time * 1000;
  st.history_deals.push_back(d);
  st.live_from_msc = kFromMs;
  return st;
}

// Every tick of a symbol in (from, to], by brute force (the reference for the M1 search).
std::vector<Tick> ticks(const Market& m, const SymbolSpec& s, int64_t from, int64_t to) {
  std::vector<Tick> out;
  for (int64_t minute = from / 60000; minute <= to / 60000; ++minute) {
    m.first_tick_where(s, minute, from, to, [&](const Tick& t) {
      out.push_back(t);
      return false;
    });
  }
  return out;
}

std::optional<Tick> first(const std::vector<Tick>& all, const std::function<bool(const Tick&)>& p) {
  for (const Tick& t : all)
    if (p(t)) return t;
  return std::nullopt;
}

int64_t deals_sum(const std::vector<TradeDeal>& deals) {
  int64_t sum = 0;
  for (const TradeDeal& d : deals) sum += cents(d.profit) + cents(d.commission) + cents(d.swap) + cents(d.fee);
  return sum;
}

TradeOrder pending(const std::string& symbol, int64_t type, double price, double volume = 0.1) {
  TradeOrder o;
  o.ticket = 5000;
  o.symbol = symbol;
  o.type = type;
  o.price_open = price;
  o.volume_initial = o.volume_current = volume;
  o.state = mt5::ORDER_STATE_PLACED;
  o.type_time = mt5::ORDER_TIME_GTC;
  o.time_setup = kFromMs / 1000 - 60;
  o.time_setup_msc = o.time_setup * 1000;
  return o;
}

TradePosition held(const std::string& symbol, bool buy, double volume, double price, double sl, double tp) {
  TradePosition p;
  p.ticket = p.identifier = 4000;
  p.symbol = symbol;
  p.type = buy ? mt5::POSITION_TYPE_BUY : mt5::POSITION_TYPE_SELL;
  p.volume = volume;
  p.price_open = price;
  p.sl = sl;
  p.tp = tp;
  p.time_msc = p.time_update_msc = kFromMs - 60000;
  p.time = p.time_update = p.time_msc / 1000;
  return p;
}

struct Window {
  double ask_min = 1e300, ask_max = 0, bid_min = 1e300, bid_max = 0;
};
Window extremes(const std::vector<Tick>& all) {
  Window w;
  for (const Tick& t : all) {
    w.ask_min = std::min(w.ask_min, t.ask);
    w.ask_max = std::max(w.ask_max, t.ask);
    w.bid_min = std::min(w.bid_min, t.bid);
    w.bid_max = std::max(w.bid_max, t.bid);
  }
  return w;
}

// EURUSD over the account's first four hours, every tick of them, and the quote it starts at.
struct Scene {
  Market market{frozen()};
  const SymbolSpec& s = *market.find("EURUSD");
  std::vector<Tick> all = ticks(market, s, kFromMs, kNowMs);
  Window w = extremes(all);
  Tick start = market.tick_at(s, kFromMs);
};

}  // namespace

// ---- pending orders -----------------------------------------------------------------------------

struct TriggerCase {
  int64_t type;
  bool buy;
};

class Trigger : public ::testing::TestWithParam<TriggerCase> {};

// Each type triggers at the first tick crossing its price on its side of the quote, and fills at
// MT5's price: a limit at its price or the tick's if better, a stop at the tick's.
TEST_P(Trigger, FirstCrossingTickFillsAtMt5Price) {
  const TriggerCase c = GetParam();
  const Scene scene;
  const Market& market = scene.market;
  const std::vector<Tick>& all = scene.all;
  ASSERT_GT(all.size(), 1000u);
  const Window& w = scene.w;
  const Tick& start = scene.start;
  // A price halfway between the start and the window's extreme on the order's side: crossed, not at once.
  double price = 0;
  std::function<bool(const Tick&)> crosses;
  switch (c.type) {
    case mt5::ORDER_TYPE_BUY_LIMIT:
      price = std::round((start.ask + w.ask_min) / 2 * 1e5) / 1e5;
      crosses = [&](const Tick& t) { return t.ask <= price; };
      break;
    case mt5::ORDER_TYPE_BUY_STOP:
      price = std::round((start.ask + w.ask_max) / 2 * 1e5) / 1e5;
      crosses = [&](const Tick& t) { return t.ask >= price; };
      break;
    case mt5::ORDER_TYPE_SELL_LIMIT:
      price = std::round((start.bid + w.bid_max) / 2 * 1e5) / 1e5;
      crosses = [&](const Tick& t) { return t.bid >= price; };
      break;
    default:
      price = std::round((start.bid + w.bid_min) / 2 * 1e5) / 1e5;
      crosses = [&](const Tick& t) { return t.bid <= price; };
  }
  const std::optional<Tick> expected = first(all, crosses);
  ASSERT_TRUE(expected.has_value());
  ASSERT_GT(expected->time_msc, kFromMs + 60000) << "the price must not be crossed at once";

  AccountState st = deposit(10000);
  st.orders.push_back(pending("EURUSD", c.type, price));
  Ledger ledger(market, st);
  ledger.advance(expected->time_msc - 1);
  ASSERT_EQ(ledger.orders().size(), 1u) << "still active just before the crossing tick";
  ASSERT_TRUE(ledger.positions().empty());
  ledger.advance(kNowMs);
  ASSERT_TRUE(ledger.orders().empty());
  ASSERT_EQ(ledger.history_orders().size(), 1u);
  const TradeOrder& done = ledger.history_orders()[0];
  EXPECT_EQ(done.state, mt5::ORDER_STATE_FILLED);
  EXPECT_EQ(done.time_done_msc, expected->time_msc);
  ASSERT_EQ(ledger.history_deals().size(), 2u);
  const TradeDeal& d = ledger.history_deals()[1];
  EXPECT_EQ(d.time_msc, expected->time_msc);
  EXPECT_EQ(d.order, done.ticket);
  EXPECT_EQ(d.position_id, done.ticket);
  EXPECT_EQ(d.entry, mt5::DEAL_ENTRY_IN);
  EXPECT_EQ(d.type, c.buy ? mt5::DEAL_TYPE_BUY : mt5::DEAL_TYPE_SELL);
  const double tick_price = c.buy ? expected->ask : expected->bid;
  double fill = tick_price;
  if (c.type == mt5::ORDER_TYPE_BUY_LIMIT) fill = std::min(price, tick_price);
  if (c.type == mt5::ORDER_TYPE_SELL_LIMIT) fill = std::max(price, tick_price);
  EXPECT_DOUBLE_EQ(d.price, fill);
  ASSERT_EQ(ledger.positions().size(), 1u);
  EXPECT_EQ(ledger.positions()[0].record.ticket, done.ticket);
  EXPECT_EQ(ledger.balance_cents(), deals_sum(ledger.history_deals()));
}

INSTANTIATE_TEST_SUITE_P(Types, Trigger,
                         ::testing::Values(TriggerCase{mt5::ORDER_TYPE_BUY_LIMIT, true},
                                           TriggerCase{mt5::ORDER_TYPE_BUY_STOP, true},
                                           TriggerCase{mt5::ORDER_TYPE_SELL_LIMIT, false},
                                           TriggerCase{mt5::ORDER_TYPE_SELL_STOP, false}));

// A stop-limit becomes its limit when the stop price is reached; the limit then fills on its own.
TEST(LedgerPending, StopLimitPlacesItsLimit) {
  const Scene scene;
  const Market& market = scene.market;
  const std::vector<Tick>& all = scene.all;
  const Window& w = scene.w;
  const Tick& start = scene.start;
  const double stop = std::round((start.ask + w.ask_max) / 2 * 1e5) / 1e5;
  const std::optional<Tick> reached = first(all, [&](const Tick& t) { return t.ask >= stop; });
  ASSERT_TRUE(reached.has_value());
  AccountState st = deposit(10000);
  TradeOrder o = pending("EURUSD", mt5::ORDER_TYPE_BUY_STOP_LIMIT, stop);
  o.price_stoplimit = std::round((w.ask_min - 0.01) * 1e5) / 1e5;  // never reached: the limit stays
  st.orders.push_back(o);
  Ledger ledger(market, st);
  ledger.advance(kNowMs);
  ASSERT_EQ(ledger.orders().size(), 1u);
  EXPECT_EQ(ledger.orders()[0].type, mt5::ORDER_TYPE_BUY_LIMIT);
  EXPECT_DOUBLE_EQ(ledger.orders()[0].price_open, o.price_stoplimit);
  EXPECT_EQ(ledger.orders()[0].ticket, o.ticket);
  EXPECT_TRUE(ledger.positions().empty());
}

// Out of session there are no ticks, so nothing triggers; the first tick after a weekend that
// crosses a limit fills it at that tick's (better) price: the gap.
TEST(LedgerPending, WeekendGapFillsALimitAtTheGapPrice) {
  const int64_t friday_close = 1763762400000 - 3600000;  // Fri 2025-11-21 21:00 UTC (before the close)
  const int64_t monday = 1764021600000;                  // Mon 2025-11-24 22:00 UTC (after the open)
  Market market(frozen(monday));
  const SymbolSpec& s = *market.find("EURUSD");
  const Tick before = market.tick_at(s, friday_close + 3600000);  // the last tick of the week
  const std::vector<Tick> after = ticks(market, s, before.time_msc, monday);
  ASSERT_FALSE(after.empty());
  ASSERT_GT(after.front().time_msc - before.time_msc, 24 * 3600000) << "the weekend has no ticks";
  // A limit one point inside Monday's first quote, on the side the market gapped to: untouched on
  // Friday, crossed by the gap, filled at the gap's (better) price.
  const Tick& open = after.front();
  const bool down = open.ask < before.ask - 0.00002;
  const bool up = open.bid > before.bid + 0.00002;
  ASSERT_TRUE(down || up) << "the week's last and next quotes differ by more than two points";
  const double price = down ? std::round((open.ask + 0.00001) * 1e5) / 1e5 : std::round((open.bid - 0.00001) * 1e5) / 1e5;
  AccountState st = deposit(10000);
  st.live_from_msc = before.time_msc;
  st.orders.push_back(pending("EURUSD", down ? mt5::ORDER_TYPE_BUY_LIMIT : mt5::ORDER_TYPE_SELL_LIMIT, price));
  Ledger ledger(market, st);
  ledger.advance(monday);
  ASSERT_EQ(ledger.history_deals().size(), 2u);
  EXPECT_EQ(ledger.history_deals()[1].time_msc, open.time_msc);
  EXPECT_DOUBLE_EQ(ledger.history_deals()[1].price, down ? open.ask : open.bid);
  EXPECT_NE(ledger.history_deals()[1].price, price) << "better than the limit";
}

// A symbol charted by last (AMZN, exchange-traded) triggers on its trade prices: a buy stop at the
// first trade tick whose Last reaches the price, filled at that tick's ask.
TEST(LedgerPending, ChartedByLastTriggersOnLast) {
  const int64_t from = kNowMs + 3 * 3600000, to = kNowMs + 5 * 3600000;  // 15:00-17:00 UTC, NYSE open
  Market market(frozen(to));
  const SymbolSpec& s = *market.find("AMZN");
  ASSERT_EQ(s.info.chart_mode, mt5::SYMBOL_CHART_MODE_LAST);
  const std::vector<Tick> all = ticks(market, s, from, to);
  const auto traded = [](const Tick& t) { return (t.flags & static_cast<uint32_t>(mt5::TICK_FLAG_LAST)) != 0; };
  double last_max = 0;
  for (const Tick& t : all)
    if (traded(t)) last_max = std::max(last_max, t.last);
  const Tick start = market.tick_at(s, from);
  ASSERT_GT(last_max, start.ask) << "the trades reach above the opening ask";
  const double price = std::round((start.ask + last_max) / 2 * 100) / 100;
  const std::optional<Tick> expected = first(all, [&](const Tick& t) { return traded(t) && t.last >= price; });
  ASSERT_TRUE(expected.has_value());
  AccountState st = deposit(10000);
  st.live_from_msc = from;
  st.orders.push_back(pending("AMZN", mt5::ORDER_TYPE_BUY_STOP, price, 1));
  Ledger ledger(market, st);
  ledger.advance(to);
  ASSERT_EQ(ledger.history_deals().size(), 2u);
  EXPECT_EQ(ledger.history_deals()[1].time_msc, expected->time_msc);
  EXPECT_DOUBLE_EQ(ledger.history_deals()[1].price, expected->ask);
}

TEST(LedgerPending, SpecifiedAndDayOrdersExpire) {
  Market market(frozen(kNowMs + 16 * 3600000));  // Thursday 04:00
  const SymbolSpec& s = *market.find("EURUSD");
  const Tick start = market.tick_at(s, kFromMs);
  AccountState st = deposit(10000);
  TradeOrder specified = pending("EURUSD", mt5::ORDER_TYPE_BUY_LIMIT, std::round(start.ask * 0.5 * 1e5) / 1e5);
  specified.type_time = mt5::ORDER_TIME_SPECIFIED;
  specified.time_expiration = kFromMs / 1000 + 3600;
  TradeOrder day = pending("EURUSD", mt5::ORDER_TYPE_SELL_LIMIT, std::round(start.bid * 2 * 1e5) / 1e5);
  day.ticket = 5001;
  day.type_time = mt5::ORDER_TIME_DAY;
  st.orders = {specified, day};
  Ledger ledger(market, st);
  ledger.advance(kFromMs + 3600000 - 1);
  EXPECT_EQ(ledger.orders().size(), 2u);
  ledger.advance(kFromMs + 3600000);
  ASSERT_EQ(ledger.orders().size(), 1u);
  ASSERT_EQ(ledger.history_orders().size(), 1u);
  EXPECT_EQ(ledger.history_orders()[0].state, mt5::ORDER_STATE_EXPIRED);
  EXPECT_EQ(ledger.history_orders()[0].time_done_msc, kFromMs + 3600000);
  const int64_t midnight = (kAnchor + 86400) * 1000;  // the server day of its setup ends
  ledger.advance(midnight - 1);
  EXPECT_EQ(ledger.orders().size(), 1u);
  ledger.advance(midnight);
  EXPECT_TRUE(ledger.orders().empty());
  ASSERT_EQ(ledger.history_orders().size(), 2u);
  EXPECT_EQ(ledger.history_orders()[1].state, mt5::ORDER_STATE_EXPIRED);
  EXPECT_EQ(ledger.history_orders()[1].time_done_msc, midnight);
  EXPECT_EQ(ledger.history_deals().size(), 1u) << "expiry leaves no deals";
}

// ---- SL / TP ------------------------------------------------------------------------------------

struct LevelCase {
  bool buy, stop_loss;
};
class Levels : public ::testing::TestWithParam<LevelCase> {};

// SL/TP of a buy watch the bid, of a sell the ask; the close is a deal OUT with reason SL/TP at the
// tick's price, the comment MT5 writes, and the result reaches the balance.
TEST_P(Levels, CloseAtTheFirstCrossingTick) {
  const LevelCase c = GetParam();
  const Scene scene;
  const double watched = c.buy ? scene.start.bid : scene.start.ask;
  const bool down = c.buy == c.stop_loss;  // a buy's SL and a sell's TP sit below
  const double extreme = c.buy ? (down ? scene.w.bid_min : scene.w.bid_max) : (down ? scene.w.ask_min : scene.w.ask_max);
  const double level = std::round((watched + extreme) / 2 * 1e5) / 1e5;
  auto crosses = [&](const Tick& t) {
    const double q = c.buy ? t.bid : t.ask;
    return down ? q <= level : q >= level;
  };
  const std::optional<Tick> expected = first(scene.all, crosses);
  ASSERT_TRUE(expected.has_value());
  AccountState st = deposit(10000);
  st.positions.push_back(held("EURUSD", c.buy, 0.3, c.buy ? scene.start.ask : scene.start.bid, c.stop_loss ? level : 0,
                              c.stop_loss ? 0 : level));
  Ledger ledger(scene.market, st);
  ledger.advance(kNowMs);
  ASSERT_TRUE(ledger.positions().empty());
  ASSERT_EQ(ledger.history_deals().size(), 2u);
  const TradeDeal& d = ledger.history_deals()[1];
  EXPECT_EQ(d.time_msc, expected->time_msc);
  EXPECT_EQ(d.entry, mt5::DEAL_ENTRY_OUT);
  EXPECT_EQ(d.reason, c.stop_loss ? mt5::DEAL_REASON_SL : mt5::DEAL_REASON_TP);
  EXPECT_EQ(d.type, c.buy ? mt5::DEAL_TYPE_SELL : mt5::DEAL_TYPE_BUY);
  EXPECT_DOUBLE_EQ(d.price, c.buy ? expected->bid : expected->ask);
  EXPECT_EQ(d.position_id, 4000);
  char comment[32];
  std::snprintf(comment, sizeof comment, "[%s %.5f]", c.stop_loss ? "sl" : "tp", level);
  EXPECT_EQ(d.comment, comment);
  ASSERT_EQ(ledger.history_orders().size(), 1u);
  EXPECT_EQ(ledger.history_orders()[0].reason, c.stop_loss ? mt5::ORDER_REASON_SL : mt5::ORDER_REASON_TP);
  EXPECT_EQ(ledger.balance_cents(), deals_sum(ledger.history_deals()));
  EXPECT_NE(d.profit, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Sides, Levels,
                         ::testing::Values(LevelCase{true, true}, LevelCase{true, false}, LevelCase{false, true},
                                           LevelCase{false, false}));

// ---- stop-out -----------------------------------------------------------------------------------

// Margin level at or below 30 %: the position with the largest loss closes (reason SO, "so: ..."),
// the level is recomputed, and the rest stays once it is above.
TEST(LedgerStopOut, ClosesTheLargestLossFirstThenStops) {
  Market market(frozen());
  const SymbolSpec& eurusd = *market.find("EURUSD");
  const SymbolSpec& usdjpy = *market.find("USDJPY");
  const Tick e = market.tick_at(eurusd, kFromMs);
  const Tick j = market.tick_at(usdjpy, kFromMs);
  AccountState st = deposit(10000);
  // A buy 1 lot bought 0.0970 above the bid: about -9 700 against ~1 650 of margin.
  st.positions.push_back(held("EURUSD", true, 1.0, e.bid + 0.0970, 0, 0));
  TradePosition small = held("USDJPY", true, 0.5, j.ask, 0, 0);
  small.ticket = small.identifier = 4001;
  st.positions.push_back(small);
  Ledger ledger(market, st);
  ledger.advance(kNowMs);
  ASSERT_EQ(ledger.positions().size(), 1u);
  EXPECT_EQ(ledger.positions()[0].record.symbol, "USDJPY");
  ASSERT_GE(ledger.history_deals().size(), 2u);
  const TradeDeal& so = ledger.history_deals()[1];
  EXPECT_EQ(so.reason, mt5::DEAL_REASON_SO);
  EXPECT_EQ(so.position_id, 4000);
  EXPECT_EQ(so.comment.rfind("so: ", 0), 0u) << so.comment;
  EXPECT_LT(so.time_msc, kFromMs + 60000) << "below the level from the start: the first tick";
  EXPECT_EQ(ledger.history_orders()[0].reason, mt5::ORDER_REASON_SO);
  EXPECT_EQ(ledger.balance_cents(), deals_sum(ledger.history_deals()));
}

// Two losses, each too large alone: both go, the larger first, and nothing is left.
TEST(LedgerStopOut, RepeatsWhileBelowTheLevel) {
  Market market(frozen());
  const Tick e = market.tick_at(*market.find("EURUSD"), kFromMs);
  AccountState st = deposit(10000);
  st.positions.push_back(held("EURUSD", true, 1.0, e.bid + 0.0450, 0, 0));   // about -4 500
  TradePosition bigger = held("EURUSD", false, 1.0, e.ask - 0.0520, 0, 0);   // about -5 200
  bigger.ticket = bigger.identifier = 4001;
  st.positions.push_back(bigger);
  Ledger ledger(market, st);
  ledger.advance(kFromMs + 60000);
  EXPECT_TRUE(ledger.positions().empty());
  ASSERT_EQ(ledger.history_deals().size(), 3u);
  EXPECT_EQ(ledger.history_deals()[1].position_id, 4001) << "the largest loss first";
  EXPECT_EQ(ledger.history_deals()[2].position_id, 4000);
  EXPECT_EQ(ledger.history_deals()[1].time_msc, ledger.history_deals()[2].time_msc) << "at the same tick";
  for (size_t i = 1; i < 3; ++i) EXPECT_EQ(ledger.history_deals()[i].reason, mt5::DEAL_REASON_SO);
  EXPECT_EQ(ledger.balance_cents(), deals_sum(ledger.history_deals()));
}

// ---- hedging: partial close and close-by -------------------------------------------------------

// A partial close books an OUT deal of the volume closed with its share of the swap; the rest of
// the position keeps the remainder. Close-by books one CLOSE_BY order and two OUT_BY deals at the
// open price of the position closed by: the pair's result is the difference of the open prices.
TEST(LedgerHedging, PartialCloseAndCloseBy) {
  const int64_t thursday = kNowMs + 24 * 3600000;
  Market market(frozen(thursday));
  const SymbolSpec& s = *market.find("EURUSD");
  AccountState st = deposit(10000);
  TradePosition buy = held("EURUSD", true, 1.0, 1.08000, 0, 0);
  buy.time_msc = buy.time_update_msc = kFromMs - 2 * 86400000;  // held over two rollovers
  buy.time = buy.time_update = buy.time_msc / 1000;
  TradePosition sell = held("EURUSD", false, 0.4, 1.08250, 0, 0);
  sell.ticket = sell.identifier = 4001;
  st.positions = {buy, sell};
  Ledger ledger(market, st);
  ledger.advance(kFromMs);
  const int64_t accrued = ledger.swap_cents(0, kFromMs);
  ASSERT_NE(accrued, 0);
  ASSERT_TRUE(ledger.close(0, 0.5, kFromMs));
  ASSERT_EQ(ledger.positions().size(), 2u);
  EXPECT_DOUBLE_EQ(ledger.positions()[0].record.volume, 0.5);
  const TradeDeal& part = ledger.history_deals().back();
  EXPECT_EQ(part.entry, mt5::DEAL_ENTRY_OUT);
  EXPECT_DOUBLE_EQ(part.volume, 0.5);
  EXPECT_EQ(cents(part.swap), std::llround(static_cast<double>(accrued) * 0.5));
  EXPECT_EQ(ledger.swap_cents(0, kFromMs) + cents(part.swap), accrued) << "the swap is split, not duplicated";
  EXPECT_DOUBLE_EQ(part.price, market.tick_at(s, kFromMs).bid);

  ASSERT_TRUE(ledger.close_by(0, 1, kFromMs + 1000));
  ASSERT_EQ(ledger.positions().size(), 1u);
  EXPECT_DOUBLE_EQ(ledger.positions()[0].record.volume, 0.1) << "0.5 buy closed by 0.4 sell";
  const auto& deals = ledger.history_deals();
  const TradeDeal& x = deals[deals.size() - 2];
  const TradeDeal& y = deals.back();
  EXPECT_EQ(x.entry, mt5::DEAL_ENTRY_OUT_BY);
  EXPECT_EQ(y.entry, mt5::DEAL_ENTRY_OUT_BY);
  EXPECT_EQ(x.order, y.order);
  EXPECT_DOUBLE_EQ(x.price, 1.08250);
  EXPECT_DOUBLE_EQ(y.price, 1.08250);
  // 0.4 lot x 0.00250 x 100 000 = 100.00 USD for the pair, booked once.
  EXPECT_EQ(cents(x.profit) + cents(y.profit), 10000);
  const TradeOrder& by = ledger.history_orders().back();
  EXPECT_EQ(by.type, mt5::ORDER_TYPE_CLOSE_BY);
  EXPECT_EQ(by.position_by_id, 4001);
  EXPECT_EQ(ledger.balance_cents(), deals_sum(ledger.history_deals()));
}

// ---- a pure function of (config, T) --------------------------------------------------------------

namespace {

SimConfig living(int64_t now_ms, double per_hour = 30) {
  SimConfig c;
  c.now_ms = now_ms;
  c.account_anchor = kAnchor;
  c.balance = 10000.17;
  c.trades_per_hour = per_hour;
  return c;
}

void expect_same(const std::vector<TradeDeal>& a, const std::vector<TradeDeal>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].ticket, b[i].ticket);
    EXPECT_EQ(a[i].time_msc, b[i].time_msc);
    EXPECT_EQ(a[i].entry, b[i].entry);
    EXPECT_EQ(a[i].reason, b[i].reason);
    EXPECT_DOUBLE_EQ(a[i].price, b[i].price);
    EXPECT_DOUBLE_EQ(a[i].profit, b[i].profit);
    EXPECT_DOUBLE_EQ(a[i].swap, b[i].swap);
  }
}

}  // namespace

// Played in many small steps or in one, the account is the same; a terminal opened at T agrees.
TEST(LedgerLife, StepsOrOneJumpGiveTheSameAccount) {
  const int64_t end = kNowMs + 30 * 3600000;  // into Thursday afternoon
  const SimConfig c = living(end);
  Market market(c);
  Ledger stepped(market, generate_account(market));
  for (int64_t t = kAnchor * 1000; t <= end; t += 7 * 60000 + 13) stepped.advance(t);
  stepped.advance(end);
  Ledger once(market, generate_account(market));
  once.advance(end);
  expect_same(stepped.history_deals(), once.history_deals());
  EXPECT_EQ(stepped.positions().size(), once.positions().size());
  EXPECT_EQ(stepped.orders().size(), once.orders().size());
  SimTerminal two(c);
  expect_same(two.history_deals_get(HistoryFilter{}), once.history_deals());
}

// At arbitrary instants: balance = deposit + deals to the cent, tickets increase with time,
// positions/orders/history agree with each other, and the schedule's kinds of action all occur.
TEST(LedgerLife, ConsistentAtArbitraryInstants) {
  std::set<int64_t> entries, reasons, states;
  bool modified = false;
  size_t deals_before = 0;
  for (int64_t hours : {0, 5, 13, 26, 41, 47}) {
    const int64_t now = kAnchor * 1000 + hours * 3600000 + 123457;
    SimTerminal t(living(now));
    const AccountInfo a = t.account_info();
    const auto deals = t.history_deals_get(HistoryFilter{});
    EXPECT_EQ(cents(a.balance), deals_sum(deals)) << "at +" << hours << " h";
    EXPECT_GE(deals.size(), deals_before) << "history only grows";
    deals_before = deals.size();
    for (size_t i = 1; i < deals.size(); ++i) {
      EXPECT_GT(deals[i].ticket, deals[i - 1].ticket);
      EXPECT_GE(deals[i].time_msc, deals[i - 1].time_msc);
      EXPECT_LE(deals[i].time_msc, now);
    }
    std::map<int64_t, double> open_volume;  // position id -> in - out
    for (const TradeDeal& d : deals) {
      entries.insert(d.entry);
      reasons.insert(d.reason);
      if (d.type > mt5::DEAL_TYPE_SELL) continue;
      open_volume[d.position_id] += d.entry == mt5::DEAL_ENTRY_IN ? d.volume : -d.volume;
    }
    const auto positions = t.positions_get(TradeFilter{});
    std::set<int64_t> open_ids;
    for (const TradePosition& p : positions) {
      open_ids.insert(p.identifier);
      EXPECT_NEAR(open_volume[p.identifier], p.volume, 1e-9) << "position " << p.identifier;
      modified = modified || p.time_update_msc != p.time_msc;
    }
    for (const auto& [id, volume] : open_volume) {
      if (open_ids.count(id) == 0) {
        EXPECT_NEAR(volume, 0.0, 1e-9) << "closed position " << id;
      }
    }
    const auto active = t.orders_get(TradeFilter{});
    for (const TradeOrder& o : active) EXPECT_EQ(o.state, mt5::ORDER_STATE_PLACED);
    for (const TradeOrder& o : t.history_orders_get(HistoryFilter{})) {
      states.insert(o.state);
      for (const TradeOrder& live : active) EXPECT_NE(live.ticket, o.ticket);
    }
    double profit = 0;
    for (const TradePosition& p : positions) profit += p.profit + p.swap;
    EXPECT_EQ(cents(a.equity), cents(a.balance) + cents(profit));
  }
  EXPECT_TRUE(entries.count(mt5::DEAL_ENTRY_OUT_BY)) << "a close-by";
  EXPECT_TRUE(states.count(mt5::ORDER_STATE_CANCELED));
  EXPECT_TRUE(states.count(mt5::ORDER_STATE_FILLED));
  EXPECT_TRUE(modified) << "an SL/TP modification or a partial close";
}

// Without the schedule, nothing is traded after the anchor but what the market triggers.
TEST(LedgerLife, ScheduleOffTradesNothingOfItsOwn) {
  SimTerminal t(living(kNowMs + 20 * 3600000, 0));
  std::map<int64_t, int64_t> order_type;
  for (const TradeOrder& o : t.history_orders_get(HistoryFilter{})) order_type[o.ticket] = o.type;
  for (const TradeDeal& d : t.history_deals_get(HistoryFilter{})) {
    if (d.time_msc <= kAnchor * 1000) continue;
    // Only a pending order's fill, or an SL/TP/stop-out close.
    const bool market_made = d.reason == mt5::DEAL_REASON_SL || d.reason == mt5::DEAL_REASON_TP ||
                             d.reason == mt5::DEAL_REASON_SO ||
                             (d.entry == mt5::DEAL_ENTRY_IN && order_type[d.order] >= mt5::ORDER_TYPE_BUY_LIMIT);
    EXPECT_TRUE(market_made) << "deal " << d.ticket;
  }
  SimConfig off = living(kNowMs, 0);
  SimConfig on = living(kNowMs, 30);
  EXPECT_LT(SimTerminal(off).history_deals_total(0, kNowMs / 1000), SimTerminal(on).history_deals_total(0, kNowMs / 1000));
}
