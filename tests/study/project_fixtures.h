// project_fixtures.h — the hand-made inputs the `scalebench project` tests share: a network of
// given alpha and bandwidth, a three-layer measured step with hand-checkable times, the same step
// with a spread of traced computes, and a commbench --json file of given rows (written as commbench
// writes it, kernels/common/json.h). Header-only, test code only.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "harness/study/project/netmodel.h"
#include "harness/study/project/projection.h"
#include "kernels/common/json.h"

namespace scalebench::project::fixtures {

inline Network net(double alpha, double bw, int ppn = 1) {
  return {.inter = {alpha, bw, "test"}, .intra = {1e-6, 1e9, "test intra"}, .ranks_per_node = ppn, .ps_shards = {}, .ps_placement = {}};
}

// P parameter-server shards of 1/P of the gradient each (Network::ps_shards' value without --ps-variables)
inline std::vector<double> equal_shares(int servers) { return std::vector<double>(servers, 1.0 / servers); }

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

// A commbench --json row of the ring: its bytes, count and time, then `more` members (cpu_us, step_us).
inline json::Json ring_row(std::int64_t bytes, double time_us, const json::Json& more = json::Json::object()) {
  json::Json row = {{"algo", "ring"}, {"bytes", bytes}, {"count", bytes / 4}, {"time_us", time_us}};
  for (auto it = more.begin(); it != more.end(); ++it) row[it.key()] = it.value();
  return row;
}

// A commbench --json file at `path`: its ranks, `extra` members (gap_ms, agree_us), then the rows.
inline std::string commbench_file(const std::string& path, int ranks, const json::Json& rows,
                                  const json::Json& extra = json::Json::object()) {
  json::Json doc = {{"ranks", ranks}};
  for (auto it = extra.begin(); it != extra.end(); ++it) doc[it.key()] = it.value();
  doc["results"] = rows;
  std::ofstream(path) << json::layout(doc);
  return path;
}

}  // namespace scalebench::project::fixtures
