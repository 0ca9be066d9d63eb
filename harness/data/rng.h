// rng.h — the data room's own small random number generator (private to harness/data).
// splitmix64 turns (seed, index, stream) into a state; xoshiro256** draws from it. We use our own
// generator and our own transforms (no std::*_distribution) because the standard distributions are
// implementation-defined: a dataset must be the same bytes whichever standard library built it.
// Not cryptographic, not thread-safe (one Rng per use), and normal() relies on libm log/cos, which
// are correctly rounded to within an ulp on every libm we know but are not bit-guaranteed by IEEE.
#pragma once

#include <cmath>
#include <cstdint>

namespace scalebench::data::detail {

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Order-sensitive hash of a few 64-bit words (each step is a bijection of the running state).
inline std::uint64_t hash_words(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  std::uint64_t s = a;
  std::uint64_t h = splitmix64(s);
  s = h ^ b;
  h = splitmix64(s);
  s = h ^ c;
  return splitmix64(s);
}

class Rng {
 public:
  // Seeded from (seed, index, stream) so that independent parts of one sample (geometry, noise)
  // draw from independent streams and tuning one does not shift the other.
  Rng(std::uint64_t seed, std::uint64_t index, std::uint64_t stream = 0) {
    std::uint64_t s = hash_words(seed, index, stream);
    for (auto& w : s_) w = splitmix64(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // Integer in [0, n) without modulo bias (rejection on the top of the range).
  std::uint64_t below(std::uint64_t n) {
    if (n <= 1) return 0;
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    std::uint64_t x;
    do x = next();
    while (x >= limit);
    return x % n;
  }
  // Integer in [lo, hi] inclusive.
  int range(int lo, int hi) { return lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo + 1))); }

  bool chance(double p) { return uniform() < p; }

  // Standard normal by Box-Muller (one value per call; the pair's twin is discarded to keep the
  // state a pure function of the number of calls).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double normal(double mean, double sigma) { return mean + sigma * normal(); }

  double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }

  // exp(N(0, sigma)): a multiplicative gain with median 1.
  double lognormal(double sigma) { return std::exp(sigma * normal()); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace scalebench::data::detail
