// run_noise.cpp — the noise a run ran under, from /proc at its start and end (see run_noise.h).
#include "harness/record/run_noise.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace scalebench::record {
namespace {

std::string slurp(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; }

}  // namespace

const std::vector<std::string>& noise_fields() {
  static const std::vector<std::string> k = {"noise_load1_start",   "noise_load1_end",   "noise_running_start",
                                             "noise_running_end",   "noise_steal_frac",  "noise_others_cpu_frac",
                                             "noise_mhz_start",     "noise_mhz_end",     "noise_cpus"};
  return k;
}

NoiseSample parse_noise(const std::string& loadavg, const std::string& stat, const std::string& cpuinfo) {
  NoiseSample s;
  std::istringstream la(loadavg);
  if (double l = 0; la >> l) s.load1 = l;
  std::istringstream st(stat);
  for (std::string line; std::getline(st, line);) {
    std::istringstream w(line);
    std::string key;
    w >> key;
    if (key == "cpu") {
      // user nice system idle iowait irq softirq steal (guest time is inside user already)
      std::uint64_t v[8] = {};
      for (auto& x : v) w >> x;
      s.idle = v[3] + v[4];
      s.busy = v[0] + v[1] + v[2] + v[5] + v[6];
      s.steal = v[7];
      s.total = s.busy + s.idle + s.steal;
    } else if (key.rfind("cpu", 0) == 0 && key.size() > 3) {
      ++s.cpus;
    } else if (key == "procs_running") {
      w >> s.running;
    }
  }
  std::istringstream ci(cpuinfo);
  double sum = 0;
  int n = 0;
  for (std::string line; std::getline(ci, line);)
    if (line.rfind("cpu MHz", 0) == 0)
      if (const auto c = line.find(':'); c != std::string::npos) sum += std::atof(line.c_str() + c + 1), ++n;
  s.mean_mhz = n ? sum / n : 0;
  return s;
}

NoiseSample sample_noise() {
  NoiseSample s = parse_noise(slurp("/proc/loadavg"), slurp("/proc/stat"), slurp("/proc/cpuinfo"));
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) == 0) s.self_cpu_s = seconds(u.ru_utime) + seconds(u.ru_stime);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return s;
}

void record_noise(Attrs& c, const NoiseSample& a, const NoiseSample& b) {
  const auto known = [](double x, bool ok) { return ok ? x : kNaN; };
  c.set("noise_load1_start", known(a.load1, a.load1 >= 0));
  c.set("noise_load1_end", known(b.load1, b.load1 >= 0));
  c.set("noise_running_start", known(a.running, a.running >= 0));
  c.set("noise_running_end", known(b.running, b.running >= 0));
  const bool ticks = b.total > a.total;
  const double dt = ticks ? double(b.total - a.total) : 0;
  c.set("noise_steal_frac", known(ticks ? double(b.steal - a.steal) / dt : 0, ticks));
  // Busy CPU seconds of the whole machine minus our own, over the CPU seconds the run's wall time
  // offered: what the rest of the machine took.
  const long hz = ::sysconf(_SC_CLK_TCK);
  const double wall = b.wall_s - a.wall_s, cpus = std::max(1, b.cpus);
  const double busy_s = ticks && hz > 0 ? double(b.busy - a.busy) / double(hz) : 0;
  const double others = (busy_s - (b.self_cpu_s - a.self_cpu_s)) / (wall * cpus);
  c.set("noise_others_cpu_frac", known(std::clamp(others, 0.0, 1.0), ticks && hz > 0 && wall > 0));
  c.set("noise_mhz_start", known(a.mean_mhz, a.mean_mhz > 0));
  c.set("noise_mhz_end", known(b.mean_mhz, b.mean_mhz > 0));
  c.set("noise_cpus", known(double(b.cpus), b.cpus > 0));
}

}  // namespace scalebench::record
