// The price path of one symbol: a pure function of (seed, symbol, server minute).
//
// * Anchors: the price at the start of every minute is base_price * exp(sigma * N(m)), where N is a
//   sum of ~22 octaves of hashed value noise over the minute index (octave k: lattice every 2^k
//   minutes, linear interpolation, amplitude sqrt(2^k)). Increments of such a sum have a variance
//   roughly proportional to the lag up to ~4 years, i.e. it looks like a random walk, yet any
//   minute is computed directly without walking from the start, and the path stays around base_price.
// * Ticks: within a minute, n ticks follow a Brownian bridge (in tick-index "business time") from
//   the minute's anchor to the next minute's, so consecutive minutes join without a gap. The tick
//   count, the ms offsets and the spreads are hashes of (seed, symbol, minute, tick index).
// Prices are produced as integer points (price * 10^digits) so that bars and flags compare exactly.
#pragma once
#include <cmath>
#include <cstdint>

#include "../terminal/constants.h"
#include "hash.h"
#include "market.h"
#include "sim_time.h"

namespace tradeapi::sim::detail {

bool session_open(SessionKind kind, int64_t utc_s);

inline int64_t utc_minute_of_day(int64_t utc_s) {
  return floor_div(utc_s, 60) - floor_div(utc_s, kDayS) * kMinutesPerDay;
}

class PricePath {
 public:
  static constexpr int kMaxTicks = 1000;  // per minute; the generator keeps its scratch on the stack
  static constexpr int kOctaves = 22;     // 2^21 minutes ~ 4 years: the longest "trend" scale

  PricePath(uint64_t seed, const SymbolSpec& spec, int64_t server_utc_offset_s);

  bool open(int64_t minute) const { return session_open(session_, minute * 60 - utc_offset_s_); }
  // Offset (ms) of the minute's first tick; cheap, so "does the forming minute have a tick yet" is too.
  int64_t first_offset_ms(int64_t minute) const { return static_cast<int64_t>(minute_hash(minute) % 400); }
  double anchor(int64_t minute) const;  // unrounded price at the minute start
  // Number of ticks of an open minute (>= 1: every open minute has a bar), by time of day.
  int tick_count(int64_t minute) const {
    const double rate = ticks_per_second(utc_minute_of_day(minute * 60 - utc_offset_s_)) * activity_ *
                        (0.6 + 0.8 * unit(mix64(minute_hash(minute) ^ 0x51ull)));
    const int n = static_cast<int>(rate * 60.0);
    return n < 1 ? 1 : (n > kMaxTicks ? kMaxTicks : n);
  }
  double scale() const { return scale_; }
  bool trade_ticks() const { return trade_ticks_; }

  // Calls sink.tick(time_msc, bid, ask, last, volume, flags) for every tick of an open minute, in
  // time order; prices in integer points. a0/a1 = anchor(minute)/anchor(minute + 1), passed in so
  // that callers walking forward compute each anchor once. kTimes=false skips the timestamps
  // (time_msc is then 0): bars of a whole minute do not need them, and the gaps cost a log() each.
  template <bool kTimes, typename Sink>
  void emit(int64_t minute, double a0, double a1, Sink& sink) const;

 private:
  uint64_t minute_hash(int64_t minute) const {
    return mix64(minute_key_ + static_cast<uint64_t>(minute) * 0x9E3779B97F4A7C15ull);
  }
  double ticks_per_second(int64_t utc_minute_of_day) const;
  double spread_multiplier(int64_t utc_minute_of_day, uint64_t h) const;

  uint64_t octave_key_[kOctaves];
  uint64_t minute_key_;
  double base_, sigma_minute_, scale_, spread_points_, activity_;
  int64_t utc_offset_s_;
  SessionKind session_;
  bool trade_ticks_, spread_float_;
};

// Walks minutes forward, reusing anchor(m + 1) as the next minute's anchor(m).
class AnchorWalker {
 public:
  explicit AnchorWalker(const PricePath& path) : path_(path) {}
  void anchors(int64_t minute, double& a0, double& a1) {
    a0 = (minute == next_minute_) ? next_anchor_ : path_.anchor(minute);
    a1 = path_.anchor(minute + 1);
    next_minute_ = minute + 1;
    next_anchor_ = a1;
  }

 private:
  const PricePath& path_;
  int64_t next_minute_ = INT64_MIN;
  double next_anchor_ = 0;
};

template <bool kTimes, typename Sink>
void PricePath::emit(int64_t minute, double a0, double a1, Sink& sink) const {
  constexpr uint32_t kBid = static_cast<uint32_t>(mt5::TICK_FLAG_BID), kAsk = static_cast<uint32_t>(mt5::TICK_FLAG_ASK),
                     kLast = static_cast<uint32_t>(mt5::TICK_FLAG_LAST), kVol = static_cast<uint32_t>(mt5::TICK_FLAG_VOLUME),
                     kBuy = static_cast<uint32_t>(mt5::TICK_FLAG_BUY), kSell = static_cast<uint32_t>(mt5::TICK_FLAG_SELL);
  const uint64_t h = minute_hash(minute);
  const int64_t utc_mod = utc_minute_of_day(minute * 60 - utc_offset_s_);
  const int n = tick_count(minute);
  const double spread_base = spread_float_ ? spread_points_ * spread_multiplier(utc_mod, h) : spread_points_;
  const int64_t first_ms = first_offset_ms(minute);

  // Pass 1: the random walk w (w[0] = 0) whose end w[n] the bridge needs before the first tick,
  // the per-tick random bits, and (kTimes) the cumulated exponential gaps.
  double w[kMaxTicks + 1];
  uint64_t bits[kMaxTicks];
  double gaps[kTimes ? kMaxTicks + 1 : 1];
  w[0] = 0.0;
  double cum = 0.0;
  for (int i = 0; i < n; ++i) {
    const uint64_t b = mix64(h + static_cast<uint64_t>(i + 1) * 0xD1B54A32D192ED03ull);
    bits[i] = b;
    // Uniform step with unit variance: (u - 0.5) * sqrt(12).
    w[i + 1] = w[i] + (static_cast<double>(b & 0xFFFFFFFFull) * (1.0 / 4294967296.0) - 0.5) * 3.4641016151377544;
    if constexpr (kTimes) {
      gaps[i] = cum;  // gap before tick i (tick 0 sits at first_ms)
      cum += -std::log(unit_open0(mix64(b)));
    }
  }
  const double inv_n = 1.0 / n;
  const double a_pts = a0 * scale_;
  const double slope = (a1 - a0) * scale_ * inv_n;
  const double amp = a0 * sigma_minute_ * scale_ * std::sqrt(inv_n);
  const double w_end = w[n];
  // Ticks i >= 1 land at first_ms + i + cum_i * norm < 60000: strictly increasing, inside the minute.
  const double norm = kTimes ? static_cast<double>(kMinuteMs - 1 - first_ms - n) / (cum > 0 ? cum : 1.0) : 0.0;
  const int64_t minute_ms = minute * kMinuteMs;

  int64_t prev_bid = -1, prev_ask = -1, last = 0;
  uint32_t volume = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t b = bits[i];
    const double x = a_pts + slope * i + (w[i] - w_end * (i * inv_n)) * amp;
    const int64_t bid = static_cast<int64_t>(x + 0.5);  // x > 0: truncation rounds (std::floor is a libm call)
    const double jitter = 0.7 + 0.6 * static_cast<double>((b >> 32) & 0xFFFF) * (1.0 / 65536.0);
    int64_t spread = static_cast<int64_t>(spread_base * jitter + 0.5);
    if (spread < 1) spread = 1;
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
    int64_t msc = 0;
    if constexpr (kTimes) {
      msc = minute_ms + (i == 0 ? first_ms : first_ms + i + static_cast<int64_t>(gaps[i] * norm));
    }
    sink.tick(msc, bid, ask, last, volume, flags);
  }
}

}  // namespace tradeapi::sim::detail
