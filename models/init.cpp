// init.cpp — splitmix64 counter-based normals for parameter initialisation.
#include "models/init.h"

#include <cmath>

namespace scalebench {
namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// Uniform in (0, 1]: never 0, so log() below is finite.
double unit(std::uint64_t bits) { return (double((bits >> 11) + 1)) * 0x1.0p-53; }
}  // namespace

void fill_normal(float* w, std::int64_t count, float stddev, std::uint64_t seed, std::uint64_t stream) {
  const std::uint64_t base = splitmix64(seed ^ splitmix64(stream + 0x632BE59BD9B4E019ull));
  for (std::int64_t i = 0; i < count; i += 2) {
    const double u1 = unit(splitmix64(base + 2 * std::uint64_t(i)));
    const double u2 = unit(splitmix64(base + 2 * std::uint64_t(i) + 1));
    const double r = std::sqrt(-2.0 * std::log(u1)) * stddev;
    w[i] = float(r * std::cos(2.0 * M_PI * u2));
    if (i + 1 < count) w[i + 1] = float(r * std::sin(2.0 * M_PI * u2));
  }
}

}  // namespace scalebench
