// The trading side of the simulated terminal: margin/profit (§6, with every §6.4 vector),
// order_check retcodes (§7), the generated account and its history, filters, determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "sim/calc_math.h"
#include "sim/order_check.h"
#include "sim/sim_terminal.h"
#include "terminal/constants.h"

using namespace tradeapi;
using namespace tradeapi::sim;

namespace {

constexpr int64_t kNowMs = 1763553600000;  // Wed 2025-11-19 12:00 UTC: markets open
constexpr int64_t kAnchor = 1763510400;    // 2025-11-19 00:00 UTC

SimConfig empty_account(double balance = 10000.0) {
  SimConfig c;
  c.now_ms = kNowMs;
  c.demo_trades = false;
  c.balance = balance;
  return c;
}

// The generated account as the anchor leaves it, without the trading schedule: these tests check
// the generated history and its records (the account's life after the anchor is ledger_test.cpp's).
SimConfig demo_account(uint64_t seed = 20240101) {
  SimConfig c;
  c.seed = seed;
  c.now_ms = kNowMs;
  c.account_anchor = kAnchor;
  c.balance = 10000.17;
  c.trades_per_hour = 0;
  return c;
}

int64_t cents(double v) { return std::llround(v * 100.0); }

// Runs fn and returns the TerminalError code it throws (0 when it does not throw).
template <typename Fn>
int64_t error_code(Fn&& fn) {
  try {
    fn();
  } catch (const TerminalError& e) {
    return e.code();
  }
  return 0;
}

TradeRequest deal(const std::string& symbol, int64_t type, double volume) {
  TradeRequest r;
  r.action = mt5::TRADE_ACTION_DEAL;
  r.symbol = symbol;
  r.type = type;
  r.volume = volume;
  r.type_filling = mt5::ORDER_FILLING_IOC;
  return r;
}

// A symbol of the catalogue whose execution mode is Market and which supports IOC filling; the
// checks below depend only on those properties, not on the catalogue's exact contents.
std::string market_execution_symbol(SimTerminal& t) {
  for (const char* name : {"EURUSD", "GBPUSD", "USDJPY"}) {
    const SymbolInfo i = t.symbol_info(name);
    if (i.trade_exemode == mt5::SYMBOL_TRADE_EXECUTION_MARKET && (i.filling_mode & 2) != 0) return name;
  }
  return "";
}

std::string dump(const TradeDeal& d) {
  std::ostringstream o;
  o.precision(17);
  o << d.ticket << ' ' << d.order << ' ' << d.time << ' ' << d.time_msc << ' ' << d.type << ' ' << d.entry << ' '
    << d.magic << ' ' << d.position_id << ' ' << d.reason << ' ' << d.volume << ' ' << d.price << ' ' << d.commission
    << ' ' << d.swap << ' ' << d.profit << ' ' << d.fee << ' ' << d.symbol << ' ' << d.comment << ' ' << d.external_id;
  return o.str();
}

std::string dump(const TradeOrder& x) {
  std::ostringstream o;
  o.precision(17);
  o << x.ticket << ' ' << x.time_setup << ' ' << x.time_setup_msc << ' ' << x.time_done << ' ' << x.time_done_msc
    << ' ' << x.time_expiration << ' ' << x.type << ' ' << x.type_time << ' ' << x.type_filling << ' ' << x.state
    << ' ' << x.magic << ' ' << x.position_id << ' ' << x.position_by_id << ' ' << x.reason << ' ' << x.volume_initial
    << ' ' << x.volume_current << ' ' << x.price_open << ' ' << x.sl << ' ' << x.tp << ' ' << x.price_stoplimit << ' '
    << x.symbol << ' ' << x.comment << ' ' << x.external_id;
  return o.str();
}

}  // namespace

// ---- §6.4 test vectors ------------------------------------------------------------------------

TEST(CalcVectors, ForexMarginBaseIsDeposit) {
  SimTerminal t(empty_account());
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_BUY, "USDJPY", 0.1, 108.0), 100.00);
}

TEST(CalcVectors, ForexMarginBaseIsNotDeposit) {
  SimTerminal t(empty_account());
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_BUY, "EURUSD", 0.1, 1.0991), 109.91);
}

TEST(CalcVectors, ForexMarginCrossUsesConversionPairAsk) {
  SimConfig c = empty_account();
  c.fixed_quotes["EURUSD"] = FixedQuote{1.0989, 1.0991};  // a buy converts at the pair's ask
  SimTerminal t(c);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_BUY, "EURJPY", 0.1, 120.5), 109.91);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_SELL, "EURJPY", 0.1, 120.5), 109.89);
}

TEST(CalcVectors, ForexMarginOneLotAtOrderPrice) {
  SimTerminal t(empty_account());
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_BUY, "GBPUSD", 1.0, 1.31668), 1316.68);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_SELL, "GBPUSD", 1.0, 1.31661), 1316.61);
}

TEST(CalcVectors, ForexProfitQuoteIsDeposit) {
  SimTerminal t(empty_account());
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURUSD", 1.0, 1.10000, 1.10300), 300.00);
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_SELL, "EURUSD", 1.0, 1.10300, 1.10000), 300.00);
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURUSD", 1.0, 1.10757, 1.10881), 124.00);
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_SELL, "EURUSD", 1.0, 1.10753, 1.10881), -128.00);
}

TEST(CalcVectors, ForexProfitQuoteIsNotDepositUsesOwnClosePrice) {
  SimTerminal t(empty_account());
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_BUY, "USDJPY", 1.0, 108.184, 108.484), 276.54);
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_SELL, "USDJPY", 1.0, 108.179, 107.879), 278.09);
}

TEST(CalcVectors, CfdLeverageMargin) {
  // The book sample's symbol settings are not shown (§6.4 [U]): CFDLEVERAGE, CS 100, lev 100.
  Market market(empty_account());
  Calculator calc(market);
  SymbolSpec gold = *market.find("XAUUSD");
  gold.info.trade_calc_mode = mt5::SYMBOL_CALC_MODE_CFDLEVERAGE;
  gold.info.trade_contract_size = 100;
  gold.info.margin_initial = 0;
  EXPECT_DOUBLE_EQ(calc.margin(mt5::ORDER_TYPE_BUY, gold, 0.01, 1899.97), 19.00);
}

TEST(CalcVectors, OrderCheckOnEmptyAccount) {
  SimTerminal t(empty_account(10000.17));
  TradeRequest r;  // as a Python script sends it: omitted keys are 0 (type_filling 0 = FOK)
  r.action = mt5::TRADE_ACTION_DEAL;
  r.symbol = "USDJPY";
  r.volume = 1.0;
  r.type = mt5::ORDER_TYPE_BUY;
  const OrderCheckResult res = t.order_check(r);
  EXPECT_EQ(res.retcode, 0);
  EXPECT_EQ(res.comment, "Done");
  EXPECT_DOUBLE_EQ(res.balance, 10000.17);
  EXPECT_DOUBLE_EQ(res.equity, 10000.17);
  EXPECT_DOUBLE_EQ(res.profit, 0.0);
  EXPECT_DOUBLE_EQ(res.margin, 1000.0);
  EXPECT_DOUBLE_EQ(res.margin_free, 9000.17);
  EXPECT_NEAR(res.margin_level, 1000.017, 1e-9);
}

// ---- calculator rules ---------------------------------------------------------------------------

TEST(CalcRules, PendingTypesMapToTheirDirection) {
  SimTerminal t(empty_account());
  const double buy = t.order_calc_margin(mt5::ORDER_TYPE_BUY, "GBPUSD", 1.0, 1.3);
  const double sell = t.order_calc_margin(mt5::ORDER_TYPE_SELL, "GBPUSD", 1.0, 1.3);
  for (int64_t type : {mt5::ORDER_TYPE_BUY_LIMIT, mt5::ORDER_TYPE_BUY_STOP, mt5::ORDER_TYPE_BUY_STOP_LIMIT})
    EXPECT_DOUBLE_EQ(t.order_calc_margin(type, "GBPUSD", 1.0, 1.3), buy);
  for (int64_t type : {mt5::ORDER_TYPE_SELL_LIMIT, mt5::ORDER_TYPE_SELL_STOP, mt5::ORDER_TYPE_SELL_STOP_LIMIT})
    EXPECT_DOUBLE_EQ(t.order_calc_margin(type, "GBPUSD", 1.0, 1.3), sell);
}

TEST(CalcRules, InvalidArgumentsAndUnknownSymbol) {
  SimTerminal t(empty_account());
  EXPECT_EQ(error_code([&] { t.order_calc_margin(mt5::ORDER_TYPE_CLOSE_BY, "EURUSD", 1.0, 1.1); }), -2);
  EXPECT_EQ(t.last_error().code, -2);
  EXPECT_EQ(error_code([&] { t.order_calc_margin(42, "EURUSD", 1.0, 1.1); }), -2);
  EXPECT_EQ(error_code([&] { t.order_calc_margin(mt5::ORDER_TYPE_BUY, "EURUSD", 0.0, 1.1); }), -2);
  EXPECT_EQ(error_code([&] { t.order_calc_margin(mt5::ORDER_TYPE_BUY, "EURUSD", NAN, 1.1); }), -2);
  EXPECT_EQ(error_code([&] { t.order_calc_margin(mt5::ORDER_TYPE_BUY, "EURUSD", 1.0, 0.0); }), -2);
  EXPECT_EQ(error_code([&] { t.order_calc_margin(mt5::ORDER_TYPE_BUY, "NOPE", 1.0, 1.1); }), -4);
  EXPECT_EQ(t.last_error().code, -4);
  EXPECT_EQ(error_code([&] { t.order_calc_profit(mt5::ORDER_TYPE_BUY_LIMIT, "EURUSD", 1.0, 1.1, 1.2); }), -2);
  EXPECT_EQ(error_code([&] { t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURUSD", -1.0, 1.1, 1.2); }), -2);
  EXPECT_EQ(error_code([&] { t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURUSD", 1.0, 1.1, 0.0); }), -2);
  t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURUSD", 1.0, 1.1, 1.2);
  EXPECT_EQ(t.last_error().code, 1);
}

TEST(CalcRules, ProfitLossConvertsConservatively) {
  // EURJPY on a USD account converts through USDJPY: profits at the ask (smaller in USD),
  // losses at the bid (larger in USD) — §6.3.
  SimConfig c = empty_account();
  c.fixed_quotes["USDJPY"] = FixedQuote{100.0, 125.0};
  SimTerminal t(c);
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURJPY", 1.0, 120.0, 121.0), 800.00);   // 100000 / 125
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURJPY", 1.0, 121.0, 120.0), -1000.00); // / 100
}

TEST(CalcRules, NoConversionPathFails) {
  SimConfig c = empty_account();
  c.currency = "XYZ";
  SimTerminal t(c);
  EXPECT_EQ(error_code([&] { t.order_calc_margin(mt5::ORDER_TYPE_BUY, "EURUSD", 1.0, 1.1); }), -1);
  EXPECT_EQ(error_code([&] { t.order_calc_profit(mt5::ORDER_TYPE_BUY, "EURUSD", 1.0, 1.1, 1.2); }), -1);
}

TEST(CalcRules, TwoLegCrossThroughUsd) {
  // An NZD account has no EUR/NZD pair: EUR -> USD (EURUSD, at the order price) -> NZD (NZDUSD).
  SimConfig c = empty_account();
  c.currency = "NZD";
  c.fixed_quotes["NZDUSD"] = FixedQuote{0.5, 0.5};
  SimTerminal t(c);
  ASSERT_EQ(Market(c).find("EURNZD"), nullptr);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_BUY, "EURUSD", 0.1, 1.1), 220.00);  // 100 EUR * 1.1 / 0.5
}

TEST(CalcRules, DepositCurrencyOfTheQuote) {
  // On a JPY account USDJPY's margin (USD) converts through USDJPY itself at the order price.
  SimConfig c = empty_account();
  c.currency = "JPY";
  SimTerminal t(c);
  EXPECT_DOUBLE_EQ(t.order_calc_margin(mt5::ORDER_TYPE_BUY, "USDJPY", 0.1, 150.0), 15000.00);
  EXPECT_DOUBLE_EQ(t.order_calc_profit(mt5::ORDER_TYPE_BUY, "USDJPY", 0.1, 150.0, 150.5), 5000.00);
}

// ---- order_check --------------------------------------------------------------------------------

TEST(OrderCheck, EchoesTheWholeRequest) {
  SimTerminal t(empty_account());
  TradeRequest r = deal("USDJPY", mt5::ORDER_TYPE_SELL, 0.1);
  r.magic = 234000;
  r.deviation = 20;
  r.comment = "python script";
  r.type_time = mt5::ORDER_TIME_GTC;
  const OrderCheckResult res = t.order_check(r);
  EXPECT_EQ(res.request.action, r.action);
  EXPECT_EQ(res.request.magic, 234000);
  EXPECT_EQ(res.request.symbol, "USDJPY");
  EXPECT_EQ(res.request.volume, 0.1);
  EXPECT_EQ(res.request.deviation, 20);
  EXPECT_EQ(res.request.type, mt5::ORDER_TYPE_SELL);
  EXPECT_EQ(res.request.type_filling, r.type_filling);
  EXPECT_EQ(res.request.comment, "python script");
  EXPECT_EQ(res.request.position, 0);
  EXPECT_EQ(res.request.expiration, 0);
}

TEST(OrderCheck, ClientTradingDisabled) {
  SimConfig c = empty_account();
  c.trade_allowed = false;
  SimTerminal t(c);
  const OrderCheckResult res = t.order_check(deal("USDJPY", mt5::ORDER_TYPE_BUY, 0.1));
  EXPECT_EQ(res.retcode, mt5::TRADE_RETCODE_CLIENT_DISABLES_AT);
  EXPECT_EQ(res.comment, "AutoTrading disabled by client");
  EXPECT_DOUBLE_EQ(res.balance, 10000.0);  // failures report the current account
  EXPECT_DOUBLE_EQ(res.margin_free, 10000.0);
}

TEST(OrderCheck, MalformedRequestsThrowInvalidParams) {
  SimTerminal t(empty_account());
  TradeRequest r = deal("USDJPY", mt5::ORDER_TYPE_BUY, 0.1);
  r.comment = std::string(32, 'x');
  try {
    t.order_check(r);
    FAIL() << "expected a TerminalError";
  } catch (const TerminalError& e) {
    EXPECT_EQ(e.code(), -2);
    EXPECT_STREQ(e.what(), "Invalid \"comment\" argument");
  }
  EXPECT_EQ(t.last_error().description, "Invalid \"comment\" argument");
  r.comment = std::string(31, 'x');
  EXPECT_EQ(t.order_check(r).retcode, 0);
  EXPECT_EQ(error_code([&] { t.order_check(deal("NOPE", mt5::ORDER_TYPE_BUY, 0.1)); }), -2);
}

TEST(OrderCheck, InvalidRequestAndOrderType) {
  SimTerminal t(empty_account());
  TradeRequest unknown_action = deal("USDJPY", mt5::ORDER_TYPE_BUY, 0.1);
  unknown_action.action = 99;
  EXPECT_EQ(t.order_check(unknown_action).retcode, mt5::TRADE_RETCODE_INVALID);
  EXPECT_EQ(t.order_check(unknown_action).comment, "Invalid request");

  TradeRequest remove;
  remove.action = mt5::TRADE_ACTION_REMOVE;
  remove.order = 123;
  EXPECT_EQ(t.order_check(remove).retcode, mt5::TRADE_RETCODE_INVALID);

  TradeRequest sltp;
  sltp.action = mt5::TRADE_ACTION_SLTP;
  sltp.position = 123;
  EXPECT_EQ(t.order_check(sltp).retcode, mt5::TRADE_RETCODE_POSITION_CLOSED);

  EXPECT_EQ(t.order_check(deal("USDJPY", mt5::ORDER_TYPE_BUY_LIMIT, 0.1)).retcode, mt5::TRADE_RETCODE_INVALID_ORDER);
  TradeRequest pending = deal("USDJPY", mt5::ORDER_TYPE_BUY, 0.1);
  pending.action = mt5::TRADE_ACTION_PENDING;
  EXPECT_EQ(t.order_check(pending).retcode, mt5::TRADE_RETCODE_INVALID_ORDER);
}

TEST(OrderCheck, UnsupportedFilling) {
  SimTerminal t(empty_account());
  const std::string symbol = market_execution_symbol(t);
  if (symbol.empty()) GTEST_SKIP() << "no Market-execution FX symbol in the catalogue";
  TradeRequest r = deal(symbol, mt5::ORDER_TYPE_BUY, 0.1);
  r.type_filling = mt5::ORDER_FILLING_RETURN;  // never allowed under Market execution (§5.6)
  const OrderCheckResult res = t.order_check(r);
  EXPECT_EQ(res.retcode, mt5::TRADE_RETCODE_INVALID_FILL);
  EXPECT_EQ(res.comment, "Unsupported filling mode");
  r.type_filling = 7;
  EXPECT_EQ(t.order_check(r).retcode, mt5::TRADE_RETCODE_INVALID_FILL);
}

TEST(OrderCheck, InvalidVolume) {
  SimTerminal t(empty_account());
  const SymbolInfo i = t.symbol_info("USDJPY");
  for (double v : {0.0, i.volume_min / 2, i.volume_max * 2, i.volume_min + i.volume_step / 2}) {
    const OrderCheckResult res = t.order_check(deal("USDJPY", mt5::ORDER_TYPE_BUY, v));
    EXPECT_EQ(res.retcode, mt5::TRADE_RETCODE_INVALID_VOLUME) << v;
    EXPECT_EQ(res.comment, "Invalid volume");
  }
}

TEST(OrderCheck, InvalidPrice) {
  SimTerminal t(empty_account());
  const Tick tick = t.symbol_info_tick("EURUSD");
  const SymbolInfo i = t.symbol_info("EURUSD");
  TradeRequest r = deal("EURUSD", mt5::ORDER_TYPE_BUY, 0.1);
  r.price = tick.ask + i.point / 2;  // off the tick grid
  EXPECT_EQ(t.order_check(r).retcode, mt5::TRADE_RETCODE_INVALID_PRICE);
  r.price = -1.0;
  EXPECT_EQ(t.order_check(r).retcode, mt5::TRADE_RETCODE_INVALID_PRICE);

  TradeRequest limit = deal("EURUSD", mt5::ORDER_TYPE_BUY_LIMIT, 0.1);
  limit.action = mt5::TRADE_ACTION_PENDING;
  limit.type_filling = mt5::ORDER_FILLING_RETURN;
  limit.price = tick.ask + 100 * i.point;  // a buy limit above the market
  EXPECT_EQ(t.order_check(limit).retcode, mt5::TRADE_RETCODE_INVALID_PRICE);
  EXPECT_EQ(t.order_check(limit).comment, "Invalid price");
  limit.price = std::round((tick.ask - 500 * i.point) / i.point) * i.point;
  const OrderCheckResult ok = t.order_check(limit);
  EXPECT_EQ(ok.retcode, 0);
  EXPECT_DOUBLE_EQ(ok.margin, 0.0);  // OTC pending orders reserve no margin

  TradeRequest stop = limit;
  stop.type = mt5::ORDER_TYPE_SELL_STOP;
  stop.price = tick.bid + 100 * i.point;  // a sell stop above the market
  EXPECT_EQ(t.order_check(stop).retcode, mt5::TRADE_RETCODE_INVALID_PRICE);
}

TEST(OrderCheck, InvalidStops) {
  SimTerminal t(empty_account());
  const Tick tick = t.symbol_info_tick("EURUSD");
  const SymbolInfo i = t.symbol_info("EURUSD");
  TradeRequest r = deal("EURUSD", mt5::ORDER_TYPE_BUY, 0.1);
  r.sl = std::round((tick.bid + 200 * i.point) / i.point) * i.point;  // SL above a buy's close price
  const OrderCheckResult res = t.order_check(r);
  EXPECT_EQ(res.retcode, mt5::TRADE_RETCODE_INVALID_STOPS);
  EXPECT_EQ(res.comment, "Invalid stops");
  r.sl = std::round((tick.bid - 200 * i.point) / i.point) * i.point;
  r.tp = std::round((tick.bid - 100 * i.point) / i.point) * i.point;  // TP below it
  EXPECT_EQ(t.order_check(r).retcode, mt5::TRADE_RETCODE_INVALID_STOPS);
  r.tp = std::round((tick.bid + 300 * i.point) / i.point) * i.point;
  EXPECT_EQ(t.order_check(r).retcode, 0);
}

TEST(OrderCheck, InvalidExpiration) {
  SimTerminal t(empty_account());
  const Tick tick = t.symbol_info_tick("EURUSD");
  const SymbolInfo i = t.symbol_info("EURUSD");
  TradeRequest r = deal("EURUSD", mt5::ORDER_TYPE_BUY_LIMIT, 0.1);
  r.action = mt5::TRADE_ACTION_PENDING;
  r.type_filling = mt5::ORDER_FILLING_RETURN;
  r.price = std::round((tick.ask - 500 * i.point) / i.point) * i.point;
  r.type_time = mt5::ORDER_TIME_SPECIFIED;
  r.expiration = kNowMs / 1000 - 3600;  // in the past
  const OrderCheckResult res = t.order_check(r);
  EXPECT_EQ(res.retcode, mt5::TRADE_RETCODE_INVALID_EXPIRATION);
  r.type_time = 9;
  EXPECT_EQ(t.order_check(r).retcode, mt5::TRADE_RETCODE_INVALID_EXPIRATION);
  if ((i.expiration_mode & 4) != 0) {
    r.type_time = mt5::ORDER_TIME_SPECIFIED;
    r.expiration = kNowMs / 1000 + 3600;
    EXPECT_EQ(t.order_check(r).retcode, 0);
  }
}

TEST(OrderCheck, NoMoney) {
  SimTerminal t(empty_account(1000.0));
  const OrderCheckResult res = t.order_check(deal("USDJPY", mt5::ORDER_TYPE_BUY, 1.0));  // 1000.00 margin: fits
  EXPECT_EQ(res.retcode, 0);
  EXPECT_DOUBLE_EQ(res.margin_free, 0.0);
  const OrderCheckResult poor = t.order_check(deal("USDJPY", mt5::ORDER_TYPE_BUY, 1.01));
  EXPECT_EQ(poor.retcode, mt5::TRADE_RETCODE_NO_MONEY);
  EXPECT_EQ(poor.comment, "No money");
  EXPECT_DOUBLE_EQ(poor.margin, 0.0);  // current account state on failure
  EXPECT_DOUBLE_EQ(poor.margin_free, 1000.0);
}

TEST(OrderCheck, TradeModeRestrictions) {
  // The catalogue trades everything in full; check_order takes a symbol lookup so that a USDJPY
  // with a restricted trade_mode can be substituted.
  const SimConfig c = empty_account();
  Market market(c);
  Calculator calc(market);
  Account account(market, calc);
  SymbolSpec restricted = *market.find("USDJPY");
  const SymbolLookup lookup = [&](const std::string& name) {
    return name == "USDJPY" ? &restricted : market.find(name);
  };
  auto retcode = [&](int64_t mode, int64_t type) {
    restricted.info.trade_mode = mode;
    const OrderCheckResult r = check_order(market, calc, account, deal("USDJPY", type, 0.1), lookup);
    return std::make_pair(r.retcode, r.comment);
  };
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_DISABLED, mt5::ORDER_TYPE_BUY),
            std::make_pair(mt5::TRADE_RETCODE_TRADE_DISABLED, std::string("Trade disabled")));
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_LONGONLY, mt5::ORDER_TYPE_SELL).first, mt5::TRADE_RETCODE_LONG_ONLY);
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_LONGONLY, mt5::ORDER_TYPE_BUY).first, 0);
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_SHORTONLY, mt5::ORDER_TYPE_BUY).first, mt5::TRADE_RETCODE_SHORT_ONLY);
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_SHORTONLY, mt5::ORDER_TYPE_SELL).first, 0);
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_CLOSEONLY, mt5::ORDER_TYPE_BUY).first, mt5::TRADE_RETCODE_CLOSE_ONLY);
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_FULL, mt5::ORDER_TYPE_BUY).first, 0);

  // Disallowed order types (order_mode without MARKET) -> 10035.
  restricted.info.order_mode = 2 | 4;  // LIMIT | STOP only
  EXPECT_EQ(retcode(mt5::SYMBOL_TRADE_MODE_FULL, mt5::ORDER_TYPE_BUY).first, mt5::TRADE_RETCODE_INVALID_ORDER);
}

TEST(OrderCheck, ExistingPositionsAndOrders) {
  SimTerminal t(demo_account());
  const AccountInfo before = t.account_info();
  const TradePosition p = t.positions_get(TradeFilter{}).front();
  const SymbolInfo i = t.symbol_info(p.symbol);
  const bool buy = p.type == mt5::POSITION_TYPE_BUY;

  // Closing (opposite deal naming the position) does not add margin.
  TradeRequest close = deal(p.symbol, buy ? mt5::ORDER_TYPE_SELL : mt5::ORDER_TYPE_BUY, p.volume);
  close.position = p.ticket;
  const OrderCheckResult closed = t.order_check(close);
  EXPECT_EQ(closed.retcode, 0);
  EXPECT_DOUBLE_EQ(closed.margin, before.margin);
  close.volume = p.volume + i.volume_step;
  EXPECT_EQ(t.order_check(close).retcode, mt5::TRADE_RETCODE_INVALID_CLOSE_VOLUME);
  close.volume = p.volume;
  close.type = buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL;  // same direction cannot close it
  EXPECT_EQ(t.order_check(close).retcode, mt5::TRADE_RETCODE_INVALID);

  // A new position on a symbol without positions adds its margin to the account total (hedging on
  // the same symbol is covered in account_model_test.cpp).
  std::string fresh;
  for (const char* name : {"USDJPY", "GBPUSD", "EURUSD", "AUDUSD", "USDCHF", "XAUUSD"}) {
    TradeFilter on;
    on.symbol = name;
    if (fresh.empty() && t.positions_get(on).empty()) fresh = name;
  }
  ASSERT_FALSE(fresh.empty());
  const double min_volume = t.symbol_info(fresh).volume_min;
  TradeRequest open = deal(fresh, mt5::ORDER_TYPE_BUY, min_volume);
  const OrderCheckResult opened = t.order_check(open);
  EXPECT_EQ(opened.retcode, 0);
  EXPECT_NEAR(opened.margin, before.margin + t.order_calc_margin(mt5::ORDER_TYPE_BUY, fresh, min_volume,
                                                                  t.symbol_info_tick(fresh).ask), 0.011);
  EXPECT_EQ(cents(opened.margin_free), cents(opened.equity - opened.margin));

  // SLTP: unchanged levels are "no changes"; an SL on the wrong side is invalid.
  TradeRequest sltp;
  sltp.action = mt5::TRADE_ACTION_SLTP;
  sltp.position = p.ticket;
  sltp.sl = p.sl;
  sltp.tp = p.tp;
  EXPECT_EQ(t.order_check(sltp).retcode, mt5::TRADE_RETCODE_NO_CHANGES);
  const Tick tick = t.symbol_info_tick(p.symbol);
  const double close_price = buy ? tick.bid : tick.ask;
  sltp.sl = std::round((buy ? close_price * 1.01 : close_price * 0.99) / i.point) * i.point;
  sltp.tp = 0;
  EXPECT_EQ(t.order_check(sltp).retcode, mt5::TRADE_RETCODE_INVALID_STOPS);

  // REMOVE of an existing pending order passes; MODIFY without changes does not.
  const TradeOrder o = t.orders_get(TradeFilter{}).front();
  TradeRequest remove;
  remove.action = mt5::TRADE_ACTION_REMOVE;
  remove.order = o.ticket;
  EXPECT_EQ(t.order_check(remove).retcode, 0);
  TradeRequest modify;
  modify.action = mt5::TRADE_ACTION_MODIFY;
  modify.order = o.ticket;
  modify.price = o.price_open;
  modify.sl = o.sl;
  modify.tp = o.tp;
  EXPECT_EQ(t.order_check(modify).retcode, mt5::TRADE_RETCODE_NO_CHANGES);
}

// ---- the generated account ----------------------------------------------------------------------

TEST(Account, EmptyAccountHasOnlyTheDeposit) {
  SimTerminal t(empty_account(10000.17));
  EXPECT_EQ(t.positions_total(), 0);
  EXPECT_EQ(t.orders_total(), 0);
  const auto deals = t.history_deals_get(HistoryFilter{});
  ASSERT_EQ(deals.size(), 1u);
  EXPECT_EQ(deals[0].type, mt5::DEAL_TYPE_BALANCE);
  EXPECT_DOUBLE_EQ(deals[0].profit, 10000.17);
  EXPECT_TRUE(t.history_orders_get(HistoryFilter{}).empty());
  const AccountInfo a = t.account_info();
  EXPECT_DOUBLE_EQ(a.balance, 10000.17);
  EXPECT_DOUBLE_EQ(a.equity, 10000.17);
  EXPECT_DOUBLE_EQ(a.margin, 0.0);
  EXPECT_DOUBLE_EQ(a.margin_level, 0.0);
}

TEST(Account, InfoFieldsAndInvariants) {
  SimConfig c = demo_account();
  SimTerminal t(c);
  const AccountInfo a = t.account_info();
  EXPECT_EQ(a.login, c.login);
  EXPECT_EQ(a.trade_mode, mt5::ACCOUNT_TRADE_MODE_DEMO);
  EXPECT_EQ(a.leverage, 100);
  EXPECT_EQ(a.limit_orders, 200);
  EXPECT_EQ(a.margin_mode, mt5::ACCOUNT_MARGIN_MODE_RETAIL_HEDGING);
  EXPECT_EQ(a.currency_digits, 2);
  EXPECT_TRUE(a.trade_allowed);
  EXPECT_TRUE(a.trade_expert);
  EXPECT_FALSE(a.fifo_close);
  EXPECT_EQ(a.currency, "USD");
  EXPECT_EQ(a.name, "Tradeapi Demo");
  EXPECT_EQ(a.server, "Tradeapi-Sim");
  EXPECT_EQ(a.company, "Tradeapi Simulated Markets Ltd.");
  EXPECT_DOUBLE_EQ(a.margin_so_call, 50.0);
  EXPECT_DOUBLE_EQ(a.margin_so_so, 30.0);
  EXPECT_DOUBLE_EQ(a.balance, 10000.17);
  EXPECT_EQ(cents(a.equity), cents(a.balance + a.credit + a.profit));
  EXPECT_EQ(cents(a.margin_free), cents(a.equity - a.margin));
  EXPECT_GT(a.margin, 0.0);
  EXPECT_NEAR(a.margin_level, a.equity / a.margin * 100.0, 1e-9);
  // The account's floating result includes the swaps the open positions have accrued.
  int64_t profit = 0;
  for (const TradePosition& p : t.positions_get(TradeFilter{})) profit += cents(p.profit) + cents(p.swap);
  EXPECT_EQ(cents(a.profit), profit);
}

TEST(Account, PositionsAndPendingOrders) {
  SimConfig c = demo_account();
  SimTerminal t(c);
  Market market(c);
  Calculator calc(market);
  const auto positions = t.positions_get(TradeFilter{});
  ASSERT_GE(positions.size(), 4u);
  ASSERT_LE(positions.size(), 6u);
  std::map<std::string, std::set<int64_t>> directions;
  for (const TradePosition& p : positions) {
    directions[p.symbol].insert(p.type);
    EXPECT_EQ(p.ticket, p.identifier);
    EXPECT_LT(p.time, kAnchor);
    const SymbolSpec& s = *market.find(p.symbol);
    const Tick tick = market.live_tick(s);
    const bool buy = p.type == mt5::POSITION_TYPE_BUY;
    EXPECT_DOUBLE_EQ(p.price_current, buy ? tick.bid : tick.ask);
    EXPECT_DOUBLE_EQ(p.profit, calc.profit(buy ? mt5::ORDER_TYPE_BUY : mt5::ORDER_TYPE_SELL, s, p.volume,
                                           p.price_open, p.price_current));
    if (p.sl != 0) {
      EXPECT_TRUE(buy ? p.sl < p.price_open : p.sl > p.price_open);
    }
  }
  bool hedged = false;
  for (const auto& [symbol, types] : directions) hedged = hedged || types.size() == 2;
  EXPECT_TRUE(hedged) << "a hedging account should hold opposite positions on one symbol";

  const auto orders = t.orders_get(TradeFilter{});
  ASSERT_GE(orders.size(), 3u);
  ASSERT_LE(orders.size(), 5u);
  for (const TradeOrder& o : orders) {
    EXPECT_EQ(o.state, mt5::ORDER_STATE_PLACED);
    EXPECT_EQ(o.time_done, 0);
    EXPECT_EQ(o.volume_current, o.volume_initial);
    const Tick tick = market.live_tick(*market.find(o.symbol));
    const bool below = o.type == mt5::ORDER_TYPE_BUY_LIMIT || o.type == mt5::ORDER_TYPE_SELL_STOP;
    const double market_price = calc::is_buy_side(o.type) ? tick.ask : tick.bid;
    EXPECT_EQ(o.price_current, market_price);
    EXPECT_EQ(o.price_open < market_price, below) << dump(o);
  }
}

TEST(Account, HistoryIsConsistent) {
  SimConfig c = demo_account();
  SimTerminal t(c);
  Market market(c);
  const auto orders = t.history_orders_get(HistoryFilter{});
  const auto deals = t.history_deals_get(HistoryFilter{});
  ASSERT_FALSE(deals.empty());

  // The deposit comes first; the sum of every deal's money equals the balance to the cent.
  EXPECT_EQ(deals[0].type, mt5::DEAL_TYPE_BALANCE);
  EXPECT_EQ(deals[0].order, 0);
  EXPECT_EQ(deals[0].position_id, 0);
  EXPECT_EQ(deals[0].symbol, "");
  EXPECT_GT(deals[0].profit, 0.0);
  int64_t sum = 0;
  for (const TradeDeal& d : deals) sum += cents(d.profit) + cents(d.commission) + cents(d.swap) + cents(d.fee);
  EXPECT_EQ(sum, cents(c.balance));

  std::map<int64_t, const TradeOrder*> by_ticket;
  for (const TradeOrder& o : orders) by_ticket[o.ticket] = &o;
  std::map<int64_t, int> in_deals, out_deals;
  int64_t closed = 0;
  for (size_t k = 0; k < deals.size(); ++k) {
    const TradeDeal& d = deals[k];
    if (k > 0) {
      EXPECT_GE(d.time_msc, deals[k - 1].time_msc);
      EXPECT_GT(d.ticket, deals[k - 1].ticket);
    }
    EXPECT_EQ(d.time, d.time_msc / 1000);
    EXPECT_GE(d.time, c.history_start);
    EXPECT_LE(d.time, kAnchor);
    if (d.type == mt5::DEAL_TYPE_BALANCE) continue;
    ASSERT_TRUE(by_ticket.count(d.order)) << "deal " << d.ticket << " names a missing order";
    const TradeOrder& o = *by_ticket[d.order];
    EXPECT_EQ(o.position_id, d.position_id);
    EXPECT_EQ(o.symbol, d.symbol);
    EXPECT_EQ(o.type, d.type);
    EXPECT_EQ(o.state, mt5::ORDER_STATE_FILLED);
    EXPECT_EQ(o.time_setup, o.time_done);
    EXPECT_EQ(o.time_done_msc, d.time_msc);
    EXPECT_TRUE(market.is_open(*market.find(d.symbol), d.time_msc)) << dump(d);
    if (d.entry == mt5::DEAL_ENTRY_IN) {
      EXPECT_EQ(d.profit, 0.0);
      EXPECT_EQ(d.position_id, d.order);  // position id = opening order ticket
      ++in_deals[d.position_id];
    } else {
      EXPECT_EQ(d.entry, mt5::DEAL_ENTRY_OUT);
      EXPECT_EQ(in_deals[d.position_id], 1) << "OUT deal before its IN deal: " << dump(d);
      ++out_deals[d.position_id];
      ++closed;
    }
    const SymbolInfo i = t.symbol_info(d.symbol);
    EXPECT_GE(d.volume, i.volume_min);
    EXPECT_NEAR(std::fmod(d.volume + 1e-9, i.volume_step), 0.0, 1e-6);
  }
  EXPECT_GE(closed, 100);
  EXPECT_LE(closed, 300);
  for (const auto& [position, n] : out_deals) EXPECT_EQ(n, 1);
  // Open positions have an IN deal and no OUT deal.
  for (const TradePosition& p : t.positions_get(TradeFilter{})) {
    EXPECT_EQ(in_deals[p.identifier], 1);
    EXPECT_EQ(out_deals.count(p.identifier), 0u);
  }
  // Orders ascend in time and ticket; cancelled pending orders are there too.
  int cancelled = 0;
  for (size_t k = 1; k < orders.size(); ++k) {
    EXPECT_GE(orders[k].time_setup_msc, orders[k - 1].time_setup_msc);
    EXPECT_GT(orders[k].ticket, orders[k - 1].ticket);
  }
  for (const TradeOrder& o : orders) {
    if (o.state != mt5::ORDER_STATE_CANCELED) continue;
    ++cancelled;
    EXPECT_EQ(o.position_id, 0);
    EXPECT_GT(o.time_done, o.time_setup);
    EXPECT_EQ(o.volume_current, o.volume_initial);
    EXPECT_TRUE(o.type >= mt5::ORDER_TYPE_BUY_LIMIT && o.type <= mt5::ORDER_TYPE_SELL_STOP_LIMIT);
  }
  EXPECT_GE(cancelled, 1);
}

TEST(Account, DeterministicForOneSeed) {
  SimTerminal a(demo_account(7)), b(demo_account(7)), other(demo_account(8));
  const auto da = a.history_deals_get(HistoryFilter{}), db = b.history_deals_get(HistoryFilter{});
  ASSERT_EQ(da.size(), db.size());
  for (size_t k = 0; k < da.size(); ++k) EXPECT_EQ(dump(da[k]), dump(db[k]));
  const auto oa = a.history_orders_get(HistoryFilter{}), ob = b.history_orders_get(HistoryFilter{});
  ASSERT_EQ(oa.size(), ob.size());
  for (size_t k = 0; k < oa.size(); ++k) EXPECT_EQ(dump(oa[k]), dump(ob[k]));
  const auto pa = a.orders_get(TradeFilter{}), pb = b.orders_get(TradeFilter{});
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t k = 0; k < pa.size(); ++k) EXPECT_EQ(dump(pa[k]), dump(pb[k]));
  EXPECT_EQ(a.positions_total(), b.positions_total());
  const auto dother = other.history_deals_get(HistoryFilter{});
  EXPECT_TRUE(dother.size() != da.size() || dump(dother[1]) != dump(da[1]));
}

// ---- filters ------------------------------------------------------------------------------------

TEST(TradingFilters, PositionsAndOrders) {
  SimTerminal t(demo_account());
  const auto all = t.positions_get(TradeFilter{});
  ASSERT_FALSE(all.empty());
  const TradePosition& first = all.front();

  TradeFilter by_ticket;
  by_ticket.ticket = first.ticket;
  ASSERT_EQ(t.positions_get(by_ticket).size(), 1u);

  TradeFilter by_symbol;
  by_symbol.symbol = first.symbol;
  by_symbol.ticket = -1;  // symbol wins over ticket
  const auto same_symbol = t.positions_get(by_symbol);
  EXPECT_FALSE(same_symbol.empty());
  for (const auto& p : same_symbol) EXPECT_EQ(p.symbol, first.symbol);

  TradeFilter grouped;
  grouped.group = "*,!" + first.symbol;
  for (const auto& p : t.positions_get(grouped)) EXPECT_NE(p.symbol, first.symbol);
  EXPECT_EQ(t.positions_get(grouped).size() + same_symbol.size(), all.size());

  TradeFilter none;
  none.ticket = 1;
  EXPECT_TRUE(t.positions_get(none).empty());
  EXPECT_EQ(t.last_error().code, 1);

  const auto orders = t.orders_get(TradeFilter{});
  TradeFilter order_ticket;
  order_ticket.ticket = orders.back().ticket;
  ASSERT_EQ(t.orders_get(order_ticket).size(), 1u);
  EXPECT_EQ(t.orders_total(), static_cast<int64_t>(orders.size()));
}

TEST(TradingFilters, History) {
  SimTerminal t(demo_account());
  const auto deals = t.history_deals_get(HistoryFilter{});
  const auto orders = t.history_orders_get(HistoryFilter{});
  const TradeDeal* out = nullptr;
  for (const auto& d : deals)
    if (d.entry == mt5::DEAL_ENTRY_OUT) out = &d;
  ASSERT_NE(out, nullptr);

  HistoryFilter by_order;  // deals: ticket = ORDER ticket (§2.7)
  by_order.ticket = out->order;
  const auto of_order = t.history_deals_get(by_order);
  ASSERT_EQ(of_order.size(), 1u);
  EXPECT_EQ(of_order[0].ticket, out->ticket);
  by_order.ticket = out->ticket;  // a deal ticket is not an order ticket
  EXPECT_TRUE(t.history_deals_get(by_order).empty());

  HistoryFilter by_position;
  by_position.position = out->position_id;
  const auto of_position = t.history_deals_get(by_position);
  ASSERT_EQ(of_position.size(), 2u);
  EXPECT_EQ(of_position[0].entry, mt5::DEAL_ENTRY_IN);
  EXPECT_EQ(of_position[1].entry, mt5::DEAL_ENTRY_OUT);
  EXPECT_EQ(t.history_orders_get(by_position).size(), 2u);

  HistoryFilter order_ticket;
  order_ticket.ticket = out->order;
  ASSERT_EQ(t.history_orders_get(order_ticket).size(), 1u);

  HistoryFilter by_symbol;
  by_symbol.symbol = out->symbol;
  for (const auto& d : t.history_deals_get(by_symbol)) EXPECT_EQ(d.symbol, out->symbol);

  HistoryFilter grouped;
  grouped.group = "*JPY*";
  for (const auto& o : t.history_orders_get(grouped)) EXPECT_NE(o.symbol.find("JPY"), std::string::npos);

  // Inclusive date range: a window of exactly one deal's second contains it.
  HistoryFilter range;
  range.date_from = out->time;
  range.date_to = out->time;
  bool found = false;
  for (const auto& d : t.history_deals_get(range)) {
    EXPECT_EQ(d.time, out->time);
    found = found || d.ticket == out->ticket;
  }
  EXPECT_TRUE(found);
  const int64_t mid = deals[deals.size() / 2].time;
  int64_t expected_deals = 0, expected_orders = 0;
  for (const auto& d : deals) expected_deals += d.time >= mid && d.time <= kAnchor;
  for (const auto& o : orders) expected_orders += o.time_setup >= mid && o.time_setup <= kAnchor;
  EXPECT_EQ(t.history_deals_total(mid, kAnchor), expected_deals);
  EXPECT_EQ(t.history_orders_total(mid, kAnchor), expected_orders);

  range.date_from = kAnchor;
  range.date_to = kAnchor - 1;
  EXPECT_EQ(error_code([&] { t.history_deals_get(range); }), -2);
  EXPECT_EQ(error_code([&] { t.history_orders_total(kAnchor, kAnchor - 1); }), -2);
  EXPECT_EQ(t.last_error().code, -2);
}
