// sampler.h — DistributedSampler semantics over an index range [begin, end): every rank draws the
// same permutation for an epoch (seed + epoch), then takes the indices rank, rank+world, ... so the
// shards are disjoint. drop_last=false pads by wrapping to make shards equal length (as PyTorch);
// drop_last=true truncates to a multiple of world. Batches that would be short are dropped by the
// loader, not here.
#pragma once

#include <cstdint>
#include <vector>

namespace scalebench::data {

struct SamplerConfig {
  std::int64_t begin = 0, end = 0;  // index range of the split
  int world = 1, rank = 0;
  std::uint64_t seed = 1;
  bool shuffle = true;
  bool drop_last = false;
};

class ShardedSampler {
 public:
  explicit ShardedSampler(const SamplerConfig& cfg);
  std::vector<std::int64_t> indices(int epoch) const;  // this rank's indices, in order
  std::int64_t per_rank() const;                       // length of indices(epoch)
 private:
  SamplerConfig cfg_;
};

}  // namespace scalebench::data
