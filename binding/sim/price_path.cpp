#include "price_path.h"

#include <array>

namespace tradeapi::sim::detail {

namespace {
constexpr int64_t kHour = 60;  // in minutes of day

// How busy a symbol is relative to the majors; the spec has no such field, so it is inferred.
double activity_of(const SymbolSpec& s) {
  const std::string& name = s.info.name;
  switch (s.session) {
    case SessionKind::Forex: return name.find("USD") != std::string::npos ? 1.0 : 0.6;
    case SessionKind::Metal: return name.rfind("XAU", 0) == 0 ? 1.0 : 0.5;
    case SessionKind::IndexUS:
    case SessionKind::IndexDE:
    case SessionKind::IndexUK: return 0.8;
    case SessionKind::Stock: return 0.8;
    case SessionKind::Crypto: return name.rfind("BTC", 0) == 0 ? 1.0 : 0.6;
  }
  return 1.0;
}
// sqrt(2^k): the amplitude of octave k.
const auto kOctaveAmplitude = [] {
  std::array<double, PricePath::kOctaves> a{};
  for (int k = 0; k < PricePath::kOctaves; ++k) a[static_cast<size_t>(k)] = std::sqrt(static_cast<double>(int64_t{1} << k));
  return a;
}();
// 2^-k, exactly.
const auto kInverseCellMinutes = [] {
  std::array<double, PricePath::kOctaves> a{};
  for (int k = 0; k < PricePath::kOctaves; ++k) a[static_cast<size_t>(k)] = 1.0 / static_cast<double>(int64_t{1} << k);
  return a;
}();
static_assert((int64_t{-1} >> 1) == -1, "the octave cells need an arithmetic right shift");
}  // namespace

PricePath::PricePath(uint64_t seed, const SymbolSpec& spec, std::shared_ptr<const ServerClock> clock)
    : base_(spec.base_price),
      scale_(1.0),
      spread_points_(spec.spread_points),
      activity_(activity_of(spec)),
      clock_(std::move(clock)),
      session_(spec.session),
      trade_ticks_(spec.trade_ticks),
      spread_float_(spec.info.spread_float) {
  const std::vector<Driver> drivers =
      spec.drivers.empty() ? std::vector<Driver>{Driver{spec.info.name, spec.volatility}} : spec.drivers;
  const double per_minute = 1.0 / std::sqrt(365.0 * 1440.0);
  for (const Driver& d : drivers) {
    // Keyed by the factor's name only: every symbol driven by it sees the same path.
    const uint64_t key = hash2(seed, hash_string(d.factor));
    Factor f{};
    for (int k = 0; k < kOctaves; ++k) f.octave_key[k] = hash2(key, static_cast<uint64_t>(k) + 1000);
    f.bridge_key = hash2(key, 11);
    f.weight = d.vol * per_minute;
    factors_.push_back(f);
  }
  minute_key_ = hash2(hash2(seed, hash_string(spec.info.name)), 7);
  // Exact power of ten: bid_points / scale_ is then the double nearest to the decimal price.
  for (int64_t d = 0; d < spec.info.digits; ++d) scale_ *= 10.0;
}

double PricePath::anchor_utc(int64_t minute, OctaveCell* cells) const {
  double log_move = 0.0;
  for (size_t fi = 0; fi < factors_.size(); ++fi) {
    const Factor& f = factors_[fi];
    double sum = 0.0;
    for (int k = 0; k < kOctaves; ++k) {
      // A cell of octave k spans 2^k minutes: the floor division is a shift (arithmetic, so floor
      // for times before 1970 too) and the fraction a multiplication by 2^-k, both exact (what
      // floor_div and a division by 2^k gave; they were most of anchor_utc's time).
      const int64_t cell = minute >> k;
      OctaveCell local;
      OctaveCell& c = cells != nullptr ? cells[fi * kOctaves + static_cast<size_t>(k)] : local;
      if (c.cell != cell) {
        c.cell = cell;
        c.v0 = gauss(mix64(f.octave_key[k] + static_cast<uint64_t>(cell) * 0x9E3779B97F4A7C15ull));
        c.v1 = gauss(mix64(f.octave_key[k] + static_cast<uint64_t>(cell + 1) * 0x9E3779B97F4A7C15ull));
      }
      const double frac = static_cast<double>(minute - (cell << k)) * kInverseCellMinutes[static_cast<size_t>(k)];
      sum += kOctaveAmplitude[static_cast<size_t>(k)] * (c.v0 + (c.v1 - c.v0) * frac);
    }
    // Summed octaves give an increment variance of ~8 per minute of lag; normalise to 1.
    log_move += f.weight * sum * 0.35355339059327373;
  }
  return base_ * std::exp(log_move);
}

void PricePath::deviations(int64_t minute, double* dev) const {
  // Steps of variance 1/kSegments, so each bridge has the variance of one minute of its walk;
  // uniform steps ((u - 0.5) * sqrt(12)), four 16-bit draws per hash. The factors' steps are
  // weighted and summed first, then walked and bridged once (the bridge is linear in the walk):
  // one dependent chain of additions per minute instead of one per factor.
  constexpr double kStep = 3.4641016151377544 / 8.0 / 65536.0;  // sqrt(12) / sqrt(64), per 16-bit unit
  static_assert(kSegments == 64, "kStep assumes 64 segments");
  double step[kSegments] = {};
  for (const Factor& f : factors_) {
    const uint64_t fh = mix64(f.bridge_key + static_cast<uint64_t>(minute) * 0x9E3779B97F4A7C15ull);
    const double w = f.weight * kStep;
    for (int q = 0; q < kSegments / 4; ++q) {
      const uint64_t b = mix64(fh + static_cast<uint64_t>(q + 1) * 0xD1B54A32D192ED03ull);
      for (int r = 0; r < 4; ++r) step[4 * q + r] += w * (static_cast<double>((b >> (16 * r)) & 0xFFFF) - 32767.5);
    }
  }
  double walk = 0.0;
  dev[0] = 0.0;
  for (int j = 0; j < kSegments; ++j) {
    walk += step[j];
    dev[j + 1] = walk;
  }
  const double end = walk * (1.0 / kSegments);
  for (int j = 1; j <= kSegments; ++j) dev[j] -= end * j;
}

// Tick intensity by time of day: quiet late New York / early Asia, busy London and the
// London-New York overlap (per second, for a major; scaled by activity_), by UTC; shares are
// busiest in their first hour, by New York time.
double PricePath::ticks_per_second(int64_t utc_s) const {
  if (session_ == SessionKind::Stock) {
    return minute_of_day(utc_s + new_york_offset_s(utc_s)) < 10 * kHour + 30 ? 5.0 : 3.0;
  }
  const int64_t mod = minute_of_day(utc_s);
  if (session_ == SessionKind::Crypto) return (mod >= 13 * kHour && mod < 21 * kHour) ? 2.2 : 1.2;
  if (mod < 7 * kHour) return 0.8;    // Tokyo / Sydney
  if (mod < 12 * kHour) return 3.0;   // London
  if (mod < 16 * kHour) return 5.0;   // London + New York
  if (mod < 21 * kHour) return 2.5;   // New York
  return 0.35;                        // after the New York close
}

// Spreads widen 3-5x around the 17:00 New York rollover (liquidity providers step back), a little
// in Asian hours, and for shares in the first minutes after the open.
double PricePath::spread_multiplier(int64_t utc_s, uint64_t h) const {
  if (session_ == SessionKind::Crypto) return 1.0;
  const int64_t ny_mod = minute_of_day(utc_s + new_york_offset_s(utc_s));
  if (session_ == SessionKind::Stock) return ny_mod < 9 * kHour + 40 ? 2.0 : 1.0;
  const bool rollover = ny_mod >= 16 * kHour + 55 && ny_mod < 17 * kHour + 10;
  if (rollover) return 3.0 + 2.0 * unit(mix64(h ^ 0x5AEull));
  if (minute_of_day(utc_s) < 7 * kHour) return 1.3;
  return 1.0;
}

}  // namespace tradeapi::sim::detail
