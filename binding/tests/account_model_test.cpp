// The simulated account's money model against MT5's rules: hedged margin (MQL5 article 2299 and the
// MetaTrader 5 help on hedged positions, mt5-reference §6.1), position margin fixed at the open
// price and opening conversion rate, and swaps at the daily rollover (triple on swap_rollover3days)
// in open positions, closing deals and the balance history.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "sim/calc_math.h"
#include "sim/history_generator.h"
#include "sim/sim_terminal.h"
#include "sim/swap.h"
#include "sim/trading.h"
#include "terminal/constants.h"

using namespace tradeapi;
using namespace tradeapi::sim;

namespace {

constexpr int64_t kDay = 86400;
constexpr int64_t kMonday = 1763337600;            // Mon 2025-11-17 00:00 (server clock = UTC)
constexpr int64_t kNowMs = 1763553600000;          // Wed 2025-11-19 12:00
constexpr int64_t kAnchor = 1763510400;            // Wed 2025-11-19 00:00

int64_t cents(double v) { return std::llround(v * 100.0); }
int64_t at(int64_t day_offset, int64_t hour) { return (kMonday + day_offset * kDay + hour * 3600) * 1000; }

SimConfig empty_account(int64_t now_ms = kNowMs) {
  SimConfig c;
  c.now_ms = now_ms;
  c.demo_trades = false;
  return c;
}

// The generated account as the anchor leaves it: no trading schedule (these tests are about the
// money model of a fixed set of positions; the account's life is ledger_test.cpp's).
SimConfig demo_account(int64_t now_ms = kNowMs) {
  SimConfig c;
  c.now_ms = now_ms;
  c.account_anchor = kAnchor;
  c.balance = 10000.17;
  c.trades_per_hour = 0;
  return c;
}

calc::MarginLeg leg(bool buy, double volume, double price, double rate) {
  calc::MarginLeg l;
  l.buy = buy;
  l.volume = volume;
  l.price = price;
  l.rate = rate;
  return l;
}

TradePosition position(const std::string& symbol, bool buy, double volume, double price, int64_t open_msc,
                       int64_t ticket) {
  TradePosition p;
  p.ticket = p.identifier = ticket;
  p.symbol = symbol;
  p.type = buy ? mt5::POSITION_TYPE_BUY : mt5::POSITION_TYPE_SELL;
  p.volume = volume;
  p.price_open = price;
  p.time_msc = p.time_update_msc = open_msc;
  p.time = p.time_update = open_msc / 1000;
  return p;
}

// An account holding exactly the given positions and a 10 000.00 deposit.
struct Book {
  Market market;
  Calculator calc;
  Account account;
  Book(const SimConfig& c, std::vector<TradePosition> positions)
      : market(c), calc(market), account(market, calc, state(std::move(positions), c.balance)) {}
  // The balance is the deals' sum: the deposit is the config's balance.
  static AccountState state(std::vector<TradePosition> positions, double balance) {
    AccountState st;
    st.positions = std::move(positions);
    TradeDeal deposit;
    deposit.ticket = 1;
    deposit.type = mt5::DEAL_TYPE_BALANCE;
    deposit.profit = balance;
    st.history_deals.push_back(deposit);
    return st;
  }
};

TradeRequest deal(const std::string& symbol, int64_t type, double volume, double price) {
  TradeRequest r;
  r.action = mt5::TRADE_ACTION_DEAL;
  r.symbol = symbol;
  r.type = type;
  r.volume = volume;
  r.price = price;
  r.type_filling = mt5::ORDER_FILLING_IOC;
  return r;
}

}  // namespace

// ---- hedged margin: the rule on its own ----------------------------------------------------------

// EURUSD on a USD account at 1:100: margin currency EUR, converted at the pair's own open price.
class HedgedMargin : public ::testing::Test {
 protected:
  Market market{empty_account()};
  SymbolSpec eurusd = *market.find("EURUSD");
  void SetUp() override {
    eurusd.info.trade_contract_size = 100000;
    eurusd.info.margin_initial = 0;
    eurusd.info.margin_hedged = 100000;
    eurusd.info.margin_hedged_use_leg = false;
  }
  double margin(const std::vector<calc::MarginLeg>& legs) const { return calc::symbol_margin(market, eurusd, legs); }
};

TEST_F(HedgedMargin, OneLegIsChargedNormally) {
  EXPECT_DOUBLE_EQ(margin({leg(true, 1.0, 1.10000, 1.10000)}), 1100.00);
  EXPECT_DOUBLE_EQ(margin({leg(true, 0.5, 1.10000, 1.10000), leg(true, 0.5, 1.10200, 1.10200)}), 1101.00);
}

// Article 2299 / MT5 help: "Buy 1 lot + Sell 1 lot EURUSD, Hedged = 100 000: the margin for the two
// positions is calculated as per 1 lot", at the average of both positions' rates.
TEST_F(HedgedMargin, FullyCoveredPairCostsOneLotAtHedgedEqualContractSize) {
  EXPECT_DOUBLE_EQ(margin({leg(true, 1.0, 1.10000, 1.10000), leg(false, 1.0, 1.10100, 1.10100)}), 1100.50);
}

// "One buy of 1 lot needs 10; after a sell of 1 lot the total is 5, or 50 %": Hedged = CS / 2.
TEST_F(HedgedMargin, HalfHedgedChargesHalfALotForTheCoveredPair) {
  eurusd.info.margin_hedged = 50000;
  EXPECT_DOUBLE_EQ(margin({leg(true, 1.0, 1.10000, 1.10000)}), 1100.00);
  EXPECT_DOUBLE_EQ(margin({leg(true, 1.0, 1.10000, 1.10000), leg(false, 1.0, 1.10100, 1.10100)}), 550.25);
}

TEST_F(HedgedMargin, ZeroHedgedMakesCoveredVolumeFree) {
  eurusd.info.margin_hedged = 0;
  EXPECT_DOUBLE_EQ(margin({leg(true, 1.0, 1.10000, 1.10000), leg(false, 1.0, 1.10100, 1.10100)}), 0.00);
  // Only the uncovered 0.3 lot is charged, at the larger (sell) leg's rate.
  EXPECT_DOUBLE_EQ(margin({leg(true, 1.0, 1.10000, 1.10000), leg(false, 1.3, 1.10100, 1.10100)}), 330.30);
}

// Uncovered volume at the larger leg's weighted rate; covered volume at the weighted rate of all
// positions: buys 1 @ 1.10000 + 1 @ 1.10200 (avg 1.10100), sell 1 @ 1.10300.
TEST_F(HedgedMargin, PartlyCoveredLegs) {
  const std::vector<calc::MarginLeg> legs = {leg(true, 1.0, 1.10000, 1.10000), leg(true, 1.0, 1.10200, 1.10200),
                                             leg(false, 1.0, 1.10300, 1.10300)};
  // 1 lot uncovered: 1000 EUR * 1.10100 = 1101.00; 1 lot covered: 1000 EUR * 1.10166667 = 1101.67.
  EXPECT_DOUBLE_EQ(margin(legs), 2202.67);
  eurusd.info.margin_hedged = 50000;
  EXPECT_DOUBLE_EQ(margin(legs), 1651.83);  // 1101.00 + 550.83
}

// margin_hedged_use_leg: margin_hedged is ignored, the larger leg's full margin is charged.
TEST_F(HedgedMargin, LargerLegRule) {
  eurusd.info.margin_hedged_use_leg = true;
  eurusd.info.margin_hedged = 0;  // ignored
  const std::vector<calc::MarginLeg> buys_larger = {leg(true, 1.0, 1.10000, 1.10000), leg(true, 1.0, 1.10200, 1.10200),
                                                    leg(false, 1.0, 1.10300, 1.10300)};
  EXPECT_DOUBLE_EQ(margin(buys_larger), 2202.00);
  const std::vector<calc::MarginLeg> sells_larger = {leg(true, 1.0, 1.10000, 1.10000), leg(false, 0.6, 1.10300, 1.10300),
                                                     leg(false, 0.6, 1.10500, 1.10500)};
  EXPECT_DOUBLE_EQ(margin(sells_larger), 1324.80);  // 1.2 lot * 1000 EUR * 1.10400
  EXPECT_DOUBLE_EQ(margin({leg(true, 1.0, 1.10000, 1.10000), leg(false, 1.0, 1.10100, 1.10100)}), 1101.00);
}

// Price-based modes average the open prices too ("(Buy open price + Sell open price) / 2").
TEST(HedgedMarginModes, CfdUsesTheAverageOpenPriceOfTheCoveredPair) {
  Market market(empty_account());
  SymbolSpec gold = *market.find("XAUUSD");
  gold.info.trade_calc_mode = mt5::SYMBOL_CALC_MODE_CFDLEVERAGE;
  gold.info.trade_contract_size = 100;
  gold.info.margin_initial = 0;
  gold.info.margin_hedged = 100;
  gold.info.margin_hedged_use_leg = false;
  // 1 lot covered at (2000 + 2010) / 2 * 100 / 100.
  EXPECT_DOUBLE_EQ(calc::symbol_margin(market, gold, {leg(true, 1.0, 2000.0, 1.0), leg(false, 1.0, 2010.0, 1.0)}),
                   2005.00);
  // With a per-lot initial margin, margin_hedged is the per-lot money of covered volume.
  gold.info.trade_calc_mode = mt5::SYMBOL_CALC_MODE_CFD;
  gold.info.margin_initial = 1000;
  gold.info.margin_hedged = 250;
  EXPECT_DOUBLE_EQ(calc::symbol_margin(market, gold, {leg(true, 1.0, 2000.0, 1.0), leg(false, 1.0, 2010.0, 1.0)}),
                   250.00);
  EXPECT_DOUBLE_EQ(calc::symbol_margin(market, gold, {leg(true, 2.0, 2000.0, 1.0), leg(false, 1.0, 2010.0, 1.0)}),
                   1250.00);
  gold.info.margin_hedged = 0;
  EXPECT_DOUBLE_EQ(calc::symbol_margin(market, gold, {leg(true, 1.0, 2000.0, 1.0), leg(false, 1.0, 2010.0, 1.0)}),
                   0.00);
}

// ---- hedged margin in the account and in order_check ----------------------------------------------

TEST(AccountMargin, OppositePositionsOfOneSymbolAreChargedOnce) {
  Market probe(empty_account());
  const SymbolInfo& i = probe.find("EURUSD")->info;
  ASSERT_EQ(i.margin_hedged, i.trade_contract_size) << "the catalogue charges covered volume as a full lot";
  ASSERT_FALSE(i.margin_hedged_use_leg);
  // Buy 1 @ 1.10000 and sell 1 @ 1.10100: as per 1 lot, at the average rate (the pair's own prices).
  Book book(empty_account(), {position("EURUSD", true, 1.0, 1.10000, at(1, 10), 101),
                              position("EURUSD", false, 1.0, 1.10100, at(1, 11), 102)});
  EXPECT_DOUBLE_EQ(book.account.info().margin, 1100.50);
  Book single(empty_account(), {position("EURUSD", true, 1.0, 1.10000, at(1, 10), 101)});
  EXPECT_DOUBLE_EQ(single.account.info().margin, 1100.00);
  // Symbols are charged separately: a USDJPY lot (1000.00 USD) adds in full.
  Book two(empty_account(), {position("EURUSD", true, 1.0, 1.10000, at(1, 10), 101),
                             position("EURUSD", false, 1.0, 1.10100, at(1, 11), 102),
                             position("USDJPY", false, 1.0, 150.000, at(1, 12), 103)});
  EXPECT_DOUBLE_EQ(two.account.info().margin, 2100.50);
}

TEST(AccountMargin, OrderCheckOfAnOppositeDealKeepsOrLowersTheMargin) {
  // A deep balance: the checks below are about margin, not about the buy's floating loss at
  // whatever the market's price is (which could leave too little free margin for 3 lots).
  SimConfig rich = empty_account();
  rich.balance = 1'000'000;
  Book book(rich, {position("EURUSD", true, 1.0, 1.10000, at(1, 10), 101)});
  const double before = book.account.info().margin;
  ASSERT_DOUBLE_EQ(before, 1100.00);
  // A sell of 1 lot at 1.10100 covers the buy: as per 1 lot at the average rate (1.10050).
  const OrderCheckResult hedge = book.account.check(deal("EURUSD", mt5::ORDER_TYPE_SELL, 1.0, 1.10100));
  EXPECT_EQ(hedge.retcode, 0);
  EXPECT_DOUBLE_EQ(hedge.margin, 1100.50);
  // A sell of 0.4 lot: covered 0.4, uncovered 0.6 of the buy; never more than the buy alone.
  const OrderCheckResult partial = book.account.check(deal("EURUSD", mt5::ORDER_TYPE_SELL, 0.4, 1.10000));
  EXPECT_EQ(partial.retcode, 0);
  EXPECT_DOUBLE_EQ(partial.margin, 1100.00);
  // The same direction adds a full lot at the order price.
  const OrderCheckResult more = book.account.check(deal("EURUSD", mt5::ORDER_TYPE_BUY, 1.0, 1.10200));
  EXPECT_EQ(more.retcode, 0);
  EXPECT_DOUBLE_EQ(more.margin, 2202.00);
  // Reversing past the hedge charges only the excess: sell 3 vs buy 1 at 1.10000 -> 2 lots
  // uncovered at 1.10000 and 1 lot covered at the volume-weighted rate 1.10000.
  const OrderCheckResult reverse = book.account.check(deal("EURUSD", mt5::ORDER_TYPE_SELL, 3.0, 1.10000));
  EXPECT_EQ(reverse.retcode, 0);
  EXPECT_DOUBLE_EQ(reverse.margin, 3300.00);
}

TEST(AccountMargin, DemoAccountChargesItsHedgedPairOnce) {
  SimTerminal t(demo_account());
  Market market(demo_account());
  const AccountInfo a = t.account_info();
  // Recompute by hand: per symbol, buys and sells of the generated positions; the first symbol
  // carries a buy and a sell. Charging both legs in full would cost more.
  std::map<std::string, double> buy, sell;
  for (const TradePosition& p : t.positions_get(TradeFilter{}))
    (p.type == mt5::POSITION_TYPE_BUY ? buy : sell)[p.symbol] += p.volume;
  bool hedged = false;
  for (const auto& [name, v] : buy) hedged = hedged || sell.count(name) != 0;
  ASSERT_TRUE(hedged);
  double both_legs = 0;
  for (const TradePosition& p : t.positions_get(TradeFilter{})) {
    const SymbolSpec& s = *market.find(p.symbol);
    const bool is_buy = p.type == mt5::POSITION_TYPE_BUY;
    const int64_t open_msc = p.time_msc;
    both_legs += calc::margin(market, is_buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, s, p.volume, p.price_open,
                              [&](const SymbolSpec& q) { return market.tick_at(q, open_msc); });
  }
  EXPECT_LT(a.margin, both_legs - 1.0);
  EXPECT_GT(a.margin, 0.0);
}

// ---- position margin at the open price and opening rate ---------------------------------------------

TEST(AccountMargin, ConstantAcrossTicksWhileEquityMoves) {
  const int64_t times[] = {kNowMs, kNowMs + 17 * 60000 + 123, kNowMs + 3 * 3600000, kNowMs + 9 * 3600000};
  SimTerminal first(demo_account(times[0]));
  const AccountInfo a0 = first.account_info();
  ASSERT_GT(a0.margin, 0.0);
  // The account lives (a pending order may trigger, a level close a position): the margin stays
  // put as long as the positions are the same ones.
  auto held = [](SimTerminal& t) {
    std::map<int64_t, double> out;
    for (const TradePosition& p : t.positions_get(TradeFilter{})) out[p.ticket] = p.volume;
    return out;
  };
  const auto positions0 = held(first);
  bool equity_moved = false;
  int same_positions = 0;
  for (int64_t now : times) {
    SimTerminal t(demo_account(now));
    const AccountInfo a = t.account_info();
    if (held(t) != positions0) continue;
    ++same_positions;
    EXPECT_DOUBLE_EQ(a.margin, a0.margin) << "at " << now;
    equity_moved = equity_moved || a.equity != a0.equity;
  }
  EXPECT_GE(same_positions, 3);
  EXPECT_TRUE(equity_moved);
  // Pinning the live quotes far away moves equity, not margin.
  SimConfig pinned = demo_account();
  for (const TradePosition& p : first.positions_get(TradeFilter{})) {
    const Tick tick = first.symbol_info_tick(p.symbol);
    pinned.fixed_quotes[p.symbol] = FixedQuote{tick.bid * 1.05, tick.ask * 1.05};
  }
  pinned.fixed_quotes["EURUSD"] = FixedQuote{1.5, 1.5002};
  SimTerminal moved(pinned);
  EXPECT_DOUBLE_EQ(moved.account_info().margin, a0.margin);
  EXPECT_NE(moved.account_info().equity, a0.equity);
}

// A cross converts at the rate of its opening: EURJPY margin is EUR converted with EURUSD's ask at
// the position's open time, not with today's.
TEST(AccountMargin, CrossUsesTheOpeningConversionRate) {
  const int64_t open_msc = at(0, 10);
  Book book(empty_account(), {position("EURJPY", true, 0.5, 160.000, open_msc, 101)});
  const SymbolSpec& s = *book.market.find("EURJPY");
  const double then = calc::margin(book.market, mt5::ORDER_TYPE_BUY, s, 0.5, 160.000,
                                   [&](const SymbolSpec& q) { return book.market.tick_at(q, open_msc); });
  EXPECT_DOUBLE_EQ(book.account.info().margin, then);
  const double ask_then = book.market.tick_at(*book.market.find("EURUSD"), open_msc).ask;
  EXPECT_EQ(cents(then), cents(500.0 * ask_then));  // 0.5 lot = 500 EUR at 1:100, at EURUSD's ask then
}

// ---- swaps ------------------------------------------------------------------------------------------

TEST(Swap, RolloverDaysFollowTheTripleDay) {
  SymbolInfo wed;
  wed.swap_rollover3days = mt5::DAY_OF_WEEK_WEDNESDAY;
  // The rollover at midnight ending day D belongs to D (kMonday + k days ends the previous day).
  EXPECT_EQ(swap::rollover_days(wed, at(1, 0)), 1);  // Tue 00:00 ends Monday
  EXPECT_EQ(swap::rollover_days(wed, at(2, 0)), 1);  // ends Tuesday
  EXPECT_EQ(swap::rollover_days(wed, at(3, 0)), 3);  // Thu 00:00 ends Wednesday: triple
  EXPECT_EQ(swap::rollover_days(wed, at(4, 0)), 1);  // ends Thursday
  EXPECT_EQ(swap::rollover_days(wed, at(5, 0)), 1);  // Sat 00:00 ends Friday
  EXPECT_EQ(swap::rollover_days(wed, at(6, 0)), 0);  // ends Saturday
  EXPECT_EQ(swap::rollover_days(wed, at(7, 0)), 0);  // Mon 00:00 ends Sunday
  SymbolInfo fri;
  fri.swap_rollover3days = mt5::DAY_OF_WEEK_FRIDAY;
  EXPECT_EQ(swap::rollover_days(fri, at(3, 0)), 1);
  EXPECT_EQ(swap::rollover_days(fri, at(5, 0)), 3);
  // A week of rollovers charges seven days whatever the triple day.
  int64_t week = 0, week_fri = 0;
  for (int64_t d = 1; d <= 7; ++d) {
    week += swap::rollover_days(wed, at(d, 0));
    week_fri += swap::rollover_days(fri, at(d, 0));
  }
  EXPECT_EQ(week, 7);
  EXPECT_EQ(week_fri, 7);
}

// A position held Monday 10:00 -> Friday 10:00 passes four rollovers (Mon, Tue, Wed x3, Thu): six
// days of swap, to the cent; each rollover is added as it passes; the account profit includes it.
TEST(Swap, OpenPositionAccruesOverRollovers) {
  Market probe(empty_account());
  const SymbolInfo& i = probe.find("EURUSD")->info;
  ASSERT_EQ(i.swap_mode, mt5::SYMBOL_SWAP_MODE_POINTS);
  ASSERT_EQ(i.currency_profit, "USD");
  const int64_t day_long = cents(i.swap_long * i.point * i.trade_contract_size * 2.0);  // 2 lots
  const int64_t day_short = cents(i.swap_short * i.point * i.trade_contract_size * 2.0);
  ASSERT_NE(day_long, 0);
  auto triple = [&](int64_t day) { return i.swap_rollover3days == day ? 3 : 1; };
  struct Case {
    int64_t now_ms;
    int64_t days;  // days charged since Monday 10:00
  };
  int64_t expected_days = 0;
  std::vector<Case> cases = {{at(0, 23), 0}};
  for (int64_t d = 1; d <= 4; ++d) {  // rollovers ending Mon..Thu
    expected_days += triple(d);
    cases.push_back({at(d, 10), expected_days});
  }
  for (const Case& c : cases) {
    Book book(empty_account(c.now_ms), {position("EURUSD", true, 2.0, 1.10000, at(0, 10), 101),
                                        position("EURUSD", false, 2.0, 1.10000, at(0, 10), 102)});
    const auto positions = book.account.positions();
    ASSERT_EQ(positions.size(), 2u);
    EXPECT_EQ(cents(positions[0].swap), c.days * day_long) << "now " << c.now_ms;
    EXPECT_EQ(cents(positions[1].swap), c.days * day_short) << "now " << c.now_ms;
    const AccountInfo a = book.account.info();
    EXPECT_EQ(cents(a.profit), cents(positions[0].profit) + cents(positions[0].swap) + cents(positions[1].profit) +
                                   cents(positions[1].swap));
    EXPECT_EQ(cents(a.equity), cents(a.balance + a.profit));
    EXPECT_DOUBLE_EQ(a.balance, 10000.0);  // swaps of open positions are not realised
  }
  // With the catalogue's Wednesday triple: Mon 1 + Tue 1 + Wed 3 + Thu 1.
  if (i.swap_rollover3days == mt5::DAY_OF_WEEK_WEDNESDAY) {
    EXPECT_EQ(expected_days, 6);
  }
}

// Over a weekend FX carries one day (Friday's rollover), Saturday and Sunday none.
TEST(Swap, WeekendAndInterestModes) {
  Book fx(empty_account(at(7, 10)), {position("EURUSD", true, 1.0, 1.10000, at(4, 10), 101)});
  const SymbolInfo& i = fx.market.find("EURUSD")->info;
  const int64_t day = cents(i.swap_long * i.point * i.trade_contract_size);
  const int64_t friday = i.swap_rollover3days == mt5::DAY_OF_WEEK_FRIDAY ? 3 : 1;
  EXPECT_EQ(cents(fx.account.positions()[0].swap), friday * day);

  // BTCUSD: annual interest on the current value (360 days), in USD, triple on its own day.
  Book btc(empty_account(at(7, 10)), {position("BTCUSD", true, 0.5, 60000.0, at(0, 10), 101)});
  const SymbolSpec& s = *btc.market.find("BTCUSD");
  ASSERT_EQ(s.info.swap_mode, mt5::SYMBOL_SWAP_MODE_INTEREST_CURRENT);
  int64_t expected = 0;
  for (int64_t d = 1; d <= 7; ++d) {
    const int64_t days = swap::rollover_days(s.info, at(d, 0));
    const double bid = btc.market.tick_at(s, at(d, 0)).bid;
    expected += cents(static_cast<double>(days) * 0.5 * s.info.trade_contract_size * bid * s.info.swap_long / 100.0 /
                      360.0);
  }
  EXPECT_NE(expected, 0);
  EXPECT_EQ(cents(btc.account.positions()[0].swap), expected);
}

// The generated history: positions held over a rollover carry its swap on the closing deal, the
// others none, and the balance still equals the deposit plus every deal's result to the cent.
TEST(Swap, GeneratedHistoryBooksSwapsOnClosingDeals) {
  SimConfig c = demo_account();
  SimTerminal t(c);
  Market market(c);
  const auto deals = t.history_deals_get(HistoryFilter{});
  std::map<int64_t, TradeDeal> in;
  int64_t sum = 0, over_rollover = 0, with_swap = 0, tripled = 0;
  for (const TradeDeal& d : deals) {
    sum += cents(d.profit) + cents(d.commission) + cents(d.swap) + cents(d.fee);
    if (d.entry == mt5::DEAL_ENTRY_IN) {
      EXPECT_EQ(d.swap, 0.0);
      in[d.position_id] = d;
      continue;
    }
    if (d.entry != mt5::DEAL_ENTRY_OUT) continue;
    const TradeDeal& open = in.at(d.position_id);
    const SymbolSpec& s = *market.find(d.symbol);
    const bool buy = open.type == mt5::DEAL_TYPE_BUY;
    int64_t days = 0;
    for (int64_t m = (open.time_msc / (kDay * 1000) + 1) * kDay * 1000; m <= d.time_msc; m += kDay * 1000) {
      days += swap::rollover_days(s.info, m);
      if (swap::rollover_days(s.info, m) == 3) ++tripled;
    }
    EXPECT_EQ(cents(d.swap), swap::accrued_cents(market, s, buy, open.volume, open.price, open.time_msc, d.time_msc));
    if (days == 0) {
      EXPECT_EQ(d.swap, 0.0) << d.ticket;
    }
    over_rollover += days > 0;
    with_swap += d.swap != 0;
  }
  EXPECT_EQ(sum, cents(c.balance));
  EXPECT_GE(over_rollover, 30);
  EXPECT_GE(with_swap, over_rollover / 2);
  EXPECT_GE(tripled, 1);
}

// Swaps stay a pure function of (seed, time): two terminals agree deal for deal.
TEST(Swap, Deterministic) {
  SimTerminal a(demo_account()), b(demo_account());
  const auto da = a.history_deals_get(HistoryFilter{}), db = b.history_deals_get(HistoryFilter{});
  ASSERT_EQ(da.size(), db.size());
  for (size_t k = 0; k < da.size(); ++k) EXPECT_EQ(da[k].swap, db[k].swap);
  const auto pa = a.positions_get(TradeFilter{}), pb = b.positions_get(TradeFilter{});
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t k = 0; k < pa.size(); ++k) EXPECT_EQ(pa[k].swap, pb[k].swap);
}
