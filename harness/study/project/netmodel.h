// netmodel.h — the network side of `scalebench project`: an alpha-beta model (a message of m bytes
// over one link costs alpha + m / bandwidth), named profiles, a fit from a commbench JSON file, and
// the time of one allreduce of m bytes per strategy at N ranks (a ring over the network as a pipeline
// of transfers drawn from the commbench ring's measured steps), and of the step's agreement (the
// small allgather that ends every allreduce step). What it deliberately does not model:
// congestion between jobs, switch topology beyond "ranks_per_node ranks share a node, nodes share a
// flat network", and the library's choice of algorithm (native is costed as the ring; see
// docs/projection.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/strategy/strategy_traits.h"

namespace scalebench::project {

// One measured message size of a link: a ring step's message of `bytes` took `time_s` and cost a
// rank `cpu_s` of CPU (from a commbench row: the call's time and CPU over its 2(n-1) messages).
// `steps_s`: the commbench ring's every measured step at that size (rank 0's, all timed calls; its
// step_us), the spread the ring's straggler term reads (ring_step_factor); empty when the file has none.
struct LinkSample {
  double bytes = 0, time_s = 0, cpu_s = 0;
  std::vector<double> steps_s;
};

struct AlphaBeta {
  double alpha_s = 0;         // per message (per algorithm step)
  double bytes_per_s = 1e9;   // per link, each direction
  std::string source;         // where the numbers came from: "profile 10gbe", "commbench FILE (ring, 2 ranks)"
  // CPU the exchange costs a rank (user + system, the kernel's network work included), in the same
  // form: per message and per wire byte. Only a commbench fit knows it (its cpu_us); else 0.
  double cpu_per_msg_s = 0, cpu_per_byte_s = 0;
  // A commbench fit keeps its rows, ascending by message size: a message within their range costs
  // what the curve through them says (linear between neighbours), beyond it the nearest row plus the
  // fitted slope. A real link's curve is not one line (the emulated 100 Mbit/s link: 0.012 GB/s up to
  // 1 MiB, 0.009 at 4 MiB), and a least-squares line through it misprices the sizes a bucket has.
  // Empty (profiles, --alpha-us/--gbps): the line alone.
  std::vector<LinkSample> samples;
  // How far the curve through the rows misses a size it was not given: each inner row's time
  // against the straight line between its two neighbours, (measured - between) / measured, RMS over
  // the inner rows (commbench fits of 3+ sizes; 0 otherwise: profiles and given numbers have no
  // rows). The band's share of the link (projection.h, band()).
  double fit_residual = 0;
  // A named profile: a nameplate rate and a stated latency, nothing measured (project says so).
  bool nameplate = false;
  // What the link may deliver where it was not measured: a profile's delivered range (networks.def),
  // or what a calibration point leaves open (calibrate.h). The band takes both ends (the slow end:
  // bw_lo with alpha_hi; the fast end: bw_hi with alpha_lo). 0: no range (a commbench fit, given
  // numbers: the band's communication side is then the fit's residual alone).
  double bw_lo = 0, bw_hi = 0, alpha_lo = 0, alpha_hi = 0;
  bool ranged() const { return bw_lo > 0 && bw_hi > 0; }
  // A transport (networks.def's last range; tfgrpc): the rate above is one connection's, and a
  // node's connections at once together deliver up to node_bytes_per_s, never less than one of them
  // (node_rate). Its range: node_lo (the slow end) to node_hi (the fast end). 0: a link, whose rate
  // is the node's however many connections share it. What reads it: the parameter servers' phases
  // (allreduce_time with ps_shards, ps_step_time), where a node talks to many others at once; a
  // ring's rank has one connection each way.
  double node_bytes_per_s = 0, node_lo = 0, node_hi = 0;
  bool per_connection() const { return node_bytes_per_s > 0; }
  bool node_ranged() const { return node_lo > 0 && node_hi > 0; }
  // what a node's connections deliver together: a link's own rate (node_bytes_per_s 0)
  double node_rate() const { return std::max(node_bytes_per_s, bytes_per_s); }
  // This link at one end of its range (slow: bw_lo, alpha_hi; fast: bw_hi, alpha_lo), or at its
  // middle (the geometric mean of the rates, the mean of the latencies); itself without a range.
  AlphaBeta at_slow_end() const;
  AlphaBeta at_fast_end() const;
  AlphaBeta at_middle() const;
  int measured_ranks = 0;  // a commbench fit: the ranks of the ring it measured (0 otherwise)
  // A commbench fit: the busy compute before each of its calls (its gap_ms; 0: back to back, or a
  // file from before --gap-ms). Training's exchange follows a step of compute; on a node whose CPU
  // quota the compute spent, the same transfer takes longer than it does back to back.
  double gap_s = 0;
  // A commbench fit from a file with agree_us: the training step's agreement (one allgather of a few
  // bytes a rank, harness/strategy/scalar_reduce.h) over its measured_ranks, timed as the step's is
  // (after the gap); 0 where the file has none (the agreement is then priced at the link's message time).
  double agree_s = 0;
  double message_time(double bytes) const;  // one message over this link
  double message_cpu(double bytes) const;   // the CPU it costs a rank
};

struct Network {
  AlphaBeta inter;  // between nodes
  AlphaBeta intra;  // between ranks of one node (a range only where assumed_intra gave one)
  int ranks_per_node = 1;
  // Parameter-server shards on the workers' nodes (--ps-shards), by node count: at L nodes, the share
  // of the gradient each of its P servers holds (one a node; equal shares, or what placing whole
  // variables gave: ps_placement.h), and the exchange between nodes (hierarchical's, or a ring's at
  // one rank a node) is a push to the servers and a pull back (ps_shard_load) instead of a ring.
  // TensorFlow's parameter_server and distributed_replicated with servers on the workers' nodes.
  // Empty: the exchange between nodes is a ring.
  std::map<int, std::vector<double>> ps_shards;
  std::string ps_placement;  // how the shares were made (ps_placement.h, PsShares), for the header
};
// The network with both links at the same end of their assumed ranges (AlphaBeta::at_slow_end,
// at_fast_end): what the band's slow and fast extremes take. A link without a range stays as it is.
Network at_slow_end(const Network& net);
Network at_fast_end(const Network& net);

// The link between ranks of one node where --intra-alpha-us/--intra-gbps are not given: a stated
// point (kIntraAlphaUs, kIntraGBps: an assumption, not a measurement) and, for GPUs (`gpu`), the range
// of GPU-to-GPU links in published p2pBandwidthLatencyTest / rocm_bandwidth_test runs, PCIe through
// the host to NVLink 4 (docs/projection.md cites each end); without `gpu` no range (a CPU run's ranks
// of one node exchange through its memory, which those links are not).
inline constexpr double kIntraAlphaUs = 2.0, kIntraGBps = 5.0;
inline constexpr double kGpuIntraGBpsLo = 3.9, kGpuIntraGBpsHi = 377.0;
inline constexpr double kGpuIntraAlphaUsLo = 1.8, kGpuIntraAlphaUsHi = 20.0;
AlphaBeta assumed_intra(bool gpu);

// Named profiles (`--network`): the rate of the link and a stated latency, and the delivered range
// of both, from networks.def (the emulated cluster's presets are the same list; docs/projection.md
// shows it and the range's sources). The profile's alpha and rate are the nameplate's; project takes
// the range's middle (at_middle). Throws naming the known ones for an unknown name.
AlphaBeta profile(const std::string& name);
std::vector<std::string> profile_names();  // in networks.def's order
// The link from the rows of one algorithm in a commbench --json file (n = its ranks; a call of m
// bytes is 2(n-1) messages of m/n): the rows as samples, and a least-squares line through them,
// time = 2(n-1) alpha + 2(n-1)/n * bytes / bandwidth (and cpu_us in the same form where every row
// has it; negative coefficients clamp to 0), and the curve's leave-one-out residual (fit_residual).
// Throws naming the file when it has fewer than two sizes of that algorithm, n < 2, or the fit
// gives no positive bandwidth.
AlphaBeta fit_commbench(const std::string& json_path, const std::string& algo);

// The ring's straggler term: how much longer a step of a ring of n ranks is than the measured mean
// step of the calibration's ring of k = measured_ranks. Every rank of a ring sends and receives once
// per step and its next step needs its own and its left neighbour's previous one, so a ring is a
// pipeline: with its transfers drawn from the measured steps of the sample whose per-step message is
// nearest `step_bytes` (log scale), the factor is the simulated mean step of a ring of n over that of
// a ring of k (order_stats.h, ring_pipeline_step; rings past 32 ranks simulated at 32, where it has
// stopped growing). Until the fifth round of docs/projection.md it was a barrier per step (the
// slowest of n transfers), which overstated a ring of 8 by about a fifth. 1 where the link has no
// measured steps (profiles, given numbers, a commbench file without step_us, nccl); exactly 1 at
// n = k; below k under 1. An assumption, validated on the emulated cluster only.
double ring_step_factor(const AlphaBeta& link, int n, double step_bytes);
// How far ring_step_factor moves with the measured steps it is made of: the 95 % resampling
// interval (order_stats.h, bootstrap_interval) of that ratio over resamples of the steps, as ratios
// to the factor: {1, 1} where the factor is 1 by definition (no measured steps, n < 2, n = k).
std::pair<double, double> ring_step_interval(const AlphaBeta& link, int n, double step_bytes);
// The ranks of the ring that crosses the network in one allreduce of `kind` at n ranks: every rank
// (ring, native, multiworker) once they span 2+ nodes, the node leaders for hierarchical; 0 when no
// ring crosses it (one node; ps-sync, whose workers talk to the server; parameter-server shards
// between the nodes, sharded_between_nodes).
int network_ring_ranks(StrategyKind kind, int n, const Network& net);

// Seconds for one allreduce of `bytes` (what goes on the wire) over `n` ranks. ring and native:
// one ring over all ranks, 2(n-1) messages of bytes/n (placed ppn per node, so only node-boundary
// edges cross the network); hierarchical: chain reduce + broadcast inside nodes (the intra-node
// line) and a ring over the node leaders. With `stragglers` (the straggler term: project's
// --no-stragglers turns it off), a ring over the network is scaled by ring_step_factor. Where the
// nodes exchange through parameter-server shards (sharded_between_nodes), that exchange is a push and
// a pull, each one message of ps_shard_load x bytes over the link (the messages to the P shards go
// out at once: one latency a phase), in place of the ring between them; no ring straggler term.
// Over a transport (AlphaBeta::per_connection) the phase takes the longer of the node's load at
// node_rate() and the largest share one connection carries (max(shares) x bytes) at its rate.
double allreduce_time(StrategyKind kind, int n, double bytes, const Network& net, bool stragglers = false);
// CPU seconds one rank spends on that allreduce (the same message pattern costed with the links'
// cpu_per_msg_s / cpu_per_byte_s); 0 where the network model has no CPU costs.
double allreduce_cpu(StrategyKind kind, int n, double bytes, const Network& net);
// Seconds of a synchronous allreduce step's agreement at n ranks (every allreduce strategy ends its
// step with one allgather of a few bytes a rank, after the gradient's allreduce: the step's health,
// stop and noise-scale scalars). Open MPI's allgather of small blocks (recursive doubling, Bruck)
// takes ceil(log2 n) rounds, round i with the rank 2^i away: a round whose partner shares the node
// (2^i < ranks_per_node) costs an intra-node message, any other an inter-node round — the
// calibration's measured agreement over its ceil(log2 k) rounds where the commbench file has it (k
// its ranks, one a node), else one message of the link. 0 at n = 1 and for ps-sync (no agreement).
double agreement_time(StrategyKind kind, int n, const Network& net);
// The busiest node link's load in one phase of an exchange over P parameter-server shards on L nodes,
// one a node, shard i holding `shares[i]` of the gradient M (the shares sum to 1), as a multiple of M
// (docs/projection.md, "The model"): the node holding the largest share s receives (L-1) x s M from
// the others' workers; a worker sends its gradient to every shard but its own node's, (1 - its
// node's share) M, or all of M on a node without one (there are such nodes when P < L). Each
// direction has its own link (full duplex), so the phase takes the larger:
// max((L-1) max(shares), P < L ? 1 : 1 - min(shares)); equal shares: max((L-1)/P, P < L ? 1 : (P-1)/P).
// The pull mirrors the push. At P = L, equal, a node moves 2(L-1)/L M over both phases: a ring's
// bytes. Throws unless 2 <= L, 1 <= P <= L and the shares are 0 or more and sum to 1.
double ps_shard_load(int nodes, const std::vector<double>& shares);
double ps_shard_load(int nodes, int servers);  // P equal shares
// "--ps-shards 2:1,4:3" -> {2: 1, 4: 3}: NODES:SERVERS pairs; throws one line naming the pair for
// anything else, NODES < 2, SERVERS outside 1..NODES, or a node count given twice.
std::map<int, int> parse_ps_shards(const std::string& spec);
// Whether the exchange of `kind` between n ranks' nodes is costed as parameter-server shards
// (net.ps_shards given; hierarchical's exchange between node leaders, or ring/native/multiworker at
// one rank a node, across 2+ nodes). A flat ring of several ranks a node is not: it has no exchange
// between nodes alone to replace.
bool sharded_between_nodes(StrategyKind kind, int n, const Network& net);

// ps-sync: one step's push of the whole gradient from n workers to the server and the replies:
// the server's link carries n x bytes each way (the fitted line, not the samples); over a transport
// its n connections together at node_rate(), each at most one connection's rate.
double ps_step_time(int n, double bytes, const Network& net);

}  // namespace scalebench::project
