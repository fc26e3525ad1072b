// Counter-based randomness for the simulated market. Every random number is a hash of its
// coordinates (seed, symbol, minute, tick index...), never the next output of a stateful generator,
// so any moment of the price path can be recomputed in isolation and in any order.
#pragma once
#include <cstdint>
#include <string>

namespace tradeapi::sim::detail {

// splitmix64 finaliser: a cheap bijective mixer with good avalanche (Steele, Lea, Flood 2014).
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t hash2(uint64_t a, uint64_t b) { return mix64(a ^ mix64(b)); }
inline uint64_t hash3(uint64_t a, uint64_t b, uint64_t c) { return mix64(a ^ mix64(b ^ mix64(c))); }

// Stable across platforms and standard libraries (std::hash is not).
inline uint64_t hash_string(const std::string& s) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a, then mixed
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return mix64(h);
}

// Uniform in [0, 1) from the top 53 bits.
inline double unit(uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }
// Uniform in (0, 1]: safe for log().
inline double unit_open0(uint64_t h) { return (static_cast<double>(h >> 11) + 1.0) * (1.0 / 9007199254740992.0); }

// Approximately standard normal: sum of four 16-bit uniforms (Irwin-Hall), variance scaled to 1.
// Bounded tails (|z| < 3.47) are a feature here: no absurd one-off jumps in the price path.
inline double gauss(uint64_t h) {
  const double s = static_cast<double>(h & 0xFFFF) + static_cast<double>((h >> 16) & 0xFFFF) +
                   static_cast<double>((h >> 32) & 0xFFFF) + static_cast<double>(h >> 48);
  return (s * (1.0 / 65536.0) - 2.0) * 1.7320508075688772;  // sqrt(3)
}

}  // namespace tradeapi::sim::detail
