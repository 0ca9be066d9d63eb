// sampler.cpp — DistributedSampler semantics (as PyTorch's torch.utils.data.DistributedSampler):
// one permutation per (seed, epoch) shared by all ranks, padded by wrap-around or truncated to a
// multiple of world, then strided by rank. It does not batch and does not touch the dataset.
#include "harness/data/sampler.h"

#include <numeric>

#include "harness/data/rng.h"
#include "kernels/common/check.h"

namespace scalebench::data {

ShardedSampler::ShardedSampler(const SamplerConfig& cfg) : cfg_(cfg) {
  SB_REQUIRE(cfg.world >= 1, "sampler: world size {} must be >= 1", cfg.world);
  SB_REQUIRE(cfg.rank >= 0 && cfg.rank < cfg.world, "sampler: rank {} outside [0, {})", cfg.rank,
             cfg.world);
  SB_REQUIRE(cfg.begin >= 0 && cfg.end >= cfg.begin, "sampler: bad index range [{}, {})", cfg.begin,
             cfg.end);
}

std::int64_t ShardedSampler::per_rank() const {
  const std::int64_t n = cfg_.end - cfg_.begin;
  const std::int64_t w = cfg_.world;
  return cfg_.drop_last ? n / w : (n + w - 1) / w;
}

std::vector<std::int64_t> ShardedSampler::indices(int epoch) const {
  const std::int64_t n = cfg_.end - cfg_.begin;
  std::vector<std::int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), cfg_.begin);
  if (cfg_.shuffle && n > 1) {
    // Fisher-Yates with our own RNG: identical on every rank and every platform.
    detail::Rng rng(cfg_.seed, static_cast<std::uint64_t>(static_cast<std::uint32_t>(epoch)),
                    0x5A4D504C45ull /* "SAMPLE" stream */);
    for (std::int64_t i = n - 1; i > 0; --i) {
      const auto j = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)));
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
    }
  }

  const std::int64_t per = per_rank();
  const std::int64_t total = per * cfg_.world;
  // Pad by wrapping around the permutation (repeatedly if the split is smaller than the padding),
  // or truncate: either way the list has exactly total entries.
  std::vector<std::int64_t> out;
  out.reserve(static_cast<size_t>(per));
  for (std::int64_t pos = cfg_.rank; pos < total; pos += cfg_.world)
    out.push_back(order[static_cast<size_t>(pos % n)]);
  return out;
}

}  // namespace scalebench::data
