// netmodel.cpp — alpha-beta costs, profiles and the commbench fit (see netmodel.h).
#include "harness/study/project/netmodel.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "kernels/common/check.h"

namespace scalebench::project {
namespace {

// What a ring of n ranks costs one rank on `link`: 2(n-1) messages and 2(n-1)/n x bytes each way.
struct Cost { double per_msg, per_byte; };
Cost time_cost(const AlphaBeta& l) { return {l.alpha_s, 1.0 / l.bytes_per_s}; }
Cost cpu_cost(const AlphaBeta& l) { return {l.cpu_per_msg_s, l.cpu_per_byte_s}; }

double ring_cost(int n, double bytes, Cost c) {
  if (n <= 1) return 0;
  return 2.0 * (n - 1) * c.per_msg + 2.0 * (n - 1) / n * bytes * c.per_byte;
}

// (x, y) least squares: {slope, intercept}.
std::pair<double, double> fit_line(const std::vector<std::pair<double, double>>& xy) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (auto [x, y] : xy) sx += x, sy += y, sxx += x * x, sxy += x * y;
  const double k = double(xy.size()), slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
  return {slope, (sy - slope * sx) / k};
}

// allreduce cost of `kind` with a per-link cost (time or CPU); see allreduce_time.
double allreduce_cost(StrategyKind kind, int n, double bytes, const Network& net, Cost (*cost)(const AlphaBeta&)) {
  if (n <= 1) return 0;
  const int ppn = std::max(1, net.ranks_per_node);
  const int nodes = (n + ppn - 1) / ppn;
  if (kind == StrategyKind::hierarchical) {
    const int local = std::min(ppn, n);
    const Cost in = cost(net.intra);
    const double chain = local > 1 ? 2.0 * ((local - 1) * in.per_msg + bytes * in.per_byte) : 0.0;
    return chain + ring_cost(nodes, bytes, cost(net.inter));
  }
  // One ring over every rank: its slowest edge sets each step (a network edge once there are 2+ nodes).
  return ring_cost(n, bytes, cost(nodes > 1 ? net.inter : net.intra));
}

}  // namespace

AlphaBeta profile(const std::string& name) {
  // rate in bit/s, latency per message; the same named networks as tools/cluster/common.sh.
  struct P { const char* name; double bits, alpha_us; };
  static const P kProfiles[] = {{"100mbe", 100e6, 100}, {"1gbe", 1e9, 50}, {"10gbe", 10e9, 20},
                                {"25gbe", 25e9, 10}, {"100gib", 100e9, 2}};
  for (const auto& p : kProfiles)
    if (name == p.name) return {p.alpha_us * 1e-6, p.bits / 8, "profile " + name};
  SB_REQUIRE(false, "--network '{}': unknown profile (known: 100mbe, 1gbe, 10gbe, 25gbe, 100gib)", name);
  return {};
}

AlphaBeta fit_commbench(const std::string& path, const std::string& algo) {
  std::ifstream f(path);
  SB_REQUIRE(f.good(), "--commbench: cannot read {}", path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  std::smatch m;
  SB_REQUIRE(std::regex_search(text, m, std::regex(R"re("ranks": (\d+))re")),
             "--commbench {}: no \"ranks\" (not a commbench --json file)", path);
  const int n = std::stoi(m[1]);
  SB_REQUIRE(n >= 2, "--commbench {}: {} rank(s); a fit needs a run of 2 or more", path, n);
  std::vector<std::pair<double, double>> xy, cpu;  // (2(n-1)/n bytes, seconds), (the same, CPU seconds)
  const std::regex row(R"re(\{"algo": "([a-z]+)", "bytes": (\d+), "count": \d+, "time_us": ([0-9.eE+-]+)[^}]*)re");
  const std::regex cpu_us(R"re("cpu_us": ([0-9.eE+-]+))re");
  std::smatch c;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator(); ++it) {
    if ((*it)[1] != algo) continue;
    const double x = 2.0 * (n - 1) / n * std::stod((*it)[2]);
    xy.emplace_back(x, std::stod((*it)[3]) * 1e-6);
    const std::string rest = (*it)[0];
    if (std::regex_search(rest, c, cpu_us)) cpu.emplace_back(x, std::stod(c[1]) * 1e-6);
  }
  SB_REQUIRE(xy.size() >= 2, "--commbench {}: {} size(s) of algorithm {}; the fit needs 2 or more", path, xy.size(), algo);
  const auto [slope, intercept] = fit_line(xy);
  SB_REQUIRE(slope > 0, "--commbench {}: the fit of {} gives no positive bandwidth (time does not grow with size)", path, algo);
  AlphaBeta ab{std::max(0.0, intercept) / (2.0 * (n - 1)), 1.0 / slope,
               fmt::format("commbench {} ({}, {} ranks, {} sizes)", path, algo, n, xy.size())};
  if (cpu.size() == xy.size()) {  // a file from before cpu_us has none: no CPU costs, not a guess
    const auto [cpu_slope, cpu_intercept] = fit_line(cpu);
    ab.cpu_per_byte_s = std::max(0.0, cpu_slope);
    ab.cpu_per_msg_s = std::max(0.0, cpu_intercept) / (2.0 * (n - 1));
  }
  return ab;
}

double allreduce_time(StrategyKind kind, int n, double bytes, const Network& net) {
  return allreduce_cost(kind, n, bytes, net, time_cost);
}

double allreduce_cpu(StrategyKind kind, int n, double bytes, const Network& net) {
  return allreduce_cost(kind, n, bytes, net, cpu_cost);
}

double ps_step_time(int n, double bytes, const Network& net) {
  return 2 * net.inter.alpha_s + double(n) * bytes / net.inter.bytes_per_s;
}

}  // namespace scalebench::project
