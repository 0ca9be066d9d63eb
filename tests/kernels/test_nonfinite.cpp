// test_nonfinite.cpp — cpu::first_nonfinite (the gradient scan and input checks) against a plain
// loop: every size around the scan's 1024-value blocks, a hit at each block edge, the first of
// several hits, and values that are finite however extreme (largest, smallest subnormal, -0).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/nonfinite.h"

namespace scalebench::cpu {
namespace {

std::int64_t plain_first(const std::vector<float>& x) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i])) return std::int64_t(i);
  return -1;
}

TEST(NonFinite, FiniteExtremesAreNotFlagged) {
  std::vector<float> x(3000, 1.0f);
  x[5] = std::numeric_limits<float>::max();
  x[6] = -std::numeric_limits<float>::max();
  x[7] = std::numeric_limits<float>::denorm_min();
  x[8] = -0.0f;
  EXPECT_EQ(first_nonfinite(x.data(), std::int64_t(x.size())).index, -1);
  EXPECT_EQ(first_nonfinite(x.data(), 0).index, -1);
}

TEST(NonFinite, FindsTheFirstAtEveryBlockEdge) {
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::quiet_NaN()};
  for (std::int64_t n : {1, 2, 17, 1023, 1024, 1025, 2047, 2048, 2049, 5000}) {
    for (std::int64_t at : {std::int64_t(0), std::int64_t(1), std::int64_t(1023), std::int64_t(1024),
                            std::int64_t(2048), n / 2, n - 1}) {
      if (at >= n) continue;
      for (const float v : bad) {
        std::vector<float> x(std::size_t(n), 0.5f);
        x[std::size_t(at)] = v;
        if (at + 3 < n) x[std::size_t(at + 3)] = std::numeric_limits<float>::infinity();  // a later hit
        const NonFinite nf = first_nonfinite(x.data(), n);
        ASSERT_EQ(nf.index, plain_first(x)) << "n " << n << " at " << at;
        EXPECT_EQ(std::isnan(nf.value), std::isnan(v));
        if (!std::isnan(v)) {
          EXPECT_EQ(nf.value, v);
        }
      }
    }
  }
}

}  // namespace
}  // namespace scalebench::cpu
