// MT5's margin of a hedging account for the positions of one symbol (mt5-reference §6.1; MetaTrader 5
// help "Margin calculation: hedged positions"): legs are averaged by volume, covered volume is
// charged at margin_hedged, and each position keeps the price and conversion rate of its opening,
// so that the account margin does not move with the quotes.
#include <algorithm>
#include <cmath>

#include "calc_math.h"
#include "money.h"

namespace tradeapi::sim::calc {
namespace {

// Volume-weighted sums of one side's positions.
struct Side {
  double volume = 0, price_volume = 0, rate_volume = 0;
  void add(const MarginLeg& l) {
    volume += l.volume;
    price_volume += l.price * l.volume;
    rate_volume += l.rate * l.volume;
  }
  double price() const { return volume > 0 ? price_volume / volume : 0; }
  double rate() const { return volume > 0 ? rate_volume / volume : 0; }
};

// Margin of `lots` at an average price, converted at an average rate; 0 for no volume.
double charged(const Market& market, const SymbolSpec& s, double lots, double price, double rate, bool hedged) {
  if (!(lots > 1e-12)) return 0;
  return native_margin(market, s, lots, price, hedged).amount * rate;
}

}  // namespace

double margin_rate(const Market& market, const SymbolSpec& s, bool buy, double price, const QuoteSource& quote) {
  const Money unit = native_margin(market, s, 1.0, price, false);
  return to_deposit(market, 1.0, *unit.currency, buy ? Purpose::MarginBuy : Purpose::MarginSell, OwnPrice{&s, price},
                    quote);
}

double symbol_margin(const Market& market, const SymbolSpec& s, const std::vector<MarginLeg>& legs) {
  Side buys, sells, all;
  for (const MarginLeg& l : legs) {
    (l.buy ? buys : sells).add(l);
    all.add(l);
  }
  if (s.info.margin_hedged_use_leg) {
    // margin_hedged is ignored: each leg is charged in full and only the larger one counts.
    const double buy = charged(market, s, buys.volume, buys.price(), buys.rate(), false);
    const double sell = charged(market, s, sells.volume, sells.price(), sells.rate(), false);
    return round_money(std::max(buy, sell));
  }
  const Side& larger = buys.volume >= sells.volume ? buys : sells;
  const double uncovered = std::fabs(buys.volume - sells.volume);
  const double covered = std::min(buys.volume, sells.volume);
  return round_money(charged(market, s, uncovered, larger.price(), larger.rate(), false) +
                     charged(market, s, covered, all.price(), all.rate(), true));
}

}  // namespace tradeapi::sim::calc
