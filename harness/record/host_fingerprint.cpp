// host_fingerprint.cpp — the machine type's fields and their hash (see host_fingerprint.h).
#include "harness/record/host_fingerprint.h"

#include <sys/utsname.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "kernels/cpu/blas_core.h"
#include "kernels/cuda/device.h"  // CUDA builds: kernels/cuda; others: kernels/nocuda (no device)

namespace scalebench::record {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// "key : value" lines of /proc/cpuinfo, in order (one entry per CPU and key).
std::vector<std::pair<std::string, std::string>> cpuinfo_pairs(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos) out.emplace_back(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
  }
  return out;
}

std::string first(const std::vector<std::pair<std::string, std::string>>& kv, const std::string& key) {
  for (const auto& [k, v] : kv)
    if (k == key) return v;
  return "";
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex8(std::uint64_t h) { return fmt::format("{:08x}", std::uint32_t(h ^ (h >> 32))); }

// The flags as a sorted set (the kernel's order is its own), hashed: a hypervisor that hides
// AVX-512 gives another fingerprint although the model name is the same.
std::string flags_hash(const std::string& flags) {
  std::set<std::string> words;
  std::istringstream in(flags);
  for (std::string w; in >> w;) words.insert(w);
  if (words.empty()) return "unknown";
  std::string canon;
  for (const auto& w : words) canon += w + " ";
  return hex8(fnv1a(canon));
}

// The base (nominal) clock: cpufreq's base_frequency, else the "@ 2.20GHz" of the model name, else
// cpuinfo's "cpu MHz" when no cpufreq driver moves it (a VM reports its fixed TSC rate there: the
// 2.3 vs 2.6 GHz machines of issue 47 differed only in it).
std::string base_clock(const HostSources& s, const std::string& model, const std::string& cpu_mhz) {
  if (const double khz = std::atof(s.base_khz.c_str()); khz > 0)
    return fmt::format("{:.0f} MHz (cpufreq base_frequency)", khz / 1000);
  std::smatch m;
  if (std::regex_search(model, m, std::regex(R"(@\s*([0-9.]+)\s*GHz)")))
    return fmt::format("{:.0f} MHz (model name)", std::atof(m[1].str().c_str()) * 1000);
  if (!s.cpufreq && std::atof(cpu_mhz.c_str()) > 0)
    return fmt::format("{:.0f} MHz (cpu MHz, no cpufreq driver)", std::atof(cpu_mhz.c_str()));
  return "unknown";
}

}  // namespace

const std::vector<HostField>& host_fields() {
  static const std::vector<HostField> k = {
      {"cpu_model", "CPU model name (/proc/cpuinfo)"},
      {"cpu_flags_hash", "8-hex hash of the sorted CPU feature flags"},
      {"cpu_base_clock", "base clock and where it was read"},
      {"cpu_cores", "physical cores (distinct physical id, core id)"},
      {"cpu_threads", "logical CPUs"},
      {"cpu_smt", "hardware threads per core"},
      {"memory_gib", "MemTotal, rounded to GiB"},
      {"gpu_names", "the visible CUDA devices' names, ; -separated"},
      {"gpu_count", "visible CUDA devices"},
      {"blas_core_name", "OpenBLAS's core (kernel set) name, none with another BLAS"},
      {"kernel_release", "uname -r"},
      {"cgroup_cpu_limit", "the cgroup CPU quota (v2 cpu.max, v1 cfs quota/period), none when unlimited"},
  };
  return k;
}

std::string cgroup_cpu_limit(const std::string& v2_max, const std::string& v1_quota, const std::string& v1_period) {
  std::istringstream v2(v2_max);
  std::string quota, period;
  if (v2 >> quota >> period && quota != "max" && std::atof(quota.c_str()) > 0 && std::atof(period.c_str()) > 0)
    return fmt::format("{:g} CPUs (cpu.max {}/{})", std::atof(quota.c_str()) / std::atof(period.c_str()), quota,
                       period);
  const double q = std::atof(v1_quota.c_str()), p = std::atof(v1_period.c_str());
  if (q > 0 && p > 0)
    return fmt::format("{:g} CPUs (cpu.cfs_quota_us {}/{})", q / p, trim(v1_quota), trim(v1_period));
  return "none";
}

Attrs host_attrs(const HostSources& s) {
  const auto kv = cpuinfo_pairs(s.cpuinfo);
  const std::string model = first(kv, "model name");
  std::set<std::pair<std::string, std::string>> cores;
  std::string phys;
  int processors = 0;
  for (const auto& [k, v] : kv) {
    if (k == "processor") ++processors;
    if (k == "physical id") phys = v;
    if (k == "core id") cores.insert({phys, v});
  }
  const int ncores = cores.empty() ? processors : int(cores.size());
  const int threads = s.logical_cpus > 0 ? s.logical_cpus : processors;
  std::string mem = "unknown";
  {
    std::istringstream in(s.meminfo);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("MemTotal:", 0) == 0) mem = line;
  }
  const double kib = std::atof(mem.c_str() + (mem == "unknown" ? 0 : 9));
  std::string gpus;
  for (const auto& g : s.gpu_names) gpus += (gpus.empty() ? "" : "; ") + g;
  Attrs a;
  a.set("cpu_model", model.empty() ? "unknown" : model);
  a.set("cpu_flags_hash", flags_hash(first(kv, "flags").empty() ? first(kv, "Features") : first(kv, "flags")));
  a.set("cpu_base_clock", base_clock(s, model, first(kv, "cpu MHz")));
  a.set("cpu_cores", ncores);
  a.set("cpu_threads", threads);
  a.set("cpu_smt", ncores > 0 && processors > 0 ? std::max(1, processors / ncores) : 1);
  a.set("memory_gib", std::int64_t(std::llround(kib / (1024.0 * 1024.0))));
  a.set("gpu_names", gpus);
  a.set("gpu_count", int(s.gpu_names.size()));
  a.set("blas_core_name", s.blas_core.empty() ? "none" : s.blas_core);
  a.set("kernel_release", s.kernel_release.empty() ? "unknown" : s.kernel_release);
  a.set("cgroup_cpu_limit", cgroup_cpu_limit(s.cg2_max, s.cg1_quota, s.cg1_period));
  a.set(kHostFingerprintKey, host_fingerprint(a));
  return a;
}

std::string host_fingerprint(const Attrs& a) {
  std::string canon;
  for (const HostField& f : host_fields())
    if (a.has(f.key)) canon += std::string(f.key) + "=" + a.str(f.key) + "\n";
  return hex8(fnv1a(canon));
}

HostSources read_host_sources() {
  HostSources s;
  s.cpuinfo = slurp("/proc/cpuinfo");
  s.meminfo = slurp("/proc/meminfo");
  utsname u{};
  if (::uname(&u) == 0) s.kernel_release = u.release;
  const std::string freq = "/sys/devices/system/cpu/cpu0/cpufreq/";
  s.cpufreq = std::ifstream(freq + "scaling_cur_freq").good();
  s.base_khz = trim(slurp(freq + "base_frequency"));
  // This process's cgroup (/proc/self/cgroup: "0::/path" on v2, "N:cpu,cpuacct:/path" on v1).
  std::istringstream cg(slurp("/proc/self/cgroup"));
  std::string v2_path, v1_path;
  for (std::string line; std::getline(cg, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctl = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (ctl.empty()) v2_path = path;
    if ((","+ctl+",").find(",cpu,") != std::string::npos) v1_path = path;
  }
  // The tightest limit on the way from this cgroup up to the mount's root: a Slurm job's quota sits
  // on the job's cgroup, above the step's that holds the process.
  double tightest = INFINITY;
  const auto cpus = [](const std::string& quota, const std::string& period) {
    const double q = std::atof(quota.c_str()), p = std::atof(period.c_str());
    return q > 0 && p > 0 ? q / p : INFINITY;
  };
  for (std::filesystem::path p = "/sys/fs/cgroup" + v2_path;; p = p.parent_path()) {
    std::istringstream max(slurp((p / "cpu.max").string()));
    std::string q, per;
    if (max >> q >> per && cpus(q, per) < tightest) tightest = cpus(q, per), s.cg2_max = q + " " + per;
    if (p == "/sys/fs/cgroup" || !p.has_relative_path() || p == p.parent_path()) break;
  }
  for (const std::string root : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"})
    for (std::filesystem::path p = root + v1_path;; p = p.parent_path()) {
      const std::string q = trim(slurp((p / "cpu.cfs_quota_us").string()));
      const std::string per = trim(slurp((p / "cpu.cfs_period_us").string()));
      if (cpus(q, per) < tightest) tightest = cpus(q, per), s.cg1_quota = q, s.cg1_period = per;
      if (p == root || !p.has_relative_path() || p == p.parent_path()) break;
    }
  s.logical_cpus = int(std::thread::hardware_concurrency());
  for (int k = 0, n = cuda::device_availability().count; k < n; ++k) s.gpu_names.push_back(cuda::device_description(k));
  s.blas_core = cpu::blas_core();
  return s;
}

}  // namespace scalebench::record
