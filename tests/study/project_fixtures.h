// project_fixtures.h — the hand-made inputs the `scalebench project` tests share: a network of
// given alpha and bandwidth, a three-layer measured step with hand-checkable times, and the same step
// with a spread of traced computes. Header-only, test code only; no file I/O.
#pragma once

#include "harness/study/project/netmodel.h"
#include "harness/study/project/projection.h"

namespace scalebench::project::fixtures {

inline Network net(double alpha, double bw, int ppn = 1) {
  return {.inter = {alpha, bw, "test"}, .intra = {1e-6, 1e9, "test intra"}, .ranks_per_node = ppn};
}

inline MeasuredStep three_layers() {
  MeasuredStep m;
  m.data_s = 0.005, m.fwd_s = 0.015, m.bwd_s = 0.040, m.update_s = 0.005;
  m.layers = {{"a", 0.010, 1'000'000}, {"b", 0.020, 1'000'000}, {"c", 0.010, 2'000'000}};
  m.params = 4'000'000;
  return m;
}

// three_layers() whose two traced steps computed 60 and 70 ms (mean 65, as its phases sum to)
inline MeasuredStep spread_steps() {
  MeasuredStep m = three_layers();
  m.step_compute_s = {0.060, 0.070};
  return m;
}

}  // namespace scalebench::project::fixtures
