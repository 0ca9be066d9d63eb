// ps_placement.cpp — equal shares, or whole variables placed as TensorFlow places them (see ps_placement.h).
#include "harness/study/project/ps_placement.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "kernels/common/check.h"

namespace scalebench::project {

const std::map<std::string, PsPlacement>& ps_placement_names() {
  static const std::map<std::string, PsPlacement> names{{"greedy", PsPlacement::greedy},
                                                        {"round-robin", PsPlacement::round_robin}};
  return names;
}

std::string ps_placement_name(PsPlacement rule) {
  for (const auto& [name, r] : ps_placement_names())
    if (r == rule) return name;
  SB_CHECK(false, "ps placement: unnamed rule {}", int(rule));
  return {};
}

std::vector<PsVariable> read_ps_variables(const std::string& path) {
  std::ifstream in(path);
  SB_REQUIRE(in.good(), "--ps-variables {}: cannot be read", path);
  std::vector<PsVariable> vars;
  std::string line;
  double trainable_bytes = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = line.substr(0, line.find('#'));
    std::istringstream words(text);
    std::string name, bytes, kind, extra;
    if (!(words >> name)) continue;  // blank or a comment
    words >> bytes >> kind;
    long long b = 0;
    const auto [end, err] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), b);
    const bool ok = !kind.empty() && !(words >> extra) && err == std::errc() && end == bytes.data() + bytes.size() &&
                    b > 0 && (kind == "trainable" || kind == "fixed");
    SB_REQUIRE(ok, "--ps-variables {}:{}: '{}' is not NAME BYTES trainable|fixed (BYTES a positive integer)", path,
               number, text);
    vars.push_back({name, double(b), kind == "trainable"});
    if (vars.back().trainable) trainable_bytes += double(b);
  }
  SB_REQUIRE(!vars.empty(), "--ps-variables {}: no variable in it (a line each: NAME BYTES trainable|fixed)", path);
  SB_REQUIRE(trainable_bytes > 0, "--ps-variables {}: no trainable variable, so no gradient to place", path);
  return vars;
}

std::vector<double> place_variables(const std::vector<PsVariable>& vars, int servers, PsPlacement rule) {
  SB_REQUIRE(servers >= 1, "ps placement: {} servers (expected 1 or more)", servers);
  std::vector<double> load(servers, 0.0), gradient(servers, 0.0);  // every byte; the trainable ones
  for (std::size_t i = 0; i < vars.size(); ++i) {
    // greedy: the first of the least loaded (numpy's argmin, which GreedyLoadBalancingStrategy calls)
    const std::size_t s = rule == PsPlacement::greedy ? std::size_t(std::min_element(load.begin(), load.end()) - load.begin())
                                                      : i % std::size_t(servers);
    load[s] += vars[i].bytes;
    if (vars[i].trainable) gradient[s] += vars[i].bytes;
  }
  return gradient;
}

PsShares ps_shares(const std::map<int, int>& servers_by_nodes, const std::vector<PsVariable>& vars, PsPlacement rule,
                   const std::string& vars_source) {
  PsShares out;
  std::string busiest;
  for (const auto& [nodes, servers] : servers_by_nodes) {
    std::vector<double> share(servers, 1.0 / servers);
    if (!vars.empty()) {
      share = place_variables(vars, servers, rule);
      const double total = std::accumulate(share.begin(), share.end(), 0.0);
      for (double& s : share) s /= total;
      busiest += fmt::format("{}{}:{:.3f}", busiest.empty() ? "" : ",", nodes, *std::max_element(share.begin(), share.end()));
    }
    out.by_nodes.emplace(nodes, std::move(share));
  }
  if (vars.empty()) {
    out.placement = "equal shares (1/SERVERS of the gradient a server)";
  } else {
    double bytes = 0, gradient = 0;
    for (const auto& v : vars) bytes += v.bytes, gradient += v.trainable ? v.bytes : 0.0;
    out.placement = fmt::format(
        "whole variables, {} ({}), the {} variables of {} ({:.1f} MB, {:.1f} MB of them trainable); the busiest "
        "server's share of the gradient, NODES:SHARE {}",
        ps_placement_name(rule),
        rule == PsPlacement::greedy ? "each onto the server with the fewest bytes so far, TensorFlow's "
                                      "GreedyLoadBalancingStrategy with byte_size_load_fn"
                                    : "the i-th onto server i mod SERVERS, replica_device_setter's default",
        vars.size(), vars_source, bytes * 1e-6, gradient * 1e-6, busiest);
  }
  return out;
}

}  // namespace scalebench::project
