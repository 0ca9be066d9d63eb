// netmodel.h — the network side of `scalebench project`: an alpha-beta model (a message of m bytes
// over one link costs alpha + m / bandwidth), named profiles, a fit from a commbench JSON file, and
// the time of one allreduce of m bytes per strategy at N ranks. What it deliberately does not model:
// congestion between jobs, switch topology beyond "ranks_per_node ranks share a node, nodes share a
// flat network", and the library's choice of algorithm (native is costed as the ring; see
// docs/projection.md).
#pragma once

#include <cstdint>
#include <string>

#include "harness/strategy/strategy_traits.h"

namespace scalebench::project {

struct AlphaBeta {
  double alpha_s = 0;         // per message (per algorithm step)
  double bytes_per_s = 1e9;   // per link, each direction
  std::string source;         // where the numbers came from: "profile 10gbe", "commbench FILE (ring, 2 ranks)"
  // CPU the exchange costs a rank (user + system, the kernel's network work included), in the same
  // form: per message and per wire byte. Only a commbench fit knows it (its cpu_us); else 0.
  double cpu_per_msg_s = 0, cpu_per_byte_s = 0;
};

struct Network {
  AlphaBeta inter;  // between nodes
  AlphaBeta intra;  // between ranks of one node
  int ranks_per_node = 1;
};

// Named profiles (`--network`): the rate of the link and a stated latency; docs/projection.md lists them.
AlphaBeta profile(const std::string& name);
// Least-squares fit of time = 2(n-1) alpha + 2(n-1)/n * bytes / bandwidth over the rows of one
// algorithm in a commbench --json file (n = its ranks), and of cpu_us in the same form where every
// row has it (negative coefficients clamp to 0). Throws naming the file when it has fewer than two
// sizes of that algorithm, n < 2, or the fit gives no positive bandwidth.
AlphaBeta fit_commbench(const std::string& json_path, const std::string& algo);

// Seconds for one allreduce of `bytes` (what goes on the wire) over `n` ranks. ring and native:
// one ring over all ranks (placed ppn per node, so only node-boundary edges cross the network);
// hierarchical: chain reduce + broadcast inside nodes and a ring over the node leaders.
double allreduce_time(StrategyKind kind, int n, double bytes, const Network& net);
// CPU seconds one rank spends on that allreduce (the same message pattern costed with the links'
// cpu_per_msg_s / cpu_per_byte_s); 0 where the network model has no CPU costs.
double allreduce_cpu(StrategyKind kind, int n, double bytes, const Network& net);
// ps-sync: one step's push of the whole gradient from n workers to the server and the replies:
// the server's link carries n x bytes each way.
double ps_step_time(int n, double bytes, const Network& net);

}  // namespace scalebench::project
