// The GA's source of chance: a seeded generator drawn from the same way on
// every standard library, so a seed replays the same search anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace aoe::search::ga {

class Draw {
 public:
  void seed(uint64_t seed) { rng_.seed(seed); }

  // Uniform in [0, n), n > 0. Rejection keeps it unbiased; the standard
  // distributions are free to draw differently on each library.
  uint64_t below(uint64_t n) {
    const uint64_t reject_under = (0 - n) % n;  // 2^64 mod n
    uint64_t x = rng_();
    while (x < reject_under) x = rng_();
    return x % n;
  }

  // Uniform in [0, 1) from the top 53 bits.
  double unit() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

  bool chance(double p) { return unit() < p; }

  // An index drawn in proportion to `weights` (non-empty, positive).
  size_t weighted(const std::vector<double>& weights) {
    double total = 0;
    for (double w : weights) total += w;
    double x = unit() * total;
    for (size_t i = 0; i + 1 < weights.size(); ++i) {
      if (x < weights[i]) return i;
      x -= weights[i];
    }
    return weights.size() - 1;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace aoe::search::ga
