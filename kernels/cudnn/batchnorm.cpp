// batchnorm.cpp — cuDNN spatial batch norm (see batchnorm.h for the conventions).
// Data descriptor [n, c, hw, 1] in the spec's layout (NHWC [n, hw, 1, c] is the same memory as
// [n, hw, c]); parameter descriptor [1, c, 1, 1] f32 NCHW (for one element per channel NCHW and
// NHWC are the same memory). Uses the legacy cudnnBatchNormalization* entry points.
// Not here: per-activation mode, fused activation, sync BN.
#include "kernels/cudnn/batchnorm.h"

#include "kernels/cudnn/check.h"
#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {
namespace {
// NHWC: cuDNN's plain spatial kernels are ~15x slower there than in NCHW (measured on an H100,
// docs/gpu.md); the persistent variant is its fast NHWC path, but it may reduce in a
// run-dependent order, so deterministic runs keep the plain mode. Forward and backward must agree.
cudnnBatchNormMode_t train_mode(const BatchNormSpec& s) {
  return s.layout == Layout::NHWC && !s.deterministic ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT : CUDNN_BATCHNORM_SPATIAL;
}
}  // namespace
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;

void validate(const BatchNormSpec& s, const char* what) {
  const auto& p = s.p;
  SB_CHECK(p.n > 0 && p.c > 0 && p.hw > 0, "{} (cuDNN): bad sizes n={} c={} hw={}", what, p.n, p.c, p.hw);
  SB_CHECK(double(p.eps) >= CUDNN_BN_MIN_EPSILON, "{} (cuDNN): eps {} below cuDNN's minimum {}", what, p.eps,
           CUDNN_BN_MIN_EPSILON);
}

struct Descs {  // the cached descriptors of one call (descriptors.h: none made after warm-up)
  explicit Descs(const BatchNormSpec& s)
      : data(cached_tensor_desc(s.dtype, s.layout, s.p.n, s.p.c, s.p.hw, 1)),
        param(cached_tensor_desc(DType::f32, Layout::NCHW, 1, s.p.c, 1, 1)) {}
  const TensorDesc& data;   // x, y, dx, dy
  const TensorDesc& param;  // gamma, beta, means, variances and their gradients
};

}  // namespace

void batchnorm_forward_train(Handle& handle, const BatchNormSpec& s, const void* x, const float* gamma,
                             const float* beta, void* y, float* save_mean, float* save_invstd, float* running_mean,
                             float* running_var) {
  validate(s, "batchnorm_forward_train");
  SB_CHECK(x && gamma && beta && y && save_mean && save_invstd && running_mean && running_var,
           "batchnorm_forward_train (cuDNN): null operand");
  // As the CPU reference (and PyTorch): the unbiased variance of one value is undefined.
  SB_CHECK(double(s.p.n) * s.p.hw > 1, "batchnorm: training needs more than one value per channel (n={}, hw={})",
           s.p.n, s.p.hw);
  const Descs d(s);
  CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
      handle.get(), train_mode(s), &kOne, &kZero, d.data.get(), x, d.data.get(), y, d.param.get(), gamma,
      beta, static_cast<double>(s.p.momentum), running_mean, running_var, static_cast<double>(s.p.eps), save_mean,
      save_invstd));
}

void batchnorm_forward_eval(Handle& handle, const BatchNormSpec& s, const void* x, const float* gamma,
                            const float* beta, const float* running_mean, const float* running_var, void* y) {
  validate(s, "batchnorm_forward_eval");
  SB_CHECK(x && gamma && beta && running_mean && running_var && y, "batchnorm_forward_eval (cuDNN): null operand");
  const Descs d(s);
  CUDNN_CHECK(cudnnBatchNormalizationForwardInference(handle.get(), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero,
                                                      d.data.get(), x, d.data.get(), y, d.param.get(), gamma, beta,
                                                      running_mean, running_var, static_cast<double>(s.p.eps)));
}

void batchnorm_backward(Handle& handle, const BatchNormSpec& s, const void* x, const void* dy, const float* gamma,
                        const float* save_mean, const float* save_invstd, void* dx, float* dgamma, float* dbeta) {
  validate(s, "batchnorm_backward");
  SB_CHECK(x && dy && gamma && save_mean && save_invstd && dx && dgamma && dbeta,
           "batchnorm_backward (cuDNN): null operand");
  const Descs d(s);
  CUDNN_CHECK(cudnnBatchNormalizationBackward(handle.get(), train_mode(s), &kOne, &kZero, &kOne, &kZero,
                                              d.data.get(), x, d.data.get(), dy, d.data.get(), dx, d.param.get(),
                                              gamma, dgamma, dbeta, static_cast<double>(s.p.eps), save_mean,
                                              save_invstd));
}

}  // namespace scalebench::cudnn
