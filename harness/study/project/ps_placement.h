// ps_placement.h — how a parameter-server exchange's gradient is split over its servers
// (`project --ps-shards`, `--ps-variables`, `--ps-placement`): in equal shares, or as TensorFlow
// splits it, whole variables placed on the servers one at a time in the order the model creates them.
// It gives each server's share of the gradient; what that costs on the links is netmodel.h's
// (ps_shard_load). What it deliberately does not do: partitioned variables, several servers a node,
// the traffic of variables without a gradient (batch norm's statistics: placed, not counted), and any
// rule TensorFlow did not ship.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace scalebench::project {

// One variable as the placement sees it: its bytes, and whether it carries a gradient (trainable).
struct PsVariable {
  std::string name;
  double bytes = 0;
  bool trainable = true;
};

// The rules, each TensorFlow 1.x's own (tensorflow/python/training/device_setter.py and
// contrib/training/python/training/device_setter.py at 1.1.0): `greedy`, GreedyLoadBalancingStrategy
// with byte_size_load_fn — each variable onto the server with the fewest bytes so far (the first of
// equals), every variable's bytes counted (tf_cnn_benchmarks' parameter_server); `round-robin`,
// replica_device_setter's default — the i-th variable onto server i mod P (its distributed_replicated).
enum class PsPlacement { greedy, round_robin };
// The names `--ps-placement` takes, written once: {"greedy", greedy}, {"round-robin", round_robin}.
const std::map<std::string, PsPlacement>& ps_placement_names();
std::string ps_placement_name(PsPlacement rule);

// A --ps-variables file: a line a variable, `NAME BYTES trainable|fixed`, in creation order; blank
// lines and lines from `#` on are skipped. Throws one line naming the file, the line number and the
// text for anything else, BYTES not a positive integer, no line at all, or no trainable bytes.
std::vector<PsVariable> read_ps_variables(const std::string& path);

// The variables placed in order over `servers` by `rule`: each server's trainable bytes (its share
// of the gradient, in bytes). Throws unless servers >= 1.
std::vector<double> place_variables(const std::vector<PsVariable>& vars, int servers, PsPlacement rule);

// What the exchange's busiest links are given at each node count of --ps-shards (NODES -> SERVERS):
// the servers' shares of the gradient, summing to 1 — equal (1/P each) without variables, else the
// placement's trainable bytes over their sum — and one line saying which, for the header.
struct PsShares {
  std::map<int, std::vector<double>> by_nodes;
  std::string placement;
};
PsShares ps_shares(const std::map<int, int>& servers_by_nodes, const std::vector<PsVariable>& vars, PsPlacement rule,
                   const std::string& vars_source);

}  // namespace scalebench::project
