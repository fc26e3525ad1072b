// Pass 2 of PricePath::emit computes each tick's offset, bid and spread two at a time with SSE2
// (issue 24). It must give exactly what the 64-bit one-by-one computation gives, and hand a minute
// back (false) only when a value does not fit 32 bits, where the caller redoes it one by one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/price_path.h"
#include "sim/rng.h"

namespace tradeapi::sim {
namespace {

using detail::PricePath;
using detail::QuoteInputs;

struct Minute {
  std::vector<double> gaps;
  std::vector<uint64_t> bits;
  std::vector<double> dev, dslope;
  QuoteInputs in{};
  int n = 0;
};

// A minute shaped as emit() shapes one: increasing gaps from 0, norm keeping offsets < 60000,
// deviations of a few percent, the price `points` and the spread `spread` in points.
Minute minute_of(Rng& rng, int n, double points, double spread) {
  Minute m;
  m.n = n;
  m.gaps.resize(static_cast<size_t>(n) + 1);
  m.bits.resize(static_cast<size_t>(n) + 1);
  double cum = 0;
  for (int i = 0; i < n; ++i) {
    m.bits[static_cast<size_t>(i)] = rng.next();
    m.gaps[static_cast<size_t>(i)] = cum;
    cum += detail::exp_variate(m.bits[static_cast<size_t>(i)]);
  }
  m.dev.resize(PricePath::kSegments + 1);
  m.dslope.resize(PricePath::kSegments);
  for (double& d : m.dev) d = (rng.real() - 0.5) * 0.04;
  for (size_t j = 0; j < m.dslope.size(); ++j) m.dslope[j] = m.dev[j + 1] - m.dev[j];
  const int64_t first_ms = rng.between(0, 399);
  const double norm = static_cast<double>(60000 - 1 - first_ms - n) / (cum > 0 ? cum : 1.0);
  const double slope = (rng.real() - 0.5) * points * 1e-7;
  m.in = QuoteInputs{m.gaps.data(), m.bits.data(), m.dev.data(), m.dslope.data(), norm, points, slope, spread, first_ms};
  return m;
}

struct Quotes {
  std::vector<int64_t> offs, bids, spreads;
  explicit Quotes(int n) : offs(static_cast<size_t>(n)), bids(static_cast<size_t>(n)), spreads(static_cast<size_t>(n)) {}
};

bool fits32(int64_t v) { return v > std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(); }

TEST(Quotes, PairedEqualsOneByOneOnRealisticMinutes) {
  Rng rng(7);
  const double prices[] = {1.08 * 1e5, 150.0 * 1e3, 2000.0 * 1e2, 60000.0 * 1e2, 38500.0, 0.6 * 1e5, 12.5};
  const double spreads[] = {0.0, 0.4, 8, 25, 2500, 250000};
  int minutes = 0;
  for (double price : prices) {
    for (double spread : spreads) {
      for (int n : {1, 2, 3, 7, 64, 151, 999, 1000}) {
        const Minute m = minute_of(rng, n, price, spread);
        Quotes paired(n), single(n);
        ASSERT_TRUE(detail::quotes_paired(m.in, n, paired.offs.data(), paired.bids.data(), paired.spreads.data()))
            << "price " << price << " spread " << spread << " n " << n;
        detail::quotes_one_by_one(m.in, 0, n, single.offs.data(), single.bids.data(), single.spreads.data());
        EXPECT_EQ(paired.offs, single.offs) << price << " " << spread << " " << n;
        EXPECT_EQ(paired.bids, single.bids) << price << " " << spread << " " << n;
        EXPECT_EQ(paired.spreads, single.spreads) << price << " " << spread << " " << n;
        EXPECT_EQ(single.offs.front(), m.in.first_ms) << "tick 0 sits at first_ms";
        ++minutes;
      }
    }
  }
  EXPECT_EQ(minutes, 7 * 6 * 8);
}

TEST(Quotes, ValuesBeyond32BitsAreHandedBack) {
  Rng rng(11);
  int handed_back = 0;
  // Around 2^31 points the pair path must either agree exactly or refuse the minute.
  for (double price : {2.0e9, 2.147e9, 2.2e9, 5.0e9, 1.0e12}) {
    for (double spread : {1.0, 1.0e10}) {
      const int n = 200;
      const Minute m = minute_of(rng, n, price, spread);
      Quotes paired(n), single(n);
      const bool ok = detail::quotes_paired(m.in, n, paired.offs.data(), paired.bids.data(), paired.spreads.data());
      detail::quotes_one_by_one(m.in, 0, n, single.offs.data(), single.bids.data(), single.spreads.data());
      bool all_fit = true;
      for (int i = 0; i < n; ++i) {
        all_fit = all_fit && fits32(single.bids[static_cast<size_t>(i)]) && fits32(single.spreads[static_cast<size_t>(i)]);
      }
      if (ok) {
        EXPECT_TRUE(all_fit) << price << " " << spread;
        EXPECT_EQ(paired.bids, single.bids) << price << " " << spread;
        EXPECT_EQ(paired.spreads, single.spreads) << price << " " << spread;
      } else {
        EXPECT_FALSE(all_fit) << "refused a minute whose values all fit: " << price << " " << spread;
        ++handed_back;
      }
    }
  }
  EXPECT_GE(handed_back, 5) << "prices of 5e9 and 1e12 points, spreads of 1e10, cannot go through 32 bits";
}

TEST(Quotes, NaNNormIsHandedBack) {
  Rng rng(3);
  Minute m = minute_of(rng, 10, 1.1e5, 8);
  m.in.norm = std::nan("");
  Quotes paired(10);
  EXPECT_FALSE(detail::quotes_paired(m.in, 10, paired.offs.data(), paired.bids.data(), paired.spreads.data()));
}

}  // namespace
}  // namespace tradeapi::sim
