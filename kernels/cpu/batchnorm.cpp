// batchnorm.cpp — per-channel batch normalisation over (N, H·W), NCHW float32, PyTorch semantics:
// train mode normalises with the biased batch variance and moves the running variance toward the
// unbiased one; eval mode uses the running statistics. Statistics accumulate in double (two passes:
// mean, then centred squares) so large planes do not lose precision. No fused activation, no
// cross-process (sync) statistics: the strategies decide whether to synchronise them.
#include "kernels/cpu/batchnorm.h"

#include <cmath>
#include <cstddef>

#include "kernels/common/check.h"

namespace scalebench::cpu {
namespace {

void validate(const BatchNormParams& p) {
  SB_CHECK(p.n > 0 && p.c > 0 && p.hw > 0, "batchnorm: bad sizes n={} c={} hw={}", p.n, p.c, p.hw);
}

// Pointer to row (sample i, channel ch) of x [n, c, hw].
template <class T>
T* row(const BatchNormParams& p, T* x, int i, int ch) {
  return x + (std::size_t(i) * p.c + ch) * p.hw;
}

// y = (x − centre)·scale + shift over one channel; centring first keeps precision when the mean is
// large compared with the spread.
void affine(const BatchNormParams& p, const float* x, float* y, int ch, float centre, float scale, float shift) {
  for (int i = 0; i < p.n; ++i) {
    const float* xr = row(p, x, i, ch);
    float* yr = row(p, y, i, ch);
    for (int k = 0; k < p.hw; ++k) yr[k] = (xr[k] - centre) * scale + shift;
  }
}

}  // namespace

void batchnorm_forward_train(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                             float* y, float* save_mean, float* save_invstd, float* running_mean,
                             float* running_var) {
  validate(p);
  const double count = double(p.n) * p.hw;
  // PyTorch refuses this too: the unbiased variance of one value is undefined.
  SB_CHECK(count > 1, "batchnorm: training needs more than one value per channel (n={}, hw={})", p.n, p.hw);
  for (int ch = 0; ch < p.c; ++ch) {
    double sum = 0.0;
    for (int i = 0; i < p.n; ++i) {
      const float* xr = row(p, x, i, ch);
      for (int k = 0; k < p.hw; ++k) sum += xr[k];
    }
    const double mean = sum / count;
    double sq = 0.0;
    for (int i = 0; i < p.n; ++i) {
      const float* xr = row(p, x, i, ch);
      for (int k = 0; k < p.hw; ++k) {
        const double d = xr[k] - mean;
        sq += d * d;
      }
    }
    const double var = sq / count;  // biased: used to normalise
    const double invstd = 1.0 / std::sqrt(var + p.eps);
    save_mean[ch] = static_cast<float>(mean);
    save_invstd[ch] = static_cast<float>(invstd);
    const double m = p.momentum;
    running_mean[ch] = static_cast<float>((1.0 - m) * running_mean[ch] + m * mean);
    running_var[ch] = static_cast<float>((1.0 - m) * running_var[ch] + m * var * count / (count - 1.0));
    affine(p, x, y, ch, static_cast<float>(mean), static_cast<float>(gamma[ch] * invstd), beta[ch]);
  }
}

void batchnorm_forward_eval(const BatchNormParams& p, const float* x, const float* gamma, const float* beta,
                            const float* running_mean, const float* running_var, float* y) {
  validate(p);
  for (int ch = 0; ch < p.c; ++ch) {
    const double scale = gamma[ch] / std::sqrt(double(running_var[ch]) + p.eps);
    affine(p, x, y, ch, running_mean[ch], static_cast<float>(scale), beta[ch]);
  }
}

void batchnorm_backward(const BatchNormParams& p, const float* x, const float* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, float* dx, float* dgamma,
                        float* dbeta) {
  validate(p);
  const double count = double(p.n) * p.hw;
  for (int ch = 0; ch < p.c; ++ch) {
    const double mean = save_mean[ch], invstd = save_invstd[ch];
    double sum_dy = 0.0, sum_dy_xc = 0.0;  // Σdy and Σdy·(x - mean)
    for (int i = 0; i < p.n; ++i) {
      const float* xr = row(p, x, i, ch);
      const float* dr = row(p, dy, i, ch);
      for (int k = 0; k < p.hw; ++k) {
        sum_dy += dr[k];
        sum_dy_xc += dr[k] * (xr[k] - mean);
      }
    }
    dbeta[ch] = static_cast<float>(sum_dy);
    dgamma[ch] = static_cast<float>(sum_dy_xc * invstd);
    // dx = γ·invstd·(dy − mean(dy) − x̂·mean(dy·x̂)) with x̂ = (x − mean)·invstd, folded into
    // dx = a·dy + b·(x − mean) + c with per-channel constants, one pass per element.
    const double a = gamma[ch] * invstd;
    const double b = -a * invstd * invstd * sum_dy_xc / count;
    const double c = -a * sum_dy / count;
    const float af = static_cast<float>(a), bf = static_cast<float>(b), cf = static_cast<float>(c);
    const float mf = static_cast<float>(mean);
    for (int i = 0; i < p.n; ++i) {
      const float* xr = row(p, x, i, ch);
      const float* dr = row(p, dy, i, ch);
      float* gr = row(p, dx, i, ch);
      for (int k = 0; k < p.hw; ++k) gr[k] = af * dr[k] + bf * (xr[k] - mf) + cf;
    }
  }
}

}  // namespace scalebench::cpu
