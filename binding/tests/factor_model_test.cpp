// Tests of the factor model behind the simulated prices (issue 14, item 1): every cross agrees with
// its majors within the spread at any instant, and the majors correlate as in the market.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "sim/factor_model.h"
#include "sim/market.h"
#include "sim/sim_time.h"
#include "terminal/constants.h"

namespace tradeapi::sim {
namespace {

namespace m = tradeapi::mt5;

int64_t utc(int64_t y, int64_t mo, int64_t d, int64_t h = 0, int64_t mi = 0, int64_t s = 0) {
  return detail::days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

SimConfig config_at(int64_t now_s, uint64_t seed = 7) {
  SimConfig c;
  c.seed = seed;
  c.now_ms = now_s * 1000;
  c.history_start = utc(2023, 12, 1);
  return c;
}

double mid(const Tick& t) { return (t.bid + t.ask) / 2; }

struct Quote {
  double mid;
  int64_t age_ms;  // how long before the instant the quote was last updated
};

// USD value of one unit of `ccy` from the major quoting it against USD, at time t (mid prices).
Quote usd_value(const Market& mk, const std::string& ccy, int64_t t_ms) {
  if (ccy == "USD") return Quote{1.0, 0};
  if (const SymbolSpec* direct = mk.find(ccy + "USD")) {
    const Tick q = mk.tick_at(*direct, t_ms);
    return Quote{mid(q), t_ms - q.time_msc};
  }
  const Tick q = mk.tick_at(*mk.find("USD" + ccy), t_ms);
  return Quote{1.0 / mid(q), t_ms - q.time_msc};
}

// Quotes are discrete: a quote seconds old may have drifted from the others, as on any feed. So
// the spread bound applies where all three quotes are fresh (<= 2 s old), which is nearly always,
// and three spreads bound every sample.
TEST(FactorModel, CrossesAgreeWithTheMajorsWithinTheSpread) {
  for (uint64_t seed : {7ull, 20240101ull}) {
    Market mk(config_at(utc(2025, 1, 1), seed));
    int crosses = 0, samples = 0, fresh = 0;
    for (const SymbolSpec& s : mk.symbols()) {
      const SymbolInfo& i = s.info;
      if (i.trade_calc_mode != m::SYMBOL_CALC_MODE_FOREX || i.currency_base == "USD" || i.currency_profit == "USD") {
        continue;
      }
      ++crosses;
      // Instants spread over 2024's trading hours (Monday to Thursday, all sessions), odd seconds and ms.
      for (int64_t k = 0; k < 200; ++k) {
        const int64_t day = detail::days_from_civil(2024, 1, 8) + 7 * (k % 50) + k % 4;  // Mon..Thu
        const int64_t t_ms = (day * 86400 + (k * 7919) % 86400) * 1000 + (k * 379) % 1000;
        const Tick cross = mk.tick_at(s, t_ms);
        const Quote base = usd_value(mk, i.currency_base, t_ms), quote = usd_value(mk, i.currency_profit, t_ms);
        const double synthetic = base.mid / quote.mid;
        const double spread = cross.ask - cross.bid;
        const double gap = std::fabs(mid(cross) - synthetic);
        ++samples;
        EXPECT_LE(gap, 3 * spread) << i.name << " at " << t_ms << ": " << mid(cross) << " vs " << synthetic;
        if (std::max({t_ms - cross.time_msc, base.age_ms, quote.age_ms}) > 2000) continue;
        ++fresh;
        EXPECT_LE(gap, spread) << i.name << " at " << t_ms << ": " << mid(cross) << " vs " << synthetic
                               << " (spread " << spread << ")";
      }
    }
    EXPECT_EQ(crosses, 13);
    EXPECT_EQ(samples, 13 * 200);
    EXPECT_GT(fresh, samples * 6 / 10);
  }
}

// Daily log returns of the D1 closes (the last tick of each server day) over one year.
std::map<std::string, std::vector<double>> daily_returns(const Market& mk, const std::vector<std::string>& names) {
  std::map<std::string, std::vector<double>> out;
  for (const std::string& name : names) {
    const SymbolSpec& s = *mk.find(name);
    double prev = 0;
    for (int64_t day = detail::days_from_civil(2024, 1, 1); day < detail::days_from_civil(2025, 1, 1); ++day) {
      const int64_t wd = detail::weekday_of_day(day);
      if (wd == 0 || wd == 6) continue;  // every symbol here trades Monday to Friday
      const double close = mk.tick_at(s, (day + 1) * 86400 * 1000 - 1).bid;
      if (prev > 0) out[name].push_back(std::log(close / prev));
      prev = close;
    }
  }
  return out;
}

double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

// The default seed (the realised correlations of one year vary with the seed, e.g. EURUSD/GBPUSD
// 0.56-0.78 over seeds 1-10 around the model's 0.70).
TEST(FactorModel, MajorsCorrelateAsInTheMarket) {
  Market mk(config_at(utc(2025, 1, 2), SimConfig{}.seed));
  const auto r = daily_returns(mk, {"EURUSD", "GBPUSD", "USDCHF", "USDJPY", "AUDUSD", "NZDUSD", "USDCAD", "XAUUSD",
                                    "US500", "US30"});
  ASSERT_GT(r.at("EURUSD").size(), 250u);
  const double eur_gbp = correlation(r.at("EURUSD"), r.at("GBPUSD"));
  const double eur_chf = correlation(r.at("EURUSD"), r.at("USDCHF"));
  const double aud_nzd = correlation(r.at("AUDUSD"), r.at("NZDUSD"));
  const double eur_jpy = correlation(r.at("EURUSD"), r.at("USDJPY"));
  const double aud_cad = correlation(r.at("AUDUSD"), r.at("USDCAD"));
  const double eur_xau = correlation(r.at("EURUSD"), r.at("XAUUSD"));
  const double us500_us30 = correlation(r.at("US500"), r.at("US30"));
  std::printf("[ corr     ] EURUSD/GBPUSD %.2f  EURUSD/USDCHF %.2f  AUDUSD/NZDUSD %.2f  EURUSD/USDJPY %.2f  "
              "AUDUSD/USDCAD %.2f  EURUSD/XAUUSD %.2f  US500/US30 %.2f\n",
              eur_gbp, eur_chf, aud_nzd, eur_jpy, aud_cad, eur_xau, us500_us30);
  EXPECT_GT(eur_gbp, 0.55);
  EXPECT_LT(eur_gbp, 0.85);
  EXPECT_LT(eur_chf, -0.65);
  EXPECT_GT(eur_chf, -0.95);
  EXPECT_GT(aud_nzd, 0.7);
  EXPECT_LT(eur_jpy, -0.25);
  EXPECT_LT(aud_cad, -0.5);
  EXPECT_GT(eur_xau, 0.15);
  EXPECT_GT(us500_us30, 0.7);
  // Annualised volatility of EURUSD's daily returns near the model's 7.5 % (a year is a small sample).
  double ss = 0;
  for (double x : r.at("EURUSD")) ss += x * x;
  const double vol = std::sqrt(ss / static_cast<double>(r.at("EURUSD").size()) * 260.0);
  EXPECT_GT(vol, 0.04);
  EXPECT_LT(vol, 0.12);
}

TEST(FactorModel, DailyClosesAreTheD1Closes) {
  Market mk(config_at(utc(2025, 1, 2)));
  const SymbolSpec& s = *mk.find("EURGBP");
  auto cursor = mk.rates_range(s, m::TIMEFRAME_D1, utc(2024, 6, 3), utc(2024, 6, 5));
  RateColumns bars;
  ASSERT_TRUE(cursor->next(10, bars));
  ASSERT_EQ(bars.rows(), 3u);
  for (size_t b = 0; b < bars.rows(); ++b) {
    EXPECT_EQ(bars.close[b], mk.tick_at(s, (bars.time[b] + 86400) * 1000 - 1).bid);
  }
}

TEST(FactorModel, PairsAreRatiosOfCurrencyLevels) {
  EXPECT_DOUBLE_EQ(factors::usd_level("USD"), 1.0);
  EXPECT_EQ(factors::usd_level("XYZ"), 0.0);
  for (const SymbolSpec& s : symbol_catalogue()) {
    if (s.info.trade_calc_mode != m::SYMBOL_CALC_MODE_FOREX) continue;
    EXPECT_DOUBLE_EQ(s.base_price,
                     factors::usd_level(s.info.currency_base) / factors::usd_level(s.info.currency_profit))
        << s.info.name;
    EXPECT_FALSE(s.drivers.empty());
  }
  // EURUSD's drivers are EUR's; USDCHF's are CHF's negated; the dollar factor cancels in part in EURGBP.
  const auto eur = factors::currency_drivers("EUR");
  const auto usdchf = factors::pair_drivers("USD", "CHF");
  EXPECT_NEAR(factors::total_vol(eur), 0.075, 1e-12);
  EXPECT_NEAR(factors::total_vol(usdchf), 0.080, 1e-12);
  EXPECT_LT(factors::total_vol(factors::pair_drivers("EUR", "GBP")), 0.07);
}

}  // namespace
}  // namespace tradeapi::sim
