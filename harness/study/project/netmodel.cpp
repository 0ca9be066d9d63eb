// netmodel.cpp — alpha-beta costs, profiles and the commbench fit (see netmodel.h).
#include "harness/study/project/netmodel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include <fmt/ranges.h>

#include "harness/comm/communicator.h"
#include "harness/study/project/order_stats.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"

namespace scalebench::project {
namespace {

// Ranks to a node (at least 1), and the nodes n ranks occupy, placed that many to a node in order.
int ranks_per_node_of(const Network& net) { return std::max(1, net.ranks_per_node); }
int nodes_of(int n, const Network& net) {
  const int ppn = ranks_per_node_of(net);
  return (n + ppn - 1) / ppn;
}

enum class Cost { time, cpu };

double message(const AlphaBeta& link, double bytes, Cost c) {
  return c == Cost::time ? link.message_time(bytes) : link.message_cpu(bytes);
}

// A ring of n ranks on `link`: 2(n-1) messages of bytes/n per rank.
double ring_cost(int n, double bytes, const AlphaBeta& link, Cost c) {
  return n <= 1 ? 0.0 : 2.0 * (n - 1) * message(link, bytes / n, c);
}

// (x, y) least squares: {slope, intercept}.
std::pair<double, double> fit_line(const std::vector<std::pair<double, double>>& xy) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (auto [x, y] : xy) sx += x, sy += y, sxx += x * x, sxy += x * y;
  const double k = double(xy.size()), slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
  return {slope, (sy - slope * sx) / k};
}

// y at x on the curve through the samples (linear between neighbours), beyond them the nearest
// sample plus `slope` per byte (never below 0).
double on_curve(const std::vector<LinkSample>& s, double x, double LinkSample::*y, double slope) {
  if (x <= s.front().bytes) return std::max(0.0, s.front().*y - (s.front().bytes - x) * slope);
  if (x >= s.back().bytes) return s.back().*y + (x - s.back().bytes) * slope;
  const auto hi = std::upper_bound(s.begin(), s.end(), x, [](double v, const LinkSample& p) { return v < p.bytes; });
  const LinkSample &b = *hi, &a = *(hi - 1);
  return a.*y + (b.*y - a.*y) * (x - a.bytes) / (b.bytes - a.bytes);
}

// How far the curve through the samples misses a size it was not given: each inner sample's time
// against the straight line between its two neighbours, relative, RMS over them (0 with fewer than
// three samples: nothing to leave out).
double leave_one_out_residual(const std::vector<LinkSample>& s) {
  double squares = 0;
  std::size_t k = 0;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    const LinkSample &a = s[i - 1], &b = s[i + 1];
    const double between = a.time_s + (b.time_s - a.time_s) * (s[i].bytes - a.bytes) / (b.bytes - a.bytes);
    if (s[i].time_s <= 0) continue;
    squares += (s[i].time_s - between) * (s[i].time_s - between) / (s[i].time_s * s[i].time_s), ++k;
  }
  return k ? std::sqrt(squares / double(k)) : 0.0;
}

// allreduce cost of `kind` (time or CPU); see allreduce_time. With `stragglers` a ring over the
// network waits each step for its slowest transfer (time only: a rank waiting spends no CPU).
double allreduce_cost(StrategyKind kind, int n, double bytes, const Network& net, Cost c, bool stragglers) {
  if (n <= 1) return 0;
  const int ring = network_ring_ranks(kind, n, net);  // 0: no ring crosses the network
  const double waits = c == Cost::time && stragglers && ring > 0 ? ring_step_factor(net.inter, ring, bytes / ring) : 1.0;
  const int nodes = nodes_of(n, net);
  // parameter-server shards between the nodes: a push and a pull, each one message of the busiest
  // link's load (its messages to the shards go out together)
  const auto between_nodes = [&]() {
    if (!sharded_between_nodes(kind, n, net)) return 0.0;
    const auto p = net.ps_shards.find(nodes);
    SB_REQUIRE(p != net.ps_shards.end(), "--ps-shards gives no server count for {} nodes", nodes);
    const double load = ps_shard_load(nodes, p->second) * bytes;
    const AlphaBeta& l = net.inter;
    if (c == Cost::cpu || !l.per_connection()) return 2.0 * message(l, load, c);
    // a transport: the node's connections together, and none faster than one connection
    const double largest = *std::max_element(p->second.begin(), p->second.end()) * bytes;
    return 2.0 * (l.alpha_s + std::max(load / l.node_rate(), largest / l.bytes_per_s));
  };
  if (traits(kind).algo == comm::AllreduceAlgo::hierarchical) {
    const int local = std::min(ranks_per_node_of(net), n);
    const AlphaBeta& in = net.intra;
    const double chain = local <= 1 ? 0.0
                         : c == Cost::time ? 2.0 * ((local - 1) * in.alpha_s + bytes / in.bytes_per_s)
                                           : 2.0 * ((local - 1) * in.cpu_per_msg_s + bytes * in.cpu_per_byte_s);
    if (sharded_between_nodes(kind, n, net)) return chain + between_nodes();
    return chain + ring_cost(nodes, bytes, net.inter, c) * waits;
  }
  // One ring over every rank: its slowest edge sets each step (a network edge once there are 2+ nodes).
  if (nodes <= 1) return ring_cost(n, bytes, net.intra, c);
  if (sharded_between_nodes(kind, n, net)) return between_nodes();
  return ring_cost(n, bytes, net.inter, c) * waits;
}

}  // namespace

double AlphaBeta::message_time(double bytes) const {
  if (samples.size() < 2) return alpha_s + bytes / bytes_per_s;
  return on_curve(samples, bytes, &LinkSample::time_s, 1.0 / bytes_per_s);
}

AlphaBeta AlphaBeta::at_slow_end() const {
  AlphaBeta ab = *this;
  if (ranged()) ab.bytes_per_s = bw_lo, ab.alpha_s = alpha_hi;
  if (node_ranged()) ab.node_bytes_per_s = node_lo;
  return ab;
}

AlphaBeta AlphaBeta::at_fast_end() const {
  AlphaBeta ab = *this;
  if (ranged()) ab.bytes_per_s = bw_hi, ab.alpha_s = alpha_lo;
  if (node_ranged()) ab.node_bytes_per_s = node_hi;
  return ab;
}

AlphaBeta AlphaBeta::at_middle() const {
  AlphaBeta ab = *this;
  if (ranged()) ab.bytes_per_s = std::sqrt(bw_lo * bw_hi), ab.alpha_s = 0.5 * (alpha_lo + alpha_hi);
  if (node_ranged()) ab.node_bytes_per_s = std::sqrt(node_lo * node_hi);
  return ab;
}

Network at_slow_end(const Network& net) {
  Network x = net;
  x.inter = net.inter.at_slow_end(), x.intra = net.intra.at_slow_end();
  return x;
}

Network at_fast_end(const Network& net) {
  Network x = net;
  x.inter = net.inter.at_fast_end(), x.intra = net.intra.at_fast_end();
  return x;
}

AlphaBeta assumed_intra(bool gpu) {
  AlphaBeta ab{kIntraAlphaUs * 1e-6, kIntraGBps * 1e9, "assumed"};
  if (gpu) {
    ab.bw_lo = kGpuIntraGBpsLo * 1e9, ab.bw_hi = kGpuIntraGBpsHi * 1e9;
    ab.alpha_lo = kGpuIntraAlphaUsLo * 1e-6, ab.alpha_hi = kGpuIntraAlphaUsHi * 1e-6;
  }
  return ab;
}

double AlphaBeta::message_cpu(double bytes) const {
  if (samples.size() < 2) return cpu_per_msg_s + bytes * cpu_per_byte_s;
  return on_curve(samples, bytes, &LinkSample::cpu_s, cpu_per_byte_s);
}

namespace {
struct Profile { const char* name; double mbit, alpha_us, lo_mbit, hi_mbit, lo_us, hi_us, node_lo_mbit, node_hi_mbit; };
// networks.def: the one list of named networks (tools/cluster/up.sh's presets read it too).
constexpr Profile kProfiles[] = {
// (basis: whether the range rests on a published measurement -- docs/projection.md's table only)
#define SB_NETWORK(name, mbit, latency_us, lo_mbit, hi_mbit, lo_us, hi_us, node_lo_mbit, node_hi_mbit, basis) \
  {#name, mbit, latency_us, lo_mbit, hi_mbit, lo_us, hi_us, node_lo_mbit, node_hi_mbit},
#include "harness/study/project/networks.def"
#undef SB_NETWORK
};
}  // namespace

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const auto& p : kProfiles) names.emplace_back(p.name);
  return names;
}

AlphaBeta profile(const std::string& name) {
  // α is the profile's one-way latency: each ring step's message crosses one hop.
  for (const auto& p : kProfiles)
    if (name == p.name) {
      AlphaBeta ab;
      ab.alpha_s = p.alpha_us * 1e-6, ab.bytes_per_s = p.mbit * 1e6 / 8, ab.source = "profile " + name;
      ab.nameplate = true;
      ab.bw_lo = p.lo_mbit * 1e6 / 8, ab.bw_hi = p.hi_mbit * 1e6 / 8;
      ab.alpha_lo = p.lo_us * 1e-6, ab.alpha_hi = p.hi_us * 1e-6;
      // a transport: its nameplate stands for its connections' top together too (at_middle moves it)
      if (p.node_hi_mbit > 0)
        ab.node_lo = p.node_lo_mbit * 1e6 / 8, ab.node_hi = p.node_hi_mbit * 1e6 / 8, ab.node_bytes_per_s = ab.node_hi;
      return ab;
    }
  SB_REQUIRE(false, "--network '{}': unknown profile (known: {})", name, fmt::join(profile_names(), ", "));
  return {};
}

namespace {
// A row's step_us list ("12.5, 13.0, ..."): seconds, each finite and not negative.
// A row's step_us: microseconds, 0 or more each, as seconds.
std::vector<double> read_steps(const json::Value& list, double bytes) {
  std::vector<double> out;
  for (const json::Value& v : list.elements()) {
    const double us = v.number();
    if (!(us >= 0)) v.fail(fmt::format("holds {} at size {} (expected microseconds, 0 or more)", us, bytes));
    out.push_back(us * 1e-6);
  }
  return out;
}
}  // namespace

namespace {
// The measured steps of the sample whose per-step message is nearest `step_bytes` (log scale);
// null where the link has none.
const std::vector<double>* nearest_steps(const AlphaBeta& link, double step_bytes) {
  const LinkSample* best = nullptr;
  for (const auto& s : link.samples)
    if (!s.steps_s.empty() && (best == nullptr || std::fabs(std::log(s.bytes / step_bytes)) <
                                                      std::fabs(std::log(best->bytes / step_bytes))))
      best = &s;
  return best == nullptr ? nullptr : &best->steps_s;
}

// Rings past this many ranks are simulated at it: a pipelined ring's mean step stops growing with
// its ranks well before (on the fourth round's calibrations, within 0.3 % from 16 to 128 ranks),
// and the simulation's cost grows as the ranks squared.
constexpr int kRingSimRanksMax = 32;
int simulated(int ranks) { return std::min(ranks, kRingSimRanksMax); }

// A ring of n ranks' mean step over a ring of k's (both sizes as simulated), both simulated as a
// pipeline from `steps` (order_stats.h, ring_pipeline_step), about `draws` transfers each; exactly
// 1 at n = k.
double pipeline_ratio(const std::vector<double>& steps, int n, int k, double draws) {
  const auto walks = [draws](int r) { return std::max(16, int(draws / (2.0 * r * (r - 1)))); };
  if (n == k) return 1.0;
  const double at_k = ring_pipeline_step(steps, k, walks(k));
  return at_k > 0 ? ring_pipeline_step(steps, n, walks(n)) / at_k : 1.0;
}

// project asks for the same ring many times (every strategy, scaling and bucket; every N past 32):
// each (steps, simulated n, simulated k) is simulated once per process.
template <typename V, typename F>
V remembered(std::map<std::tuple<std::vector<double>, int, int>, V>& seen, const std::vector<double>& steps, int n,
             int k, F make) {
  static std::mutex guard;
  const std::lock_guard<std::mutex> hold(guard);
  auto key = std::make_tuple(steps, n, k);
  auto it = seen.find(key);
  if (it == seen.end()) it = seen.emplace(std::move(key), make()).first;
  return it->second;
}
}  // namespace

double ring_step_factor(const AlphaBeta& link, int n, double step_bytes) {
  const std::vector<double>* steps = nearest_steps(link, step_bytes);
  if (steps == nullptr || link.measured_ranks < 2 || n < 2) return 1.0;
  const int sn = simulated(n), sk = simulated(link.measured_ranks);
  static std::map<std::tuple<std::vector<double>, int, int>, double> seen;
  return remembered(seen, *steps, sn, sk, [&] { return pipeline_ratio(*steps, sn, sk, 4e5); });
}

std::pair<double, double> ring_step_interval(const AlphaBeta& link, int n, double step_bytes) {
  const std::vector<double>* steps = nearest_steps(link, step_bytes);
  if (steps == nullptr || link.measured_ranks < 2 || n < 2) return {1.0, 1.0};
  const int sn = simulated(n), sk = simulated(link.measured_ranks);
  if (sn == sk) return {1.0, 1.0};
  static std::map<std::tuple<std::vector<double>, int, int>, std::pair<double, double>> seen;
  const double point = ring_step_factor(link, n, step_bytes);
  return remembered(seen, *steps, sn, sk, [&] {
    // fewer simulated rings per resample than the point's: their noise widens the interval a little
    const auto [lo, hi] =
        bootstrap_interval(*steps, [sn, sk](const std::vector<double>& r) { return pipeline_ratio(r, sn, sk, 2e4); });
    return std::make_pair(lo / point, hi / point);
  });
}

int network_ring_ranks(StrategyKind kind, int n, const Network& net) {
  if (n <= 1 || traits(kind).exchange != Exchange::allreduce) return 0;
  const int nodes = nodes_of(n, net);
  if (nodes <= 1 || sharded_between_nodes(kind, n, net)) return 0;
  return traits(kind).algo == comm::AllreduceAlgo::hierarchical ? nodes : n;
}

AlphaBeta fit_commbench(const std::string& path, const std::string& algo) {
  const std::string where = "--commbench " + path;
  const json::Json doc = json::read_file(path, where);
  const json::Value top(doc, where);
  const auto ranks = top.find("ranks");
  SB_REQUIRE(ranks, "--commbench {}: no \"ranks\" (not a commbench --json file)", path);
  const int n = int(ranks->integer());
  double gap_ms = 0;  // absent in files from before --gap-ms: calls back to back
  if (const auto g = top.find("gap_ms")) gap_ms = g->number();
  SB_REQUIRE(std::isfinite(gap_ms) && gap_ms >= 0, "--commbench {}: gap_ms {} (expected 0 or more)", path, gap_ms);
  SB_REQUIRE(n >= 2, "--commbench {}: {} rank(s); a fit needs a run of 2 or more", path, n);
  std::vector<std::pair<double, double>> xy, cpu;  // (2(n-1)/n bytes, seconds), (the same, CPU seconds)
  std::vector<LinkSample> samples;
  for (const json::Value& row : top["results"].elements()) {
    if (row["algo"].string() != algo) continue;
    const double bytes = double(row["bytes"].integer()), x = 2.0 * (n - 1) / n * bytes;
    const double t = row["time_us"].number() * 1e-6;
    xy.emplace_back(x, t);
    const auto cpu_us = row.find("cpu_us");  // absent in files from before cpu_us
    if (cpu_us) cpu.emplace_back(x, cpu_us->number() * 1e-6);
    samples.push_back({bytes / n, t / (2.0 * (n - 1)), cpu_us ? cpu_us->number() * 1e-6 / (2.0 * (n - 1)) : 0.0, {}});
    if (const auto steps = row.find("step_us")) samples.back().steps_s = read_steps(*steps, bytes);
  }
  SB_REQUIRE(xy.size() >= 2, "--commbench {}: {} size(s) of algorithm {}; the fit needs 2 or more", path, xy.size(), algo);
  const auto [slope, intercept] = fit_line(xy);
  SB_REQUIRE(slope > 0, "--commbench {}: the fit of {} gives no positive bandwidth (time does not grow with size)", path, algo);
  AlphaBeta ab{std::max(0.0, intercept) / (2.0 * (n - 1)), 1.0 / slope,
               fmt::format("commbench {} ({}, {} ranks, {} sizes, calls {})", path, algo, n, xy.size(),
                           gap_ms > 0 ? fmt::format("{:g} ms of compute apart", gap_ms) : std::string("back to back"))};
  if (cpu.size() == xy.size()) {  // a file from before cpu_us has none: no CPU costs, not a guess
    const auto [cpu_slope, cpu_intercept] = fit_line(cpu);
    ab.cpu_per_byte_s = std::max(0.0, cpu_slope);
    ab.cpu_per_msg_s = std::max(0.0, cpu_intercept) / (2.0 * (n - 1));
  } else {
    for (auto& p : samples) p.cpu_s = 0;
  }
  std::sort(samples.begin(), samples.end(), [](const LinkSample& a, const LinkSample& b) { return a.bytes < b.bytes; });
  for (std::size_t i = 1; i < samples.size(); ++i)
    SB_REQUIRE(samples[i].bytes > samples[i - 1].bytes, "--commbench {}: size {} of algorithm {} appears twice", path,
               samples[i].bytes * n, algo);
  ab.samples = std::move(samples);
  ab.measured_ranks = n;
  ab.gap_s = gap_ms * 1e-3;
  if (const auto agree = top.find("agree_us")) {  // absent before agree_us
    const double agree_us = agree->number();
    SB_REQUIRE(std::isfinite(agree_us) && agree_us >= 0, "--commbench {}: agree_us {} (expected 0 or more)", path, agree_us);
    ab.agree_s = agree_us * 1e-6;
  }
  ab.fit_residual = leave_one_out_residual(ab.samples);
  return ab;
}

double allreduce_time(StrategyKind kind, int n, double bytes, const Network& net, bool stragglers) {
  return allreduce_cost(kind, n, bytes, net, Cost::time, stragglers);
}

double allreduce_cpu(StrategyKind kind, int n, double bytes, const Network& net) {
  return allreduce_cost(kind, n, bytes, net, Cost::cpu, false);
}

namespace {
int ceil_log2(int n) {
  int r = 0;
  while ((1 << r) < n) ++r;
  return r;
}
constexpr double kAgreeBytes = double(comm::Communicator::kAgreeBytes);  // a rank's block in the agreement
}  // namespace

double agreement_time(StrategyKind kind, int n, const Network& net) {
  if (n <= 1 || traits(kind).exchange != Exchange::allreduce) return 0;
  const int ppn = ranks_per_node_of(net), k = net.inter.measured_ranks;
  // recursive doubling's round i moves 2^i blocks
  const auto inter_round = [&](int i) {
    return net.inter.agree_s > 0 && k >= 2 ? net.inter.agree_s / ceil_log2(k)
                                           : net.inter.message_time(kAgreeBytes * double(1 << i));
  };
  double t = 0;
  for (int i = 0; i < ceil_log2(n); ++i)
    t += ppn > 1 && (1 << i) < ppn ? net.intra.message_time(kAgreeBytes * double(1 << i)) : inter_round(i);
  return t;
}

double ps_shard_load(int nodes, const std::vector<double>& shares) {
  const int servers = int(shares.size());
  SB_REQUIRE(nodes >= 2 && servers >= 1 && servers <= nodes,
             "parameter-server shards: {} server(s) on {} nodes (expected 2 or more nodes, 1 to that many servers)",
             servers, nodes);
  double sum = 0;
  for (double s : shares) {
    SB_REQUIRE(s >= 0, "parameter-server shards: a share of {} (expected 0 or more)", s);
    sum += s;
  }
  SB_REQUIRE(std::fabs(sum - 1.0) < 1e-9, "parameter-server shards: shares summing to {} (expected 1)", sum);
  const auto [least, most] = std::minmax_element(shares.begin(), shares.end());
  const double in = (nodes - 1) * *most;  // the largest shard's node: every other node's share for it
  const double out = servers < nodes ? 1.0 : 1.0 - *least;  // a node without a shard sends all
  return std::max(in, out);
}

double ps_shard_load(int nodes, int servers) {
  return ps_shard_load(nodes, std::vector<double>(std::max(servers, 0), servers > 0 ? 1.0 / servers : 0.0));
}

std::map<int, int> parse_ps_shards(const std::string& spec) {
  std::map<int, int> out;
  std::size_t at = 0;
  while (at <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', at), spec.size());
    const std::string pair = spec.substr(at, end - at);
    int nodes = 0, servers = 0, used = 0;
    const bool ok = std::sscanf(pair.c_str(), "%d:%d%n", &nodes, &servers, &used) == 2 && used == int(pair.size());
    SB_REQUIRE(ok, "--ps-shards '{}': '{}' is not NODES:SERVERS (e.g. 8:2)", spec, pair);
    SB_REQUIRE(nodes >= 2 && servers >= 1 && servers <= nodes,
               "--ps-shards '{}': {}:{} (expected 2 or more nodes and 1 to that many servers)", spec, nodes, servers);
    SB_REQUIRE(out.emplace(nodes, servers).second, "--ps-shards '{}': {} nodes given twice", spec, nodes);
    at = end + 1;
  }
  return out;
}

bool sharded_between_nodes(StrategyKind kind, int n, const Network& net) {
  if (net.ps_shards.empty() || n <= 1 || traits(kind).exchange != Exchange::allreduce || nodes_of(n, net) < 2)
    return false;
  return traits(kind).algo == comm::AllreduceAlgo::hierarchical || ranks_per_node_of(net) == 1;
}

double ps_step_time(int n, double bytes, const Network& net) {
  // a link's node_rate() is its rate, and n >= 1: then the server's n x bytes alone
  const AlphaBeta& l = net.inter;
  return 2 * l.alpha_s + std::max(double(n) * bytes / l.node_rate(), bytes / l.bytes_per_s);
}

}  // namespace scalebench::project
