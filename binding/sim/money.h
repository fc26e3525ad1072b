// Money arithmetic of the simulated account. Amounts in the deposit currency are kept to the
// account's currency digits (2): the real terminal reports them that way, and the account's
// invariants (balance = deposit + sum of deal results) must hold to the cent.
#pragma once
#include <cmath>
#include <cstdint>

namespace tradeapi::sim {

inline constexpr int kCurrencyDigits = 2;

// Rounds to the account currency's cents.
inline double round_money(double amount) { return std::round(amount * 100.0) / 100.0; }

// Whole cents, for sums that must be exact (history totals).
inline int64_t to_cents(double amount) { return static_cast<int64_t>(std::llround(amount * 100.0)); }
inline double from_cents(int64_t cents) { return static_cast<double>(cents) / 100.0; }

// Rounds a price to a symbol's digits.
inline double round_price(double price, int64_t digits) {
  const double scale = std::pow(10.0, static_cast<double>(digits));
  return std::round(price * scale) / scale;
}

// True when `value` is a whole multiple of `step` (within floating-point noise).
inline bool on_grid(double value, double step) {
  if (!(step > 0)) return true;
  const double units = value / step;
  return std::fabs(units - std::round(units)) < 1e-6;
}

}  // namespace tradeapi::sim
