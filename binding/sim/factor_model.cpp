#include "factor_model.h"

#include <cmath>

namespace tradeapi::sim::factors {

namespace {

// One currency's value in USD: base level, annualised volatility, and its correlations with the
// common factors (dollar, European bloc, commodity bloc); the remainder is its own factor.
// Implied correlations of the majors (vs USD): EUR/GBP 0.70, EUR/CHF 0.83 (so EURUSD vs USDCHF
// -0.83), AUD/NZD 0.84, EUR/JPY 0.48 (EURUSD vs USDJPY -0.48), AUD/CAD 0.69 (AUDUSD vs USDCAD -0.69).
struct Currency {
  const char* code;
  double usd_level, vol, dollar, europe, commodity;
};

constexpr Currency kCurrencies[] = {
    {"EUR", 1.0850, 0.075, 0.80, 0.45, 0.00},
    {"GBP", 1.2700, 0.085, 0.70, 0.30, 0.15},
    {"CHF", 1.0 / 0.8850, 0.080, 0.75, 0.50, -0.05},
    {"JPY", 1.0 / 150.20, 0.090, 0.60, 0.00, -0.35},
    {"CAD", 1.0 / 1.3550, 0.065, 0.50, 0.00, 0.55},
    {"AUD", 0.6550, 0.100, 0.60, 0.00, 0.70},
    {"NZD", 0.6050, 0.105, 0.58, 0.00, 0.70},
};

const Currency* find(const std::string& ccy) {
  for (const Currency& c : kCurrencies) {
    if (ccy == c.code) return &c;
  }
  return nullptr;
}

void add(std::vector<Driver>& out, const std::string& factor, double vol) {
  if (vol == 0) return;
  for (Driver& d : out) {
    if (d.factor == factor) {
      d.vol += vol;
      return;
    }
  }
  out.push_back(Driver{factor, vol});
}

}  // namespace

double usd_level(const std::string& ccy) {
  if (ccy == "USD") return 1.0;
  const Currency* c = find(ccy);
  return c == nullptr ? 0.0 : c->usd_level;
}

std::vector<Driver> currency_drivers(const std::string& ccy) {
  std::vector<Driver> out;
  const Currency* c = find(ccy);
  if (c == nullptr) return out;  // USD (the numeraire) or unknown
  const double own = std::sqrt(1.0 - c->dollar * c->dollar - c->europe * c->europe - c->commodity * c->commodity);
  add(out, kDollar, c->vol * c->dollar);
  add(out, "fx:europe", c->vol * c->europe);
  add(out, "fx:commodity", c->vol * c->commodity);
  add(out, std::string("ccy:") + c->code, c->vol * own);
  return out;
}

std::vector<Driver> pair_drivers(const std::string& base, const std::string& quote) {
  std::vector<Driver> out = currency_drivers(base);
  for (const Driver& d : currency_drivers(quote)) add(out, d.factor, -d.vol);
  return out;
}

std::vector<Driver> asset_drivers(const std::string& symbol, double vol, std::initializer_list<Loading> common) {
  std::vector<Driver> out;
  double rest = 1.0;
  for (const Loading& l : common) {
    add(out, l.factor, vol * l.beta);
    rest -= l.beta * l.beta;
  }
  add(out, symbol, vol * std::sqrt(rest > 0 ? rest : 0.0));
  return out;
}

double total_vol(const std::vector<Driver>& drivers) {
  double v = 0;
  for (const Driver& d : drivers) v += d.vol * d.vol;
  return std::sqrt(v);
}

}  // namespace tradeapi::sim::factors
