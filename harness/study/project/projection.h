// projection.h — `scalebench project`: from one measured run's step timeline (rank 0's
// `train --trace` file: phase times and per-layer backward times with each layer's gradient range)
// and a network model (netmodel.h), predict step time, images/s, exposed communication and scaling
// efficiency per strategy at N = 1, 2, 4 … max, weak and strong scaling, with or without overlap
// and 16-bit compression. Compute per device is taken as measured (weak) or scaled
// linearly with the per-device batch (strong); a synchronous step waits for the slowest of N ranks
// (the expected maximum of N draws of the traced steps' compute); each prediction has a band from
// the traced steps' spread and the calibration's residuals. docs/projection.md states every
// assumption and the validation. It does not measure anything and does not launch runs, and it
// does not check its options against the trace's provenance (project_cli.cpp does).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "harness/record/table.h"
#include "harness/strategy/bucket_size.h"
#include "harness/study/project/netmodel.h"
#include "harness/study/project/order_stats.h"
#include "harness/train/trace.h"

namespace scalebench::project {

// One measured step, averaged over the trace's steps after the first (which pays for warm-up).
struct MeasuredStep {
  double data_s = 0, fwd_s = 0, bwd_s = 0, update_s = 0;
  struct Layer { std::string name; double bwd_s = 0; std::int64_t elems = 0; };
  std::vector<Layer> layers;  // backward order
  std::int64_t params = 0;    // gradient elements
  int steps = 0;              // averaged over
  // Each averaged step's compute (data + forward + backward + optimizer: everything but the
  // exchange), in step order: the distribution the straggler term and the band read. Empty: no
  // spread known (both then change nothing).
  std::vector<double> step_compute_s;
  trace::Provenance provenance;  // the run's /config and /context (empty in older traces)
};
// Throws naming the file when it is not a `train --trace` file or has fewer than two steps.
MeasuredStep read_trace(const std::string& path);

// E[the slowest of n ranks' step compute], each an independent draw from the traced steps: the
// fitted tail's estimate (order_stats.h, expected_max_tail: it keeps growing past the steps' count);
// with one rank slowed by `slow` < 1, the empirical expected_max(steps, n, slow) (the tail fit does
// not take a slowed rank: past the steps' count that case stops growing).
double slowest_of(const std::vector<double>& steps, int n, double slow = 1.0);
// The slowest of n ranks' step compute relative to one rank's mean: slowest_of(step_compute_s, n,
// slow) / mean; 1 for n <= 1, and without samples 1/slow (n >= 2).
double straggler_factor(const MeasuredStep& m, int n, double slow = 1.0);
// How far that estimate moves with the traced steps it is made of: the 95 % resampling interval
// (order_stats.h, bootstrap_interval) of slowest_of(step_compute_s, n, slow), as ratios to the
// estimate; {1, 1} for n <= 1 or fewer than two steps.
std::pair<double, double> straggler_interval(const MeasuredStep& m, int n, double slow = 1.0);
// A step of this strategy ends only when every worker's gradient is in: allreduce strategies and
// the synchronous parameter server (not ps-async).
bool synchronous(StrategyKind kind);
// The relative standard error of the traced mean step compute: sd / sqrt(K) / mean over
// step_compute_s (sample sd; 0 with fewer than two samples).
double compute_rel_se(const MeasuredStep& m);

struct Scenario {
  StrategyKind strategy = StrategyKind::ring;
  int n = 1;
  bool strong = false;      // strong scaling: the global batch is fixed
  bool overlap = true;
  bool compressed = false;  // 16-bit wire (ring, hierarchical)
};

struct Prediction {
  double step_s = 0, images_per_s = 0, comm_s = 0, exposed_s = 0, efficiency = 0;
  double device_batch = 0;
  int buckets = 0;
  double straggler = 1;  // the compute factor of the slowest rank (1: none, or the term is off)
};

// The other reading of a calibration point whose fitted link is faster than the link's assumed range
// allows, on a described step (calibrate.h): the link at that range's fast end, and the gradients ready
// over the last `ready` of backward (ready_over) in place of the described step's layers;
// `ready_lo` to `ready_hi`, what the point's spread leaves open. band() and stated_efficiency_range()
// take its extremes in beside the fitted link's. `present` false: none.
struct ReadyReading {
  bool present = false;
  AlphaBeta link;
  double ready = 0, ready_lo = 0, ready_hi = 0;
};

struct ProjectOptions {
  int batch = 0;              // per device in the measured run
  int global_batch = 0;       // strong scaling (0: the measured batch)
  double bucket_mb = kDefaultBucketMb;  // the run's --bucket-mb
  int max_devices = 1024;
  // The exchange's CPU (the network model's allreduce_cpu) comes out of the cores that run backward
  // while the two overlap: CPU training with a thread per core, or the emulated cluster's one-core nodes.
  bool comm_cpu_shared = false;
  // A synchronous step at N > 1 computes at the pace of its slowest rank (straggler_factor); off:
  // every rank computes the traced mean (--no-stragglers).
  bool stragglers = true;
  // One of the N ranks (N >= 2) computes at this fraction of the traced speed: a node or card known to
  // be slower than the traced one, which no N = 1 trace can show (--slow-node; part of the straggler
  // term, so only with `stragglers`).
  double slow_node = 1.0;
  // The band's what-ifs (band()): compute (every phase but the exchange) and every exchange's wire
  // time scaled by these.
  double compute_scale = 1.0, comm_scale = 1.0;
  // The stated relative uncertainty of a step that was described, not measured (--compute-spread:
  // tools/synthetic_trace.py's steps are identical, so the traced spread is 0): the efficiency band
  // takes compute x(1 -/+ it), the same at N = 1 and N (stated_efficiency_range).
  double stated_spread = 0.0;
  // When gradients are ready was not measured (a described step: tools/synthetic_trace.py's layers are
  // an assumption): the band brackets it by its ends (ready_extremes) — all at the end of backward on
  // its slow extreme, spread evenly over backward on its fast one; the point keeps the trace's layers.
  bool ready_assumed = false;
  // Its range as fractions of backward over which the gradients are spread evenly (ready_over): the
  // slow extreme's and the fast one's. 0 to 1 by default; a calibration's other reading brings its own.
  double ready_lo = 0.0, ready_hi = 1.0;
  ReadyReading ready_reading;
};

// The buckets of the bucketer (harness/strategy/bucketer.cpp): layers in backward order fill a
// bucket until it holds bucket_elems; the rest is the last bucket. (ready time, elements) pairs.
std::vector<std::pair<double, std::int64_t>> buckets_of(const MeasuredStep& m, double bwd_scale, std::int64_t bucket_elems);

// m with its gradients ready evenly over the last `fraction` (0 to 1) of backward: 0, every one when
// backward ends; 1, spread evenly over all of it. As equal layers of at most an eighth of a bucket each
// (the same buckets at every fraction); m's phases and step_compute_s kept.
MeasuredStep ready_over(const MeasuredStep& m, const ProjectOptions& o, double fraction);

// The two ends of "when gradients are ready" for a step whose layers were not measured
// (o.ready_assumed): {slow, fast} = ready_over at o.ready_lo and o.ready_hi, by default {every
// gradient ready when backward ends (nothing overlaps), the gradients spread evenly over backward}.
// {m, m} where the layers were measured (ready_assumed false). band() takes the trace's layers too at
// both extremes (the slower of them and all at the end, the faster of them and the even spread): a
// few large buckets pay fewer latencies than many.
std::pair<MeasuredStep, MeasuredStep> ready_extremes(const MeasuredStep& m, const ProjectOptions& o);

// Backward with its buckets reduced on the communication thread, one at a time in order, each
// starting when backward has produced it (`ready`, seconds of backward compute) and the previous one
// is done. A bucket takes `wire[b]` seconds; while it runs beside backward it takes `cpu[b]` of CPU
// from it, spread evenly over the bucket (backward then advances at 1 - min(1, cpu/wire) of its
// speed). Returns {wall time at which backward ends, wall time at which the last bucket ends}.
std::pair<double, double> overlap_timeline(const std::vector<std::pair<double, std::int64_t>>& buckets, double bwd_s,
                                           const std::vector<double>& wire, const std::vector<double>& cpu);

Prediction predict(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const Scenario& s);

// A prediction's band (docs/projection.md, "The band"): its step with compute scaled by
// 1 -/+ 2 compute_rel_se(m) — with the straggler term at N >= 2 by straggler_interval where that is
// wider — and communication by 1 -/+ the link's fit_residual (commbench fits; 0 for profiles and
// given numbers) times, with the term, the network ring's ring_step_interval for one bucket; the
// two extremes together. Efficiency's band pairs the N = 1 step's opposite extreme (the N = 1
// reference is a separate run): project_all.
// Where a link has an assumed range (AlphaBeta::ranged: a profile's delivered range, what a
// calibration leaves open, a GPU node's unstated intra-node link: assumed_intra), the fast extreme
// takes its fast end and the slow extreme its slow end; where when gradients are ready was not
// measured (o.ready_assumed), the slow extreme is the slower of the trace's layers and all at the end
// of backward, the fast one the faster of them and an even spread (ready_extremes); with a
// calibration's other reading (o.ready_reading), that reading's band too; the band always holds the
// point.
struct Band { double step_lo = 0, step_hi = 0; };
Band band(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const Scenario& s);
// A described step's efficiency range at s.n (weak or strong as s): compute x(1 + stated_spread) on
// the links' fast ends (and the fast end of ready_extremes) and x(1 - stated_spread) on their slow
// ends (and the slow end of ready_extremes), each against N = 1 at the same
// compute (a described step's error is the same at every N). project_all widens the band by it.
std::pair<double, double> stated_efficiency_range(const MeasuredStep& m, const Network& net, const ProjectOptions& o,
                                                  const Scenario& s);
// The header's `# inputs:` line: which inputs were measured and which assumed (the step: traced or
// described, with its stated spread; when gradients are ready: traced, or assumed with its range; the
// inter-node link: measured, calibrated or assumed, with its range; the intra-node link: given, or
// assumed with its range or none).
std::string inputs_note(const MeasuredStep& m, const Network& net, const ProjectOptions& o);

// What the ring's straggler term (netmodel.h, ring_step_factor) does in this projection, one line for
// the table's header and the study file's `ring_steps`: off, no measured steps, or on with its factor
// at N = 4 and max_devices for a ring of one bucket.
std::string ring_steps_note(const MeasuredStep& m, const Network& net, const ProjectOptions& o);

// Every projected strategy (StrategyTraits::project_row), weak and strong, N = 1, 2, 4 … max_devices,
// with overlap and the wire type as asked (`wire` applies where the strategy takes --compression):
// the study-schema rows (one per prediction, with its band, straggler factor and the trace's
// context columns: hosts, commit …), and the same rows as a table written to `out`.
record::Table project_all(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const std::string& model,
                          bool overlap, comm::WireType wire, std::ostream& out);

}  // namespace scalebench::project
