// noise_scale.h — the gradient noise scale B_simple = tr(Σ) / |G|² (McCandlish et al. 2018, "An
// Empirical Model of Large-Batch Training", appendix A) from squared gradient norms at two batch
// sizes: what a strategy measures per step (GradNorms), an epoch's sums of them (NoiseScaleSums),
// the unbiased two-batch estimator, and why a run cannot measure it (docs/metrics.md).
// What it deliberately does not do: take norms or communicate (the strategies do, on the model's
// device, through scalar_reduce), or know batch sizes beyond the two it is given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/strategy/strategy_traits.h"

namespace scalebench {

// One step's measurement. small_sq: |G_small|², the mean over the step's small batches (the
// replicas' own gradients, or one replica's micro-batches); big_sq: |G_big|², the gradient of all
// of them together. Both gradients are means over their samples. smalls = B_big / B_small; 0 when
// the step measured nothing (one batch size only, a parameter server, a non-finite step).
struct GradNorms {
  double small_sq = 0;
  double big_sq = 0;
  int smalls = 0;
};

struct NoiseScale {
  double trace;     // tr(Σ) estimate: Σ the per-sample gradient covariance
  double sq_norm;   // |G|² estimate: G the true (expected) gradient
  double b_simple;  // trace / sq_norm; NaN unless sq_norm > 0 (a noisy |G|² estimate can be <= 0)
};

// The unbiased estimates from E|G_B|² = |G|² + tr(Σ)/B at B = b_small and b_big (b_big > b_small):
//   |G|² = (b_big·big_sq − b_small·small_sq) / (b_big − b_small)
//   tr(Σ) = (small_sq − big_sq) / (1/b_small − 1/b_big)
// and their ratio. small_sq, big_sq should already be averages over many steps: the ratio of
// averages, not an average of per-step ratios (which a near-zero |G|² estimate wrecks).
NoiseScale estimate_noise_scale(double small_sq, double big_sq, double b_small, double b_big);

// An epoch's (or a checkpointed part-epoch's) measured steps. Trivially copyable: checkpoints
// carry it as bytes.
struct NoiseScaleSums {
  double small_sq = 0, big_sq = 0;  // summed over `steps`
  std::int64_t steps = 0;
  int smalls = 0;                   // the same on every measured step of a run
  void add(const GradNorms& n);     // a step with smalls = 0 is left out
  // B_big = global_batch (every replica's batch × --accumulate), B_small = global_batch / smalls.
  // All NaN when no step was measured.
  NoiseScale estimate(std::int64_t global_batch) const;
};

// Why a run of this strategy, worker count and --accumulate cannot measure it; "" when it can.
std::string noise_scale_unmeasurable(const StrategyTraits& t, int workers, int accumulate);

}  // namespace scalebench
