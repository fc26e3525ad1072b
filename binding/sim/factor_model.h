// The factor model behind the simulated prices. Every price is driven by a few named random
// factors (each an independent unit random walk, see price_path.h); a symbol's log-price is
// log(base) + the sum of its drivers' weights times their factors. Currencies are modelled as
// their value in US dollars, loading on common factors (a dollar factor, a European bloc, a
// commodity bloc) plus one factor of their own; an FX pair BASE/QUOTE is then value(BASE) /
// value(QUOTE), so its drivers are BASE's minus QUOTE's. Because the factors are shared, crosses
// equal the product/ratio of the majors at every instant (up to rounding and the spread), and the
// majors correlate as in the market (EURUSD/GBPUSD strongly positive, EURUSD/USDCHF strongly
// negative). Metals ride on the dollar factor, indices and stocks on a global equity factor.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

namespace tradeapi::sim {

struct Driver {
  std::string factor;  // the factor's name: the same name is the same random path for every symbol
  double vol = 0;      // annualised volatility (log-price) this factor contributes; signed
};

namespace factors {

// USD value of one unit of `ccy` at the model's base levels; 0 when the currency is not modelled.
double usd_level(const std::string& ccy);
// Drivers of the log USD value of `ccy` (empty for USD, the numeraire).
std::vector<Driver> currency_drivers(const std::string& ccy);
// Drivers of the FX pair base/quote: base's minus quote's, merged by factor.
std::vector<Driver> pair_drivers(const std::string& base, const std::string& quote);
// A non-FX asset: loadings (correlations) on common factors, the rest on a factor of its own named
// after the symbol; the total volatility stays `vol`.
struct Loading {
  const char* factor;
  double beta;
};
std::vector<Driver> asset_drivers(const std::string& symbol, double vol, std::initializer_list<Loading> common);

// Annualised volatility of a combination of independent factors.
double total_vol(const std::vector<Driver>& drivers);

inline const char* const kDollar = "fx:usd";      // broad dollar weakness: every currency up vs USD
inline const char* const kEquity = "eq:global";   // global equity risk

}  // namespace factors
}  // namespace tradeapi::sim
