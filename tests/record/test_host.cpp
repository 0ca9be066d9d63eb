// test_host.cpp — the host fingerprint (record/host_fingerprint.h) and the noise a run ran under
// (record/run_noise.h) from synthetic /proc texts: which fields move the hash and which do not,
// the cgroup limit of v1 and v2, the base clock's sources, and the noise fields' arithmetic.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>

#include "harness/record/context.h"
#include "harness/record/host_fingerprint.h"
#include "harness/record/run_noise.h"

using namespace scalebench::record;

namespace {

// Two CPUs of one core each, as the 2-core VM of issue 47 reports them.
std::string cpuinfo(const char* mhz, const char* model = "Intel(R) Xeon(R) Processor", const char* flags = "fpu avx2 fma") {
  std::string s;
  for (int k = 0; k < 2; ++k)
    s += "processor\t: " + std::to_string(k) + "\nmodel name\t: " + model + "\ncpu MHz\t\t: " + mhz +
         "\nphysical id\t: 0\nsiblings\t: 2\ncore id\t\t: " + std::to_string(k) + "\ncpu cores\t: 2\nflags\t\t: " +
         flags + "\n\n";
  return s;
}

HostSources vm(const char* mhz) {
  HostSources s;
  s.cpuinfo = cpuinfo(mhz);
  s.meminfo = "MemTotal:       24567892 kB\nMemFree: 1 kB\n";
  s.kernel_release = "6.8.0-1";
  s.logical_cpus = 2;
  s.blas_core = "Haswell";
  return s;
}

}  // namespace

TEST(HostFingerprint, FieldsAndWhatMovesTheHash) {
  const Attrs a = host_attrs(vm("2294.608"));
  EXPECT_EQ(a.str("cpu_model"), "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(a.str("cpu_base_clock"), "2295 MHz (cpu MHz, no cpufreq driver)");
  EXPECT_EQ(a.integer("cpu_cores"), 2);
  EXPECT_EQ(a.integer("cpu_threads"), 2);
  EXPECT_EQ(a.integer("cpu_smt"), 1);
  EXPECT_EQ(a.integer("memory_gib"), 23);
  EXPECT_EQ(a.integer("gpu_count"), 0);
  EXPECT_EQ(a.str("blas_core_name"), "Haswell");
  EXPECT_EQ(a.str("cgroup_cpu_limit"), "none");
  const std::string fp = a.str("host_fingerprint");
  ASSERT_EQ(fp.size(), 8u);
  EXPECT_EQ(fp.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(host_fingerprint(a), fp);
  for (const HostField& f : host_fields()) EXPECT_TRUE(a.has(f.key)) << f.key;

  // The same model name at another fixed clock (the 2.3 vs 2.6 GHz machines): another machine type.
  EXPECT_NE(host_attrs(vm("2593.906")).str("host_fingerprint"), fp);
  // With a cpufreq driver, cpuinfo's MHz is the clock of the moment: it must not move the hash.
  HostSources busy = vm("2294.608"), idle = vm("1200.000");
  busy.cpufreq = idle.cpufreq = true;
  busy.base_khz = idle.base_khz = "2300000";
  EXPECT_EQ(host_attrs(busy).str("cpu_base_clock"), "2300 MHz (cpufreq base_frequency)");
  EXPECT_EQ(host_attrs(busy).str("host_fingerprint"), host_attrs(idle).str("host_fingerprint"));
  // Flags in another order are the same CPU; a flag hidden by the hypervisor is not.
  HostSources reordered = vm("2294.608"), hidden = vm("2294.608");
  reordered.cpuinfo = cpuinfo("2294.608", "Intel(R) Xeon(R) Processor", "fma avx2 fpu");
  hidden.cpuinfo = cpuinfo("2294.608", "Intel(R) Xeon(R) Processor", "fpu avx2");
  EXPECT_EQ(host_attrs(reordered).str("host_fingerprint"), fp);
  EXPECT_NE(host_attrs(hidden).str("host_fingerprint"), fp);
  HostSources capped = vm("2294.608"), gpu = vm("2294.608");
  capped.cg2_max = "150000 100000";
  gpu.gpu_names = {"NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)"};
  EXPECT_NE(host_attrs(capped).str("host_fingerprint"), fp);
  EXPECT_NE(host_attrs(gpu).str("host_fingerprint"), fp);
  EXPECT_EQ(host_attrs(gpu).integer("gpu_count"), 1);
  // The model name's "@ 2.20GHz" is a base clock too.
  HostSources named = vm("1000");
  named.cpuinfo = cpuinfo("1000", "Intel(R) Xeon(R) Gold 5120 CPU @ 2.20GHz");
  EXPECT_EQ(host_attrs(named).str("cpu_base_clock"), "2200 MHz (model name)");
}

TEST(HostFingerprint, CgroupLimitV1AndV2) {
  EXPECT_EQ(cgroup_cpu_limit("150000 100000", "", ""), "1.5 CPUs (cpu.max 150000/100000)");
  EXPECT_EQ(cgroup_cpu_limit("max 100000", "-1", "100000"), "none");
  EXPECT_EQ(cgroup_cpu_limit("", "95000\n", "100000\n"), "0.95 CPUs (cpu.cfs_quota_us 95000/100000)");
  EXPECT_EQ(cgroup_cpu_limit("", "", ""), "none");
}

TEST(HostFingerprint, EveryRunContextCarriesIt) {
  const Attrs c = capture_context({"scalebench", "train"});
  EXPECT_EQ(c.str("host_fingerprint").size(), 8u);
  EXPECT_EQ(c.str("host_fingerprint"), host_fingerprint(c));
  EXPECT_EQ(c.str("cpu_model"), host_attrs(read_host_sources()).str("cpu_model"));
}

TEST(RunNoise, FieldsFromTwoReadings) {
  // 2 CPUs, 100 ticks a second: over 10 s of wall time the machine was busy 1200 ticks (12 s) of
  // the 20 CPU-seconds; this process used 4 s of them, so others took 8 s: 40 %; steal 100 of 2000.
  const long hz = ::sysconf(_SC_CLK_TCK);
  ASSERT_EQ(hz, 100) << "the ticks below assume USER_HZ 100";
  NoiseSample a = parse_noise("0.50 0.40 0.30 1/100 42\n",
                              "cpu  1000 0 0 5000 0 0 0 0 0 0\ncpu0 500 0 0 2500 0 0 0 0\ncpu1 500 0 0 2500 0 0 0 0\n"
                              "procs_running 2\n",
                              cpuinfo("2100.000"));
  NoiseSample b = parse_noise("3.25 1.0 0.5 5/100 43\n",
                              "cpu  2000 100 100 5600 100 0 0 100 0 0\ncpu0 1 0 0 1 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0\n"
                              "procs_running 5\n",
                              cpuinfo("1900.000"));
  EXPECT_EQ(a.cpus, 2);
  EXPECT_EQ(a.running, 2);
  EXPECT_DOUBLE_EQ(a.load1, 0.5);
  EXPECT_DOUBLE_EQ(b.mean_mhz, 1900);
  a.wall_s = 100, b.wall_s = 110;
  a.self_cpu_s = 1, b.self_cpu_s = 5;
  Attrs c;
  record_noise(c, a, b);
  for (const std::string& k : noise_fields()) EXPECT_TRUE(c.has(k)) << k;
  EXPECT_DOUBLE_EQ(c.num("noise_load1_start"), 0.5);
  EXPECT_DOUBLE_EQ(c.num("noise_load1_end"), 3.25);
  EXPECT_DOUBLE_EQ(c.num("noise_running_end"), 5);
  EXPECT_DOUBLE_EQ(c.num("noise_steal_frac"), 100.0 / 2000);
  EXPECT_NEAR(c.num("noise_others_cpu_frac"), 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(c.num("noise_mhz_start"), 2100);
  EXPECT_DOUBLE_EQ(c.num("noise_mhz_end"), 1900);
  // Unreadable /proc: NaN, not zeros that read as "a quiet machine".
  Attrs none;
  record_noise(none, NoiseSample{}, NoiseSample{});
  EXPECT_TRUE(std::isnan(none.num("noise_load1_start")));
  EXPECT_TRUE(std::isnan(none.num("noise_others_cpu_frac")));
}
