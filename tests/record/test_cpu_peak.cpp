// test_cpu_peak.cpp — the nominal CPU peak (MFU's denominator on the CPU backend) from /proc/cpuinfo
// texts worked by hand: FLOPs per cycle from the widest vector extension × threads × clock.
#include <gtest/gtest.h>

#include "harness/record/cpu_peak.h"

using namespace scalebench::record;

TEST(CpuPeak, NominalFromCpuinfo) {
  // AVX-512 with the base clock in the model name: 64 FLOP/cycle × 2 threads × 2.2 GHz.
  const std::string skx = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 5120 CPU @ 2.20GHz\n"
                          "cpu MHz\t\t: 2999.000\nflags\t\t: fpu sse sse2 avx fma avx2 avx512f\n";
  const PeakMeasurement a = nominal_cpu_peak(skx, 2);
  EXPECT_DOUBLE_EQ(a.flops, 64 * 2 * 2.2e9);
  EXPECT_NE(a.method.find("avx512f"), std::string::npos) << a.method;
  EXPECT_NE(a.method.find("base clock from the model name"), std::string::npos) << a.method;
  // AVX2 + FMA, no clock in the name (a VM): cpuinfo's cpu MHz.
  const std::string vm = "model name\t: AMD EPYC Processor\ncpu MHz\t\t: 2500.000\nflags\t\t: sse avx avx2 fma\n";
  EXPECT_DOUBLE_EQ(nominal_cpu_peak(vm, 4).flops, 32 * 4 * 2.5e9);
  // avx2 without fma is only avx's 16; nothing wide is sse's 8.
  EXPECT_DOUBLE_EQ(nominal_cpu_peak("cpu MHz : 1000\nflags : sse avx avx2\n", 1).flops, 16 * 1e9);
  EXPECT_DOUBLE_EQ(nominal_cpu_peak("cpu MHz : 1000\nflags : sse sse2\n", 1).flops, 8 * 1e9);
  // No clock: unknown, said so (MFU is then NaN, never a guess).
  const PeakMeasurement none = nominal_cpu_peak("flags : avx512f\n", 1);
  EXPECT_EQ(none.flops, 0);
  EXPECT_NE(none.method.find("unknown"), std::string::npos);
}
