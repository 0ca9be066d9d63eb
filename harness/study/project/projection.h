// projection.h — `scalebench project`: from one measured run's step timeline (rank 0's
// `train --trace` file: phase times and per-layer backward times with each layer's gradient range)
// and a network model (netmodel.h), predict step time, images/s, exposed communication and scaling
// efficiency per strategy at N = 1, 2, 4 … max, weak and strong scaling, with or without overlap
// and 16-bit compression. Compute per device is taken as measured (weak) or scaled
// linearly with the per-device batch (strong); docs/projection.md states every assumption and the
// validation. It does not measure anything and does not launch runs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/record/table.h"
#include "harness/study/project/netmodel.h"

namespace scalebench::project {

// One measured step, averaged over the trace's steps after the first (which pays for warm-up).
struct MeasuredStep {
  double data_s = 0, fwd_s = 0, bwd_s = 0, update_s = 0;
  struct Layer { std::string name; double bwd_s = 0; std::int64_t elems = 0; };
  std::vector<Layer> layers;  // backward order
  std::int64_t params = 0;    // gradient elements
  int steps = 0;              // averaged over
};
// Throws naming the file when it is not a `train --trace` file or has fewer than two steps.
MeasuredStep read_trace(const std::string& path);

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
};

struct ProjectOptions {
  int batch = 0;              // per device in the measured run
  int global_batch = 0;       // strong scaling (0: the measured batch)
  double bucket_mb = 4.0;     // the run's --bucket-mb
  int max_devices = 1024;
  // The exchange's CPU (the network model's allreduce_cpu) comes out of the cores that run backward
  // while the two overlap: CPU training with a thread per core, or the emulated cluster's one-core nodes.
  bool comm_cpu_shared = false;
};

// The buckets of the bucketer (harness/strategy/bucketer.cpp): layers in backward order fill a
// bucket until it holds bucket_elems; the rest is the last bucket. (ready time, elements) pairs.
std::vector<std::pair<double, std::int64_t>> buckets_of(const MeasuredStep& m, double bwd_scale, std::int64_t bucket_elems);

// Backward with its buckets reduced on the communication thread, one at a time in order, each
// starting when backward has produced it (`ready`, seconds of backward compute) and the previous one
// is done. A bucket takes `wire[b]` seconds; while it runs beside backward it takes `cpu[b]` of CPU
// from it, spread evenly over the bucket (backward then advances at 1 - min(1, cpu/wire) of its
// speed). Returns {wall time at which backward ends, wall time at which the last bucket ends}.
std::pair<double, double> overlap_timeline(const std::vector<std::pair<double, std::int64_t>>& buckets, double bwd_s,
                                           const std::vector<double>& wire, const std::vector<double>& cpu);

Prediction predict(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const Scenario& s);

// Every strategy, weak and strong, N = 1, 2, 4 … max_devices, with overlap and compression as asked:
// the study-schema rows (one per prediction), and the same rows as a table written to `out`.
record::Table project_all(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const std::string& model,
                          bool overlap, bool compressed, std::ostream& out);

}  // namespace scalebench::project
