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
#include <memory>
#include <vector>

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

template <typename Sink>
void PricePath::emit(int64_t minute, double a0, double a1, Sink& sink) const {
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
  constexpr double kSegPerMs = static_cast<double>(kSegments) / static_cast<double>(kMinuteMs);
  // Ticks i >= 1 land at first_ms + i + cum_i * norm < 60000: strictly increasing, inside the minute.
  const double norm = static_cast<double>(kMinuteMs - 1 - first_ms - n) / (cum > 0 ? cum : 1.0);
  const int64_t minute_ms = minute * kMinuteMs;

  int64_t prev_bid = -1, prev_ask = -1, last = 0;
  uint32_t volume = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t b = bits[i];
    const int64_t off = i == 0 ? first_ms : first_ms + i + static_cast<int64_t>(gaps[i] * norm);
    const double pos = static_cast<double>(off) * kSegPerMs;
    const int j = static_cast<int>(pos);
    const double d = dev[j] + dslope[j] * (pos - j);
    const double mid = (a_pts + slope * static_cast<double>(off)) * (1.0 + d);
    const double jitter = 0.7 + 0.6 * static_cast<double>((b >> 32) & 0xFFFF) * (1.0 / 65536.0);
    int64_t spread = static_cast<int64_t>(spread_base * jitter + 0.5);
    if (spread < 1) spread = 1;
    // mid > spread: truncation rounds (std::floor is a libm call).
    const int64_t bid = static_cast<int64_t>(mid - 0.5 * static_cast<double>(spread) + 0.5);
    int64_t ask = bid + spread;
    uint32_t flags = 0;
    if (i == 0) {
      flags = kBid | kAsk;
    } else {
      if (bid != prev_bid) flags |= kBid;
      if (ask != prev_ask) flags |= kAsk;
    }
    // Trade ticks: the first of each minute (so a minute never depends on the previous one's last
    // price) and ~40% of the others; they trade at the touch of the aggressor's side.
    const bool trade = trade_ticks_ && (i == 0 || ((b >> 48) & 0xFF) < 102);
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
    prev_bid = bid;
    prev_ask = ask;
    sink.tick(minute_ms + off, bid, ask, last, volume, flags);
  }
}

}  // namespace tradeapi::sim::detail
