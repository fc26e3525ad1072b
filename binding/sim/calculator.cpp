// Margin and profit by calculation mode (mt5-reference §6.1, §6.2) and the Calculator that applies
// them to live quotes. Margin rate (MR) is 1.0 for every symbol and direction.
#include <algorithm>
#include <cmath>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "calc_math.h"
#include "money.h"
#include "trading.h"

namespace tradeapi::sim {
namespace calc {
namespace {

void require_positive(double value) {
  if (!std::isfinite(value) || value <= 0) throw TerminalError::invalid_params();
}

// Currency of a formula's result. FOREX-style formulas (contract size or margin_initial per lot)
// give an amount in the margin currency; formulas multiplied by a price give an amount in the
// currency the price is quoted in, i.e. the profit currency. The latter matters for CFDs such as
// XAUUSD whose margin currency may be set to XAU while L*CS*P is already in USD.
const std::string& currency_or(const std::string& preferred, const std::string& fallback) {
  return preferred.empty() ? fallback : preferred;
}

// The mode's formula alone; native_margin applies the symbol's margin rate to it.
Money formula_margin(const Market& market, const SymbolSpec& s, double lots, double price, bool hedged) {
  const SymbolInfo& i = s.info;
  const double leverage = static_cast<double>(std::max<int64_t>(1, market.config().leverage));
  // Hedged (covered) volume (§6.1): margin_hedged replaces the per-lot money when margin_initial is
  // set, otherwise it stands in for the contract size in the mode's formula (0 = covered volume free).
  const double cs = hedged && i.margin_initial == 0 ? i.margin_hedged : i.trade_contract_size;
  const double im = hedged && i.margin_initial != 0 ? i.margin_hedged : i.margin_initial;
  const std::string& margin_ccy = currency_or(i.currency_margin, i.currency_profit);
  const std::string& profit_ccy = currency_or(i.currency_profit, i.currency_margin);
  // A non-zero margin_initial determines the margin (book §6.1): it is the money per lot in the
  // margin currency. Leverage still divides it in the leveraged modes FOREX and CFDLEVERAGE [U],
  // which keeps brokers' "margin_initial = contract size" FX setups equal to the plain formula.
  // A per-lot margin_hedged is treated the same way, so hedged/initial keeps its meaning as the
  // share of a lot's margin that covered volume costs.
  const bool per_lot = i.margin_initial != 0;
  switch (i.trade_calc_mode) {
    case mt5::SYMBOL_CALC_MODE_FOREX:
      return {lots * (per_lot ? im : cs) / leverage, &margin_ccy};
    case mt5::SYMBOL_CALC_MODE_FOREX_NO_LEVERAGE:
      return {lots * (per_lot ? im : cs), &margin_ccy};
    case mt5::SYMBOL_CALC_MODE_CFD:
    case mt5::SYMBOL_CALC_MODE_EXCH_STOCKS:
    case mt5::SYMBOL_CALC_MODE_EXCH_STOCKS_MOEX:
      // EXCH_STOCKS use the last price; the price argument stands for it.
      if (per_lot) return {lots * im, &margin_ccy};
      return {lots * cs * price, &profit_ccy};
    case mt5::SYMBOL_CALC_MODE_CFDINDEX: {
      if (per_lot) return {lots * im, &margin_ccy};
      const double ts = i.trade_tick_size;
      if (!(ts > 0)) throw TerminalError::call_failed();
      return {lots * cs * price * i.trade_tick_value / ts, &profit_ccy};
    }
    case mt5::SYMBOL_CALC_MODE_CFDLEVERAGE:
      if (per_lot) return {lots * im / leverage, &margin_ccy};
      return {lots * cs * price / leverage, &profit_ccy};
    case mt5::SYMBOL_CALC_MODE_FUTURES:
    case mt5::SYMBOL_CALC_MODE_EXCH_FUTURES:
      // Initial margin; maintenance margin is not modelled.
      return {lots * im, &margin_ccy};
    case mt5::SYMBOL_CALC_MODE_EXCH_BONDS:
    case mt5::SYMBOL_CALC_MODE_EXCH_BONDS_MOEX:
      if (per_lot) return {lots * im, &margin_ccy};
      return {lots * cs * i.trade_face_value * price / 100.0, &profit_ccy};
    case mt5::SYMBOL_CALC_MODE_EXCH_OPTIONS:
    case mt5::SYMBOL_CALC_MODE_EXCH_OPTIONS_MARGIN:
      // Not in the documented table [U]: the exchange's per-lot margin, else the premium.
      if (per_lot) return {lots * im, &margin_ccy};
      return {lots * cs * price, &profit_ccy};
    case mt5::SYMBOL_CALC_MODE_SERV_COLLATERAL:
      // Collateral carries no margin; its market value goes to assets instead.
      return {0.0, &margin_ccy};
    default:
      throw TerminalError::call_failed();
  }
}

}  // namespace

// The symbol's initial margin rate (MT5's SymbolInfoMarginRate) scales every formula, hedged legs
// included, so a 1:20 index or 1:5 share CFD is charged so in the account as well as by calc_margin.
Money native_margin(const Market& market, const SymbolSpec& s, double lots, double price, bool hedged) {
  const Money m = formula_margin(market, s, lots, price, hedged);
  return {m.amount * s.margin_rate, m.currency};
}

namespace {

Money profit_in_symbol_currency(const SymbolSpec& s, double lots, double delta) {
  const SymbolInfo& i = s.info;
  const std::string& profit_ccy = currency_or(i.currency_profit, i.currency_margin);
  switch (i.trade_calc_mode) {
    case mt5::SYMBOL_CALC_MODE_FUTURES:
    case mt5::SYMBOL_CALC_MODE_EXCH_FUTURES:
      if (i.trade_tick_size > 0) return {delta * lots * i.trade_tick_value / i.trade_tick_size, &profit_ccy};
      return {delta * i.trade_contract_size * lots, &profit_ccy};
    case mt5::SYMBOL_CALC_MODE_EXCH_BONDS:
    case mt5::SYMBOL_CALC_MODE_EXCH_BONDS_MOEX:
      // Bond prices are percent of face value; the accrued interest of the printed formula is part
      // of both legs and cancels in a P/L.
      return {delta * lots * i.trade_contract_size * i.trade_face_value / 100.0, &profit_ccy};
    case mt5::SYMBOL_CALC_MODE_SERV_COLLATERAL:
      return {0.0, &profit_ccy};  // collateral has a market value, not a P/L
    default:
      return {delta * i.trade_contract_size * lots, &profit_ccy};
  }
}

}  // namespace

bool is_buy_side(int64_t order_type) {
  switch (order_type) {
    case mt5::ORDER_TYPE_BUY:
    case mt5::ORDER_TYPE_BUY_LIMIT:
    case mt5::ORDER_TYPE_BUY_STOP:
    case mt5::ORDER_TYPE_BUY_STOP_LIMIT:
      return true;
    case mt5::ORDER_TYPE_SELL:
    case mt5::ORDER_TYPE_SELL_LIMIT:
    case mt5::ORDER_TYPE_SELL_STOP:
    case mt5::ORDER_TYPE_SELL_STOP_LIMIT:
      return false;
    default:
      throw TerminalError::invalid_params();
  }
}

double margin(const Market& market, int64_t order_type, const SymbolSpec& s, double volume, double price,
              const QuoteSource& quote) {
  const bool buy = is_buy_side(order_type);
  require_positive(volume);
  require_positive(price);
  const Money m = native_margin(market, s, volume, price, false);
  const double deposit = to_deposit(market, m.amount, *m.currency, buy ? Purpose::MarginBuy : Purpose::MarginSell,
                                    OwnPrice{&s, price}, quote);
  return round_money(deposit);
}

double profit(const Market& market, int64_t order_type, const SymbolSpec& s, double volume, double price_open,
              double price_close, const QuoteSource& quote) {
  if (order_type != mt5::ORDER_TYPE_BUY && order_type != mt5::ORDER_TYPE_SELL) throw TerminalError::invalid_params();
  require_positive(volume);
  require_positive(price_open);
  require_positive(price_close);
  const double delta = order_type == mt5::ORDER_TYPE_BUY ? price_close - price_open : price_open - price_close;
  const Money p = profit_in_symbol_currency(s, volume, delta);
  // When the symbol is itself the conversion pair its own close price converts the result (§6.3).
  const double deposit =
      to_deposit(market, p.amount, *p.currency, Purpose::Profit, OwnPrice{&s, price_close}, quote);
  return round_money(deposit);
}

}  // namespace calc

namespace {
calc::QuoteSource live_quotes(const Market& market) {
  return [&market](const SymbolSpec& s) { return market.live_tick(s); };
}
}  // namespace

double Calculator::margin(int64_t order_type, const SymbolSpec& s, double volume, double price) const {
  return calc::margin(market_, order_type, s, volume, price, live_quotes(market_));
}

double Calculator::profit(int64_t order_type, const SymbolSpec& s, double volume, double price_open,
                          double price_close) const {
  return calc::profit(market_, order_type, s, volume, price_open, price_close, live_quotes(market_));
}

}  // namespace tradeapi::sim
