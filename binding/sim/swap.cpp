// Swap accrual at the daily rollover (swap.h).
#include "swap.h"

#include "../terminal/constants.h"
#include "calc_math.h"
#include "money.h"
#include "sim_time.h"

namespace tradeapi::sim::swap {
namespace {

constexpr int64_t kDayMs = detail::kDayS * 1000;
constexpr double kInterestDays = 360.0;  // money-market day count of the INTEREST modes

}  // namespace

int64_t rollover_days(const SymbolInfo& info, int64_t midnight_msc) {
  const int64_t weekday = detail::weekday_of_day(detail::floor_div(midnight_msc, kDayMs) - 1);
  if (weekday == info.swap_rollover3days) return 3;
  return weekday == mt5::DAY_OF_WEEK_SATURDAY || weekday == mt5::DAY_OF_WEEK_SUNDAY ? 0 : 1;
}

int64_t charge_cents(const Market& market, const SymbolSpec& s, bool buy, double volume, double price_open,
                     int64_t midnight_msc) {
  const SymbolInfo& i = s.info;
  const double rate = buy ? i.swap_long : i.swap_short;
  const int64_t days = rollover_days(i, midnight_msc);
  if (rate == 0 || days == 0) return 0;
  const calc::QuoteSource then = [&market, midnight_msc](const SymbolSpec& q) {
    return market.tick_at(q, midnight_msc);
  };
  const Tick t = market.tick_at(s, midnight_msc);
  // The price the position would close at: it values INTEREST_CURRENT and converts a result in the
  // quote currency when the symbol is its own conversion pair.
  const double current = buy ? t.bid : t.ask;
  const double n = static_cast<double>(days) * volume;
  double amount = 0;
  const std::string* currency = &i.currency_profit;
  switch (i.swap_mode) {
    case mt5::SYMBOL_SWAP_MODE_POINTS: amount = n * rate * i.point * i.trade_contract_size; break;
    case mt5::SYMBOL_SWAP_MODE_CURRENCY_SYMBOL:
      amount = n * rate;
      currency = &i.currency_base;
      break;
    case mt5::SYMBOL_SWAP_MODE_CURRENCY_MARGIN:
      amount = n * rate;
      currency = &i.currency_margin;
      break;
    case mt5::SYMBOL_SWAP_MODE_CURRENCY_DEPOSIT:
      return to_cents(n * rate);
    case mt5::SYMBOL_SWAP_MODE_INTEREST_CURRENT:
      amount = n * i.trade_contract_size * current * rate / 100.0 / kInterestDays;
      break;
    case mt5::SYMBOL_SWAP_MODE_INTEREST_OPEN:
      amount = n * i.trade_contract_size * price_open * rate / 100.0 / kInterestDays;
      break;
    default: return 0;
  }
  return to_cents(calc::to_deposit(market, amount, *currency, calc::Purpose::Profit, calc::OwnPrice{&s, current}, then));
}

int64_t accrued_cents(const Market& market, const SymbolSpec& s, bool buy, double volume, double price_open,
                      int64_t from_msc, int64_t until_msc) {
  int64_t cents = 0;
  for (int64_t m = (detail::floor_div(from_msc, kDayMs) + 1) * kDayMs; m <= until_msc; m += kDayMs)
    cents += charge_cents(market, s, buy, volume, price_open, m);
  return cents;
}

}  // namespace tradeapi::sim::swap
