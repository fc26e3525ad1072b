// A small deterministic random source (SplitMix64). The generated account must be identical on
// every platform for one seed, so neither std:: engines' seeding nor std:: distributions (whose
// algorithms are implementation-defined) are used.
#pragma once
#include <cstdint>

namespace tradeapi::sim {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double real() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [lo, hi] (hi >= lo); the modulo bias is irrelevant at these ranges.
  int64_t between(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(next() % span);
  }
  bool chance(double p) { return real() < p; }

 private:
  uint64_t state_;
};

}  // namespace tradeapi::sim
