// host_fingerprint.h — the machine type a run ran on, as /context fields, and a short hash of them
// (host_fingerprint) that compare uses to tell "the code got slower" from "the machine is another
// one" (docs/results-schema.md, docs/metrics.md "Across machines").
// kHostFields below is the one list of the fingerprint's fields: capture fills them in its order,
// the hash runs over them, collect carries them, compare names those that differ.
// Every field is stable on one machine type: nothing measured during a run (the clock a run ran
// at is a noise field, run_noise.h). Deliberately not the host name: two nodes of one type share a
// fingerprint, and a baseline recorded on one holds for the other.
#pragma once

#include <string>
#include <vector>

#include "harness/record/table.h"

namespace scalebench::record {

struct HostField {
  const char* key;      // the /context attribute
  const char* meaning;  // for docs and error text
};

// The fingerprint's fields, in the order they enter the hash.
const std::vector<HostField>& host_fields();

// The /context attribute holding the hash: 8 hex digits.
inline constexpr const char* kHostFingerprintKey = "host_fingerprint";

// What the fields are read from; read_host_sources() fills it on this machine, tests by hand.
struct HostSources {
  std::string cpuinfo;           // /proc/cpuinfo
  std::string meminfo;           // /proc/meminfo
  std::string kernel_release;    // uname -r
  std::string base_khz;          // /sys/devices/system/cpu/cpu0/cpufreq/base_frequency ("" when absent)
  bool cpufreq = false;          // a cpufreq driver runs (cpuinfo's MHz then moves with load)
  std::string cg1_quota, cg1_period;  // cgroup v1 cpu.cfs_quota_us, cpu.cfs_period_us ("" when absent)
  std::string cg2_max;           // cgroup v2 cpu.max of this process's cgroup ("" when absent)
  int logical_cpus = 0;          // std::thread::hardware_concurrency
  std::vector<std::string> gpu_names;  // one per visible CUDA device
  std::string blas_core;         // OpenBLAS's core name ("" with another BLAS)
};
HostSources read_host_sources();

// The fields of kHostFields from `s` (strings, except cpu_threads, gpu_count and memory_gib:
// integers), then host_fingerprint.
Attrs host_attrs(const HostSources& s);

// The 8-hex-digit hash of the fields of kHostFields present in `a` ("key=value\n" each, in
// order; FNV-1a 64 folded to 32 bits).
std::string host_fingerprint(const Attrs& a);

// The CPU limit of cgroup v2's cpu.max ("150000 100000") or v1's quota and period: "1.5 CPUs
// (cpu.max 150000/100000)", or "none" when unlimited or unreadable.
std::string cgroup_cpu_limit(const std::string& v2_max, const std::string& v1_quota, const std::string& v1_period);

}  // namespace scalebench::record
