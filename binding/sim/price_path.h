// The price path of one symbol: a pure function of (seed, symbol, UTC time); stamped in server time.
//
// * Factors: a symbol's log-price is log(base_price) + sum_f w_f * F_f(t) over its drivers
//   (factor_model.h). Each factor F_f is a unit random walk keyed by (seed, factor name) only, so
//   symbols that share a factor move together at every instant: crosses equal the ratio of their
//   majors, and correlations follow the loadings.
// * Anchors: a factor's value at the start of every minute is a sum of ~22 octaves of hashed value
//   noise over the minute index (octave k: lattice every 2^k minutes, linear interpolation,
//   amplitude sqrt(2^k)). Increments of such a sum have a variance roughly proportional to the lag
//   up to ~4 years, i.e. it looks like a random walk, yet any minute is computed directly without
//   walking from the start, and the path stays around base_price.
// * Within a minute, each factor follows a Brownian bridge between its anchors on a lattice of 64
//   steps (~0.94 s), interpolated linearly; a tick's price is the symbol's combination of the
//   factors at the tick's own millisecond. The tick count, the ms offsets and the spreads are
//   hashes of (seed, symbol, minute, tick index); the price sits in the middle of the spread.
// Prices are produced as integer points (price * 10^digits) so that bars and flags compare exactly.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <climits>
#include <memory>
#include <vector>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

#include "../terminal/constants.h"
#include "hash.h"
#include "exchange_calendar.h"
#include "market.h"
#include "server_clock.h"
#include "sim_time.h"

namespace tradeapi::sim::detail {

inline int64_t minute_of_day(int64_t s) {
  return floor_div(s, 60) - floor_div(s, kDayS) * kMinutesPerDay;
}

// Minutes are SERVER minutes (the stamps' clock) in the interface, as the series ask for them;
// inside, each is mapped to its true UTC minute (server_clock.h), which keys the randomness and
// the sessions, so that a broker's time zone relabels the market's ticks without changing them.
class PricePath {
 public:
  static constexpr int kMaxTicks = 1000;  // per minute; the generator keeps its scratch on the stack
  static constexpr int kOctaves = 22;     // 2^21 minutes ~ 4 years: the longest "trend" scale
  static constexpr int kSegments = 64;    // within-minute lattice of the factor bridges

  PricePath(uint64_t seed, const SymbolSpec& spec, std::shared_ptr<const ServerClock> clock);

  bool open(int64_t minute) const {
    const int64_t u = clock_->utc_minute(minute);
    return u != ServerClock::kNoMinute && session_open(session_, u * 60);
  }
  // Offset (ms) of the minute's first tick; cheap, so "does the forming minute have a tick yet" is too.
  int64_t first_offset_ms(int64_t minute) const { return static_cast<int64_t>(minute_hash(utc_of(minute)) % 400); }
  // The unrounded prices at the start and the end of a server minute (its UTC minute's ends).
  void minute_anchors(int64_t minute, double& a0, double& a1) const {
    const int64_t u = utc_of(minute);
    a0 = anchor_utc(u, nullptr);
    a1 = anchor_utc(u + 1, nullptr);
  }
  // The lattice values of one octave of one factor, kept by AnchorWalker: a cell of octave k spans
  // 2^k minutes, so walking forward recomputes almost none of them (the result is identical).
  struct OctaveCell {
    int64_t cell = INT64_MIN;
    double v0 = 0, v1 = 0;
  };
  size_t octave_cells() const { return factors_.size() * kOctaves; }
  double anchor_utc(int64_t utc_minute, OctaveCell* cells) const;
  // The UTC minute of a server minute (a skipped one maps to itself: it is never open).
  int64_t utc_of(int64_t minute) const {
    const int64_t u = clock_->utc_minute(minute);
    return u == ServerClock::kNoMinute ? minute : u;
  }
  // Number of ticks of an open minute (>= 1: every open minute has a bar), by time of day.
  int tick_count(int64_t minute) const { return tick_count_utc(utc_of(minute)); }
  int tick_count_utc(int64_t u) const {
    const double rate = ticks_per_second(u * 60) * activity_ * (0.6 + 0.8 * unit(mix64(minute_hash(u) ^ 0x51ull)));
    const int n = static_cast<int>(rate * 60.0);
    return n < 1 ? 1 : (n > kMaxTicks ? kMaxTicks : n);
  }
  double scale() const { return scale_; }
  bool trade_ticks() const { return trade_ticks_; }

  // Calls sink.tick(time_msc, bid, ask, last, volume, flags) for every tick of an open minute, in
  // time order; prices in integer points. a0/a1 = the minute's anchors (minute_anchors), passed in so
  // that callers walking forward compute each anchor once. (Timestamps are always computed: the
  // price of a tick depends on its time, which is what keeps crosses in line with the majors.)
  template <typename Sink>
  void emit(int64_t minute, double a0, double a1, Sink& sink) const;

 private:
  // emit() for symbols with (kTrades) or without exchange trades: the quote-only loop, most
  // symbols', then has no trade logic and no data-dependent branch left.
  template <bool kTrades, typename Sink>
  void emit_ticks(int64_t minute, double a0, double a1, Sink& sink) const;
  uint64_t minute_hash(int64_t utc_minute) const {
    return mix64(minute_key_ + static_cast<uint64_t>(utc_minute) * 0x9E3779B97F4A7C15ull);
  }
  double ticks_per_second(int64_t utc_s) const;
  double spread_multiplier(int64_t utc_s, uint64_t h) const;
  // dev[j], j = 0..kSegments: relative deviation of the price from the straight line between the
  // minute's anchors at j/kSegments of the minute (0 at both ends).
  void deviations(int64_t utc_minute, double* dev) const;

  struct Factor {
    uint64_t octave_key[kOctaves];
    uint64_t bridge_key;
    double weight;  // per sqrt(minute): the driver's annualised vol / sqrt(minutes per year)
  };
  std::vector<Factor> factors_;
  uint64_t minute_key_;
  double base_, scale_, spread_points_, activity_;
  std::shared_ptr<const ServerClock> clock_;
  SessionKind session_;
  bool trade_ticks_, spread_float_;
};

// Walks minutes forward, reusing the end anchor of a minute as the start of the next.
class AnchorWalker {
 public:
  explicit AnchorWalker(const PricePath& path) : path_(path), cells_(path.octave_cells()) {}
  void anchors(int64_t minute, double& a0, double& a1) {
    const int64_t u = path_.utc_of(minute);
    a0 = (u == next_minute_) ? next_anchor_ : path_.anchor_utc(u, cells_.data());
    a1 = path_.anchor_utc(u + 1, cells_.data());
    next_minute_ = u + 1;
    next_anchor_ = a1;
  }

 private:
  const PricePath& path_;
  std::vector<PricePath::OctaveCell> cells_;
  int64_t next_minute_ = INT64_MIN;
  double next_anchor_ = 0;
};

// -ln(u) for u = (low 32 bits of h + 1) / 2^32, to ~1e-4: a polynomial for log2 of the mantissa plus
// the exponent. Tick gaps only need an exponential-looking spread, and std::log costs as much as
// the rest of a tick.
inline double exp_variate(uint64_t h) {
  const double u = (static_cast<double>(h & 0xFFFFFFFFull) + 1.0) * (1.0 / 4294967296.0);
  uint64_t bits;
  std::memcpy(&bits, &u, sizeof bits);
  const double e = static_cast<double>(static_cast<int64_t>((bits >> 52) & 0x7FF) - 1023);
  bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;  // mantissa in [1, 2)
  double m;
  std::memcpy(&m, &bits, sizeof m);
  const double log2m = -1.7417939 + (2.8212026 + (-1.4699568 + (0.44717955 - 0.056570851 * m) * m) * m) * m;
  const double v = -(e + log2m) * 0.6931471805599453;
  return v > 0 ? v : 0.0;
}

// What pass 2 of PricePath::emit computes each tick's quote from (see there).
struct QuoteInputs {
  const double* gaps;
  const uint64_t* bits;
  const double* dev;
  const double* dslope;
  double norm, a_pts, slope, spread_base;
  int64_t first_ms;
};

constexpr double kSegPerMs = static_cast<double>(PricePath::kSegments) / static_cast<double>(kMinuteMs);

// Ticks [from, to): the reference computation, in 64-bit integers. Tick 0's gap is 0, so its
// offset is first_ms, as the formula gives every tick.
inline void quotes_one_by_one(const QuoteInputs& q, int from, int to, int64_t* offs, int64_t* bids, int64_t* spreads) {
  for (int i = from; i < to; ++i) {
    const int64_t off = q.first_ms + i + static_cast<int64_t>(q.gaps[i] * q.norm);
    const double pos = static_cast<double>(off) * kSegPerMs;
    const int j = static_cast<int>(pos);
    const double d = q.dev[j] + q.dslope[j] * (pos - j);
    const double mid = (q.a_pts + q.slope * static_cast<double>(off)) * (1.0 + d);
    const double jitter = 0.7 + 0.6 * static_cast<double>((q.bits[i] >> 32) & 0xFFFF) * (1.0 / 65536.0);
    int64_t spread = static_cast<int64_t>(q.spread_base * jitter + 0.5);
    if (spread < 1) spread = 1;
    // mid > spread: truncation rounds (std::floor is a libm call).
    offs[i] = off;
    spreads[i] = spread;
    bids[i] = static_cast<int64_t>(mid - 0.5 * static_cast<double>(spread) + 0.5);
  }
}

// The same, two ticks at a time with SSE2 (every x86-64 has it): the same IEEE operations in the
// same order, so the same doubles; truncations to 32 bits give what the 64-bit ones give as long
// as the value fits, and one that does not (or a NaN) comes back as INT32_MIN, which no offset,
// spread or bid of a real price is: then it returns false and the caller redoes the minute one by
// one. (The simulator's share of a big pull is mostly this arithmetic: issue 24.)
inline bool quotes_paired(const QuoteInputs& q, int n, int64_t* offs, int64_t* bids, int64_t* spreads) {
#if defined(__SSE2__) || defined(_M_X64)
  const __m128d norm = _mm_set1_pd(q.norm), seg_per_ms = _mm_set1_pd(kSegPerMs), a_pts = _mm_set1_pd(q.a_pts);
  const __m128d slope = _mm_set1_pd(q.slope), one = _mm_set1_pd(1.0), half = _mm_set1_pd(0.5);
  const __m128d c07 = _mm_set1_pd(0.7), c06 = _mm_set1_pd(0.6), inv65536 = _mm_set1_pd(1.0 / 65536.0);
  const __m128d spread_base = _mm_set1_pd(q.spread_base);
  static_assert((PricePath::kSegments & (PricePath::kSegments - 1)) == 0, "the segment mask needs a power of two");
  const __m128i ones = _mm_set1_epi32(1), bad = _mm_set1_epi32(INT32_MIN), last_segment = _mm_set1_epi32(PricePath::kSegments - 1);
  __m128i failed = _mm_setzero_si128();
  const int pairs = n & ~1;
  for (int i = 0; i < pairs; i += 2) {
    // off = first_ms + i + trunc(gap * norm), in 32 bits (< 60000)
    const __m128i k = _mm_cvttpd_epi32(_mm_mul_pd(_mm_loadu_pd(q.gaps + i), norm));
    failed = _mm_or_si128(failed, _mm_cmpeq_epi32(k, bad));
    const __m128i off = _mm_add_epi32(k, _mm_set_epi32(0, 0, static_cast<int32_t>(q.first_ms + i + 1), static_cast<int32_t>(q.first_ms + i)));
    const __m128d offd = _mm_cvtepi32_pd(off);
    const __m128d pos = _mm_mul_pd(offd, seg_per_ms);
    const __m128i j = _mm_cvttpd_epi32(pos);
    // A segment outside [0, 64) (only from inputs emit never makes, e.g. a NaN) fails the minute,
    // and the lookup below stays inside the arrays meanwhile.
    failed = _mm_or_si128(failed, _mm_or_si128(_mm_cmplt_epi32(j, _mm_setzero_si128()), _mm_cmpgt_epi32(j, last_segment)));
    const int j0 = _mm_cvtsi128_si32(j) & (PricePath::kSegments - 1);
    const int j1 = _mm_cvtsi128_si32(_mm_shuffle_epi32(j, 1)) & (PricePath::kSegments - 1);
    const __m128d dev = _mm_set_pd(q.dev[j1], q.dev[j0]), dslope = _mm_set_pd(q.dslope[j1], q.dslope[j0]);
    const __m128d d = _mm_add_pd(dev, _mm_mul_pd(dslope, _mm_sub_pd(pos, _mm_cvtepi32_pd(j))));
    const __m128d mid = _mm_mul_pd(_mm_add_pd(a_pts, _mm_mul_pd(slope, offd)), _mm_add_pd(one, d));
    const __m128i noise = _mm_set_epi32(0, 0, static_cast<int32_t>((q.bits[i + 1] >> 32) & 0xFFFF), static_cast<int32_t>((q.bits[i] >> 32) & 0xFFFF));
    const __m128d jitter = _mm_add_pd(c07, _mm_mul_pd(_mm_mul_pd(c06, _mm_cvtepi32_pd(noise)), inv65536));
    __m128i spread = _mm_cvttpd_epi32(_mm_add_pd(_mm_mul_pd(spread_base, jitter), half));
    failed = _mm_or_si128(failed, _mm_cmpeq_epi32(spread, bad));
    const __m128i below = _mm_cmplt_epi32(spread, ones);  // spread < 1: 1
    spread = _mm_or_si128(_mm_and_si128(below, ones), _mm_andnot_si128(below, spread));
    const __m128i bid = _mm_cvttpd_epi32(_mm_add_pd(_mm_sub_pd(mid, _mm_mul_pd(half, _mm_cvtepi32_pd(spread))), half));
    failed = _mm_or_si128(failed, _mm_cmpeq_epi32(bid, bad));
    offs[i] = _mm_cvtsi128_si32(off);
    offs[i + 1] = _mm_cvtsi128_si32(_mm_shuffle_epi32(off, 1));
    spreads[i] = _mm_cvtsi128_si32(spread);
    spreads[i + 1] = _mm_cvtsi128_si32(_mm_shuffle_epi32(spread, 1));
    bids[i] = _mm_cvtsi128_si32(bid);
    bids[i + 1] = _mm_cvtsi128_si32(_mm_shuffle_epi32(bid, 1));
  }
  // Only the two low lanes carry ticks (the high ones convert 0 and compare unequal to INT32_MIN).
  if ((_mm_movemask_epi8(failed) & 0xFF) != 0) return false;
  quotes_one_by_one(q, pairs, n, offs, bids, spreads);
  return true;
#else
  (void)q; (void)n; (void)offs; (void)bids; (void)spreads;
  return false;
#endif
}

template <typename Sink>
void PricePath::emit(int64_t minute, double a0, double a1, Sink& sink) const {
  if (trade_ticks_) emit_ticks<true>(minute, a0, a1, sink);
  else emit_ticks<false>(minute, a0, a1, sink);
}

template <bool kTrades, typename Sink>
void PricePath::emit_ticks(int64_t minute, double a0, double a1, Sink& sink) const {
  constexpr uint32_t kBid = static_cast<uint32_t>(mt5::TICK_FLAG_BID), kAsk = static_cast<uint32_t>(mt5::TICK_FLAG_ASK),
                     kLast = static_cast<uint32_t>(mt5::TICK_FLAG_LAST), kVol = static_cast<uint32_t>(mt5::TICK_FLAG_VOLUME),
                     kBuy = static_cast<uint32_t>(mt5::TICK_FLAG_BUY), kSell = static_cast<uint32_t>(mt5::TICK_FLAG_SELL);
  const int64_t u = utc_of(minute);
  const uint64_t h = minute_hash(u);
  const int n = tick_count_utc(u);
  const double spread_base = spread_float_ ? spread_points_ * spread_multiplier(u * 60, h) : spread_points_;
  const int64_t first_ms = static_cast<int64_t>(h % 400);

  // Pass 1: the per-tick random bits and the cumulated exponential gaps (the tick times).
  uint64_t bits[kMaxTicks];
  double gaps[kMaxTicks];
  double cum = 0.0;
  for (int i = 0; i < n; ++i) {
    const uint64_t b = mix64(h + static_cast<uint64_t>(i + 1) * 0xD1B54A32D192ED03ull);
    bits[i] = b;
    gaps[i] = cum;  // gap before tick i (tick 0 sits at first_ms)
    cum += exp_variate(b);  // the low 32 bits; the others feed the spread and the trades
  }
  double dev[kSegments + 1], dslope[kSegments];
  deviations(u, dev);
  for (int j = 0; j < kSegments; ++j) dslope[j] = dev[j + 1] - dev[j];
  const double a_pts = a0 * scale_;
  const double slope = (a1 - a0) * scale_ * (1.0 / static_cast<double>(kMinuteMs));  // points per ms
  // Ticks i >= 1 land at first_ms + i + cum_i * norm < 60000: strictly increasing, inside the minute.
  const double norm = static_cast<double>(kMinuteMs - 1 - first_ms - n) / (cum > 0 ? cum : 1.0);
  const int64_t minute_ms = minute * kMinuteMs;

  // Pass 2: every tick's time offset, bid and spread; no tick depends on another here, so two at a
  // time in SSE2 where the values fit 32 bits (always, for real prices), else one by one.
  QuoteInputs in{gaps, bits, dev, dslope, norm, a_pts, slope, spread_base, first_ms};
  int64_t offs[kMaxTicks], bids[kMaxTicks], spreads[kMaxTicks];
  if (!quotes_paired(in, n, offs, bids, spreads)) quotes_one_by_one(in, 0, n, offs, bids, spreads);

  // Pass 3: flags (against the previous tick) and the sink.
  int64_t prev_bid = -1, prev_ask = -1, last = 0;
  uint32_t volume = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t spread = spreads[i];
    const int64_t bid = bids[i];
    int64_t ask = bid + spread;
    // Whether the bid or the ask moved is a coin flip no branch predictor learns: computed with
    // arithmetic (x != y is the sign of (x - y) | (y - x); prices are far from overflow), which
    // compilers leave branch-free where they turn comparisons back into jumps (measured: 19 -> 15 ns
    // a tick). The minute's first tick sets both.
    const uint32_t bid_moved = static_cast<uint32_t>(static_cast<uint64_t>((bid - prev_bid) | (prev_bid - bid)) >> 63);
    const uint32_t ask_moved = static_cast<uint32_t>(static_cast<uint64_t>((ask - prev_ask) | (prev_ask - ask)) >> 63);
    uint32_t flags = bid_moved * kBid | ask_moved * kAsk;
    if (i == 0) flags = kBid | kAsk;
    if constexpr (kTrades) {
      const uint64_t b = bits[i];
      // Trade ticks: the first of each minute (so a minute never depends on the previous one's last
      // price) and ~40% of the others; they trade at the touch of the aggressor's side.
      const bool trade = i == 0 || ((b >> 48) & 0xFF) < 102;
      if (trade) {
        const bool buy = ((b >> 56) & 1) != 0;
        last = buy ? ask : bid;
        volume = 1 + static_cast<uint32_t>((b >> 57) & 0x7F) * static_cast<uint32_t>(1 + ((b >> 40) & 3));
        flags |= kLast | kVol | (buy ? kBuy : kSell);
      } else if (flags == 0) {
        // A quote tick always changes something: nudge the ask by a point (toward the typical spread).
        ask += spread > 1 ? -1 : 1;
        flags = kAsk;
      }
    } else {
      // The same nudge, without a branch.
      const uint32_t still = 1u - (bid_moved | ask_moved);
      ask += static_cast<int64_t>(still) * (1 - 2 * static_cast<int64_t>(spread > 1));
      flags |= still * kAsk;
    }
    prev_bid = bid;
    prev_ask = ask;
    sink.tick(minute_ms + offs[i], bid, ask, last, volume, flags);
  }
}

}  // namespace tradeapi::sim::detail
