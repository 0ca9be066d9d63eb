// loader.h — DataLoader: batches of a rank's shard, read by a background prefetch thread a few
// batches ahead, so reading overlaps compute. Deterministic given the sampler's seed. Incomplete
// final batches are dropped (every step has the same global batch, which strategy equivalence
// needs). Errors on the prefetch thread are re-thrown on the consumer's next() call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/data/dataset.h"
#include "harness/data/sampler.h"

namespace scalebench::data {

struct Batch {
  int size = 0;
  std::vector<float> images;         // [size, C, H, W]
  std::vector<std::int32_t> labels;  // [size, H, W] or [size]
  std::vector<std::int64_t> indices;
};

class DataLoader {
 public:
  DataLoader(const std::string& path, const SamplerConfig& sampler, int batch_size, int prefetch = 2);
  ~DataLoader();
  const DatasetInfo& info() const;
  std::int64_t batches_per_epoch() const;
  void start_epoch(int epoch);  // begins prefetching the epoch's batches
  bool next(Batch& out);        // false when the epoch is exhausted
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace scalebench::data
