// sync_batchnorm.cpp — synchronised batch norm on the GPU (see sync_batchnorm.h). Each block of
// host arithmetic below is the CPU kernel's (kernels/cpu/batchnorm.cpp), line for line.
#include "models/cuda/sync_batchnorm.h"

#include <cmath>

#include "models/cuda/context.h"
#include "models/cuda/memory.h"

namespace scalebench {
namespace {

std::vector<float> host_floats(GpuContext& g, const Tensor& t) {
  Tensor h = Tensor::zeros(t.shape());
  gpu_download(g, t, h);
  return {h.f32(), h.f32() + h.numel()};
}
void to_device(GpuContext& g, const std::vector<float>& v, Tensor& t) {
  gpu_upload(g, Tensor::view(const_cast<float*>(v.data()), {std::int64_t(v.size())}), t);
}
std::vector<double> download_doubles(GpuContext& g, const double* p, std::size_t n) {
  std::vector<double> v(n);
  cuda::copy_to_host(v.data(), p, n * sizeof(double), g.stream());
  return v;
}

}  // namespace

void SyncBatchNormGpu::ensure(int c, int device) {
  const std::size_t need = (2 * std::size_t(c) + 1) * sizeof(double);
  if (sums_.bytes() < need) sums_ = cuda::DeviceBuffer(need, device);
  if (consts_.bytes() < 3 * std::size_t(c) * sizeof(float)) consts_ = cuda::DeviceBuffer(3 * std::size_t(c) * sizeof(float), device);
}

void SyncBatchNormGpu::forward_train(GpuContext& g, const BatchNormParams& p, const cuda::BnShape& s, const void* x,
                                     void* y, const Tensors& t, ReplicaSum& sum) {
  const std::size_t c = std::size_t(p.c);
  ensure(p.c, g.device());
  double* dsums = sums_.as<double>();
  cuda::bn_channel_sums(s, x, dsums, g.stream());
  std::vector<double> sums = download_doubles(g, dsums, c);
  sums.push_back(double(p.n) * p.hw);
  sum.sum(sums.data(), sums.size());
  const double count = sums[c];
  SB_CHECK(count > 1, "batchnorm: training needs more than one value per channel (n={}, hw={})", p.n, p.hw);
  std::vector<double> mean(c);
  for (std::size_t ch = 0; ch < c; ++ch) mean[ch] = sums[ch] / count;
  cuda::copy_to_device(dsums + c, mean.data(), c * sizeof(double), g.stream());
  cuda::bn_centred_squares(s, x, dsums + c, dsums, g.stream());
  std::vector<double> sq = download_doubles(g, dsums, c);
  sum.sum(sq.data(), sq.size());
  const auto gamma = host_floats(g, *t.gamma), beta = host_floats(g, *t.beta);
  auto rmean = host_floats(g, *t.running_mean), rvar = host_floats(g, *t.running_var);
  std::vector<float> save_mean(c), save_invstd(c), consts(3 * c);
  for (std::size_t ch = 0; ch < c; ++ch) {
    const double var = sq[ch] / count;  // biased: used to normalise
    const double invstd = 1.0 / std::sqrt(var + p.eps);
    save_mean[ch] = static_cast<float>(mean[ch]);
    save_invstd[ch] = static_cast<float>(invstd);
    const double m = p.momentum;
    rmean[ch] = static_cast<float>((1.0 - m) * rmean[ch] + m * mean[ch]);
    rvar[ch] = static_cast<float>((1.0 - m) * rvar[ch] + m * var * count / (count - 1.0));
    consts[ch] = static_cast<float>(mean[ch]);
    consts[c + ch] = static_cast<float>(gamma[ch] * invstd);
    consts[2 * c + ch] = beta[ch];
  }
  to_device(g, save_mean, *t.save_mean);
  to_device(g, save_invstd, *t.save_invstd);
  to_device(g, rmean, *t.running_mean);
  to_device(g, rvar, *t.running_var);
  float* dc = consts_.as<float>();
  cuda::copy_to_device(dc, consts.data(), consts.size() * sizeof(float), g.stream());
  cuda::bn_affine(s, x, dc, dc + c, dc + 2 * c, y, g.stream());
}

void SyncBatchNormGpu::backward(GpuContext& g, const BatchNormParams& p, const cuda::BnShape& s, const void* x,
                                const void* dy, void* dx, const Tensors& t, ReplicaSum& sum) {
  const std::size_t c = std::size_t(p.c);
  ensure(p.c, g.device());
  double* dsums = sums_.as<double>();
  cuda::bn_backward_sums(s, x, dy, t.save_mean->f32(), dsums, g.stream());
  std::vector<double> sums = download_doubles(g, dsums, 2 * c);
  const auto save_mean = host_floats(g, *t.save_mean), save_invstd = host_floats(g, *t.save_invstd);
  const auto gamma = host_floats(g, *t.gamma);
  std::vector<float> dgamma(c), dbeta(c);  // this replica's sums (the strategy averages them)
  for (std::size_t ch = 0; ch < c; ++ch) {
    dbeta[ch] = static_cast<float>(sums[ch]);
    dgamma[ch] = static_cast<float>(sums[c + ch] * save_invstd[ch]);
  }
  to_device(g, dgamma, *t.dgamma);
  to_device(g, dbeta, *t.dbeta);
  sums.push_back(double(p.n) * p.hw);
  sum.sum(sums.data(), sums.size());
  const double count = sums[2 * c];
  std::vector<float> consts(3 * c);
  for (std::size_t ch = 0; ch < c; ++ch) {
    const double invstd = save_invstd[ch];
    const double a = gamma[ch] * invstd;
    consts[ch] = static_cast<float>(a);
    consts[c + ch] = static_cast<float>(-a * invstd * invstd * sums[c + ch] / count);
    consts[2 * c + ch] = static_cast<float>(-a * sums[ch] / count);
  }
  float* dc = consts_.as<float>();
  cuda::copy_to_device(dc, consts.data(), consts.size() * sizeof(float), g.stream());
  cuda::bn_backward_dx(s, x, dy, t.save_mean->f32(), dc, dc + c, dc + 2 * c, dx, g.stream());
}

}  // namespace scalebench
