// batchnorm.cpp — per-channel batch normalisation over (N, H·W), NCHW float32, PyTorch semantics:
// train mode normalises with the biased batch variance and moves the running variance toward the
// unbiased one; eval mode uses the running statistics. Statistics accumulate in double (two passes:
// mean, then centred squares) so large planes do not lose precision: each row of H·W values is summed
// in 16 float lanes (vectorisable, and each lane adds only H·W/16 values), each row's total in
// double. Synchronised batch norm: a
// caller-given StatSum adds the per-channel sums over the replicas; the kernel does no
// communication itself and knows nothing of who the replicas are. Channels are split over the rank's
// threads (parallel.h): a channel's sums stay in one thread, so the thread count changes no bit.
// A ReLU after the batch norm can be fused (batchnorm.h): the forward clamps as it writes, the
// backward masks the gradient as it reads it, one pass over memory fewer each way; each element
// gets the bits the separate ReLU (relu.cpp) would give it. No other activation.
#include "kernels/cpu/batchnorm.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/common/check.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vector_clones.h"

namespace scalebench::cpu {
namespace {

void validate(const BatchNormParams& p) {
  SB_CHECK(p.n > 0 && p.c > 0 && p.hw > 0, "batchnorm: bad sizes n={} c={} hw={}", p.n, p.c, p.hw);
}

// Row sums: 16 independent float accumulators the compiler maps onto vector registers (a single
// double accumulator is a serial chain of scalar adds), one double total per row. Built for
// AVX-512, AVX2 and the baseline (SB_VECTOR_CLONES); each lane adds in the same order in every version.
constexpr int kLanes = 16;

// Σ x[k]
SB_VECTOR_CLONES double row_sum(const float* x, int n) {
  float acc[kLanes] = {};
  int k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += x[k + j];
  double s = 0.0;
  for (int j = 0; j < kLanes; ++j) s += acc[j];
  for (; k < n; ++k) s += x[k];
  return s;
}

// Σ (x[k] − mean)²
SB_VECTOR_CLONES double row_centred_squares(const float* x, int n, float mean) {
  float acc[kLanes] = {};
  int k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float d = x[k + j] - mean;
      acc[j] += d * d;
    }
  double s = 0.0;
  for (int j = 0; j < kLanes; ++j) s += acc[j];
  for (; k < n; ++k) {
    const double d = double(x[k]) - mean;
    s += d * d;
  }
  return s;
}

// Σ dy[k] and Σ dy[k]·(x[k] − mean), added to the two totals.
SB_VECTOR_CLONES void row_grad_sums(const float* x, const float* dy, int n, float mean, double& sum_dy,
                                    double& sum_dy_xc) {
  float a[kLanes] = {}, b[kLanes] = {};
  int k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      a[j] += dy[k + j];
      b[j] += dy[k + j] * (x[k + j] - mean);
    }
  for (int j = 0; j < kLanes; ++j) sum_dy += a[j], sum_dy_xc += b[j];
  for (; k < n; ++k) {
    sum_dy += dy[k];
    sum_dy_xc += double(dy[k]) * (double(x[k]) - mean);
  }
}

// y[k] = a·dy[k] + b·(x[k] − mean) + c
SB_VECTOR_CLONES void row_dx(const float* x, const float* dy, float* dx, int n, float a, float b, float c,
                             float mean) {
  for (int k = 0; k < n; ++k) dx[k] = a * dy[k] + b * (x[k] - mean) + c;
}

// The fused ReLU's gradient mask: whether the forward wrote a positive value for x, recomputed from x
// with the forward's centre, scale and shift (the same float operations as row_affine_relu, so the
// same decision), instead of reading the output back: one stream of memory fewer.
inline bool relu_passes(float x, float centre, float scale, float shift) {
  return (x - centre) * scale + shift > 0.0f;
}

// row_grad_sums of g[k] = relu_passes(x[k]) ? dy[k] : 0 (the ReLU's backward, relu.cpp, then this).
SB_VECTOR_CLONES void row_grad_sums_relu(const float* x, const float* dy, int n, float mean, float scale,
                                         float shift, double& sum_dy, double& sum_dy_xc) {
  float a[kLanes] = {}, b[kLanes] = {};
  int k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float v = dy[k + j];
      const float g = relu_passes(x[k + j], mean, scale, shift) ? v : 0.0f;
      a[j] += g;
      b[j] += g * (x[k + j] - mean);
    }
  for (int j = 0; j < kLanes; ++j) sum_dy += a[j], sum_dy_xc += b[j];
  for (; k < n; ++k) {
    const float v = dy[k];
    const float g = relu_passes(x[k], mean, scale, shift) ? v : 0.0f;
    sum_dy += g;
    sum_dy_xc += double(g) * (double(x[k]) - mean);
  }
}

// row_dx of g[k] = relu_passes(x[k]) ? dy[k] : 0.
SB_VECTOR_CLONES void row_dx_relu(const float* x, const float* dy, float* dx, int n, float a, float b, float c,
                                  float mean, float scale, float shift) {
  for (int k = 0; k < n; ++k) {
    const float v = dy[k];
    const float g = relu_passes(x[k], mean, scale, shift) ? v : 0.0f;
    dx[k] = a * g + b * (x[k] - mean) + c;
  }
}

// y[k] = max((x[k] − centre)·scale + shift, 0), written as relu.cpp's forward writes it.
SB_VECTOR_CLONES void row_affine_relu(const float* x, float* y, int n, float centre, float scale, float shift) {
  for (int k = 0; k < n; ++k) {
    const float v = (x[k] - centre) * scale + shift;
    y[k] = v > 0.0f ? v : 0.0f;
  }
}

// y[k] = (x[k] − centre)·scale + shift
SB_VECTOR_CLONES void row_affine(const float* x, float* y, int n, float centre, float scale, float shift) {
  for (int k = 0; k < n; ++k) y[k] = (x[k] - centre) * scale + shift;
}

// Pointer to row (sample i, channel ch) of x [n, c, hw].
template <class T>
T* row(const BatchNormParams& p, T* x, int i, int ch) {
  return x + (std::size_t(i) * p.c + ch) * p.hw;
}

// y = (x − centre)·scale + shift over one channel; centring first keeps precision when the mean is
// large compared with the spread.
// With relu, max(·, 0) of it.
void affine(const BatchNormParams& p, const float* x, float* y, int ch, float centre, float scale, float shift,
            bool relu) {
  for (int i = 0; i < p.n; ++i)
    (relu ? row_affine_relu : row_affine)(row(p, x, i, ch), row(p, y, i, ch), p.hw, centre, scale, shift);
}

}  // namespace

// Channels per thread at least, so that each thread has about kValuesPerThread values.
std::int64_t channel_grain(const BatchNormParams& p) { return kValuesPerThread / (std::int64_t(p.n) * p.hw) + 1; }

// fn(ch) for every channel, the channels split over the rank's threads.
template <class Fn>
void for_channels(const BatchNormParams& p, Fn&& fn) {
  parallel_for(p.c, channel_grain(p), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t ch = first; ch < last; ++ch) fn(int(ch));
  });
}

void batchnorm_forward_train(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                             float* y, float* save_mean, float* save_invstd, float* running_mean,
                             float* running_var, const StatSum& sum_over_replicas, const FusedRelu& relu) {
  validate(p);
  SB_CHECK((relu.scale == nullptr) == (relu.shift == nullptr), "batchnorm: fused ReLU needs both scale and shift");
  // Per channel: the sum, then (with the mean known) the centred squares — each a vector over the
  // channels, so synchronised batch norm adds them over the replicas in one call each. The last
  // entry of the first vector is the value count.
  std::vector<double> sums(std::size_t(p.c) + 1, 0.0), sq(std::size_t(p.c), 0.0);
  for_channels(p, [&](int ch) {
    for (int i = 0; i < p.n; ++i) sums[std::size_t(ch)] += row_sum(row(p, x, i, ch), p.hw);
  });
  sums[std::size_t(p.c)] = double(p.n) * p.hw;
  if (sum_over_replicas) sum_over_replicas(sums.data(), sums.size());
  const double count = sums[std::size_t(p.c)];
  // PyTorch refuses this too: the unbiased variance of one value is undefined.
  SB_CHECK(count > 1, "batchnorm: training needs more than one value per channel (n={}, hw={})", p.n, p.hw);
  for_channels(p, [&](int ch) {
    const float mean = static_cast<float>(sums[std::size_t(ch)] / count);
    for (int i = 0; i < p.n; ++i) sq[std::size_t(ch)] += row_centred_squares(row(p, x, i, ch), p.hw, mean);
  });
  if (sum_over_replicas) sum_over_replicas(sq.data(), sq.size());
  for_channels(p, [&](int ch) {
    const double mean = sums[std::size_t(ch)] / count;
    const double var = sq[std::size_t(ch)] / count;  // biased: used to normalise
    const double invstd = 1.0 / std::sqrt(var + p.eps);
    save_mean[ch] = static_cast<float>(mean);
    save_invstd[ch] = static_cast<float>(invstd);
    const double m = p.momentum;
    running_mean[ch] = static_cast<float>((1.0 - m) * running_mean[ch] + m * mean);
    running_var[ch] = static_cast<float>((1.0 - m) * running_var[ch] + m * var * count / (count - 1.0));
    const float scale = static_cast<float>(gamma[ch] * invstd);
    if (relu.scale) relu.scale[ch] = scale, relu.shift[ch] = beta[ch];
    affine(p, x, y, ch, static_cast<float>(mean), scale, beta[ch], relu.scale != nullptr);
  });
}

void batchnorm_forward_eval(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                            const float* running_mean, const float* running_var, float* y, bool relu) {
  validate(p);
  for_channels(p, [&](int ch) {
    const double scale = gamma[ch] / std::sqrt(double(running_var[ch]) + p.eps);
    affine(p, x, y, ch, running_mean[ch], static_cast<float>(scale), beta[ch], relu);
  });
}

void batchnorm_backward(const BatchNormParams& p, const float* x, const float* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, float* dx, float* dgamma,
                        float* dbeta, const StatSum& sum_over_replicas, const FusedReluSaved& relu) {
  validate(p);
  SB_CHECK((relu.scale == nullptr) == (relu.shift == nullptr), "batchnorm: fused ReLU needs both scale and shift");
  // Per channel Σdy and Σdy·(x − mean), then the value count: this replica's sums give dgamma and
  // dbeta (the strategy averages those like every gradient); dx needs the global batch's sums.
  const std::size_t c = std::size_t(p.c);
  std::vector<double> sums(2 * c + 1, 0.0);
  for_channels(p, [&](int ch) {
    double sum_dy = 0.0, sum_dy_xc = 0.0;
    for (int i = 0; i < p.n; ++i) {
      if (relu.scale)
        row_grad_sums_relu(row(p, x, i, ch), row(p, dy, i, ch), p.hw, save_mean[ch], relu.scale[ch], relu.shift[ch],
                           sum_dy, sum_dy_xc);
      else
        row_grad_sums(row(p, x, i, ch), row(p, dy, i, ch), p.hw, save_mean[ch], sum_dy, sum_dy_xc);
    }
    dbeta[ch] = static_cast<float>(sum_dy);
    dgamma[ch] = static_cast<float>(sum_dy_xc * save_invstd[ch]);
    sums[std::size_t(ch)] = sum_dy;
    sums[c + std::size_t(ch)] = sum_dy_xc;
  });
  sums[2 * c] = double(p.n) * p.hw;
  if (sum_over_replicas) sum_over_replicas(sums.data(), sums.size());
  const double count = sums[2 * c];
  for_channels(p, [&](int ch) {
    const double mean = save_mean[ch], invstd = save_invstd[ch];
    const double sum_dy = sums[std::size_t(ch)], sum_dy_xc = sums[c + std::size_t(ch)];
    // dx = γ·invstd·(dy − mean(dy) − x̂·mean(dy·x̂)) with x̂ = (x − mean)·invstd, folded into
    // dx = a·dy + b·(x − mean) + c with per-channel constants, one pass per element.
    const double a = gamma[ch] * invstd;
    const double b = -a * invstd * invstd * sum_dy_xc / count;
    const double c0 = -a * sum_dy / count;
    const float af = static_cast<float>(a), bf = static_cast<float>(b), cf = static_cast<float>(c0);
    const float mf = static_cast<float>(mean);
    for (int i = 0; i < p.n; ++i) {
      if (relu.scale)
        row_dx_relu(row(p, x, i, ch), row(p, dy, i, ch), row(p, dx, i, ch), p.hw, af, bf, cf, mf, relu.scale[ch],
                    relu.shift[ch]);
      else
        row_dx(row(p, x, i, ch), row(p, dy, i, ch), row(p, dx, i, ch), p.hw, af, bf, cf, mf);
    }
  });
}

}  // namespace scalebench::cpu
