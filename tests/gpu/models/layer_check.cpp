// layer_check.cpp — CPU vs GPU comparison of one layer (see layer_check.h).
#include "tests/gpu/models/layer_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/registry.h"

namespace scalebench::gpu_test {
namespace {

// Round to bf16 and back, round half to even (what the GPU reads after the cast).
float round_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const std::uint32_t lower = u & 0xffffu, upper = u >> 16;
  const bool up = lower > 0x8000u || (lower == 0x8000u && (upper & 1u));
  u = (upper + (up ? 1u : 0u)) << 16;
  std::memcpy(&f, &u, 4);
  return f;
}

Tensor random_host(const Shape& s, std::mt19937_64& rng, bool bf16) {
  Tensor t = Tensor::zeros(s);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.f32()[i] = bf16 ? round_bf16(u(rng)) : u(rng);
  return t;
}

double rel_err(const Tensor& got, const Tensor& want) {
  double diff = 0, scale = 0;
  for (std::int64_t i = 0; i < want.numel(); ++i) {
    diff = std::max(diff, double(std::fabs(got.f32()[i] - want.f32()[i])));
    scale = std::max(scale, double(std::fabs(want.f32()[i])));
    if (std::isnan(got.f32()[i]) != std::isnan(want.f32()[i])) return INFINITY;
  }
  return scale == 0 ? diff : diff / scale;
}

// Host f32 NCHW → device tensor of the context's activation dtype and layout.
Tensor to_device_act(GpuContext& g, const Tensor& host) {
  Tensor f32 = gpu_zeros(g, host.shape(), DType::f32, Layout::NCHW);
  gpu_upload(g, host, f32);
  Tensor act = gpu_zeros(g, host.shape(), g.act_dtype(), host.rank() == 4 ? g.layout() : Layout::NCHW);
  gpu_convert(g, f32, act);
  return act;
}

// Device activation → host f32 NCHW.
Tensor to_host_f32(GpuContext& g, const Tensor& dev) {
  Tensor f32 = gpu_zeros(g, dev.shape(), DType::f32, Layout::NCHW);
  gpu_convert(g, dev, f32);
  Tensor host = Tensor::zeros(dev.shape());
  gpu_download(g, f32, host);
  return host;
}

}  // namespace

double tolerance(Precision p) {
  switch (p) {
    case Precision::fp32: return 1e-4;
    case Precision::tf32: return 4e-3;
    case Precision::bf16: return 4e-2;
  }
  return 0;
}

std::string describe(const LayerCase& c) {
  std::string in;
  for (const auto& s : c.in) in += (in.empty() ? "" : " ") + to_string(s);
  return fmt::format("{} {} {} in={}{}{}", to_string(c.desc.kind), to_string(c.precision),
                     c.layout == Layout::NCHW ? "NCHW" : "NHWC", in, c.training ? "" : " eval",
                     c.kernels == GpuKernels::own ? " own kernels" : "");
}

std::string LayerErrors::describe() const {
  std::string s = fmt::format("out {:.3g}", out);
  for (std::size_t i = 0; i < din.size(); ++i) s += fmt::format(" din{} {:.3g}", i, din[i]);
  for (std::size_t i = 0; i < dparam.size(); ++i) s += fmt::format(" dparam{} {:.3g}", i, dparam[i]);
  return s + fmt::format(" buffers {:.3g}", buffers);
}

LayerErrors check_layer(const LayerCase& c) {
  const bool bf16 = c.precision == Precision::bf16;
  std::mt19937_64 rng(c.seed);
  GpuOptions o;
  o.precision = c.precision;
  o.layout = c.layout;
  o.deterministic = c.deterministic;
  o.kernels = c.kernels;
  GpuContext g(o);

  auto cpu = make_layer(c.desc, Backend::cpu);
  auto gpu = make_layer(c.desc, Backend::cuda, &g);
  const Shape out_shape = cpu->setup(c.in);
  const Shape gpu_out_shape = gpu->setup(c.in);
  SB_CHECK(out_shape == gpu_out_shape, "output shapes differ: cpu {} gpu {}", to_string(out_shape),
           to_string(gpu_out_shape));

  // Parameters: one random f32 arena, bound on both sides (the GPU's is an upload of the same values).
  const auto specs = cpu->param_specs();
  std::int64_t total = 0;
  for (const auto& s : specs) total += numel(s.shape);
  Tensor hp = random_host({std::max<std::int64_t>(total, 1)}, rng, bf16), hg = Tensor::zeros({std::max<std::int64_t>(total, 1)});
  Tensor dp = gpu_zeros(g, hp.shape(), DType::f32, Layout::NCHW), dg = gpu_zeros(g, hp.shape(), DType::f32, Layout::NCHW);
  gpu_upload(g, hp, dp);
  std::vector<Tensor> cw, cg, gw, gg;
  std::int64_t off = 0;
  for (const auto& s : specs) {
    cw.push_back(Tensor::view(hp.f32() + off, s.shape));
    cg.push_back(Tensor::view(hg.f32() + off, s.shape));
    gw.push_back(Tensor::view(static_cast<float*>(dp.raw()) + off, s.shape, DType::f32, Device::cuda(g.device())));
    gg.push_back(Tensor::view(static_cast<float*>(dg.raw()) + off, s.shape, DType::f32, Device::cuda(g.device())));
    off += numel(s.shape);
  }
  // Batch norm wants a positive scale and variance-like values to be sane; uniform(-1, 1) weights
  // are fine for every other layer, and for BN they still test the math.
  cpu->bind(cw, cg);
  gpu->bind(gw, gg);

  // Inputs and the output gradient.
  std::vector<Tensor> hin, din_host;
  std::vector<Tensor> gin;
  for (const auto& s : c.in) {
    hin.push_back(random_host(s, rng, bf16));
    gin.push_back(to_device_act(g, hin.back()));
  }
  Tensor hdout = random_host(out_shape, rng, bf16);
  Tensor gdout = to_device_act(g, hdout);

  Ctx cctx = c.ctx;
  cctx.reference = true;
  Ctx gctx = c.ctx;
  gctx.backend = Backend::cuda;
  gctx.reference = false;

  TensorRefs cin, gin_refs;
  for (auto& t : hin) cin.push_back(&t);
  for (auto& t : gin) gin_refs.push_back(&t);
  Tensor cout = Tensor::zeros(out_shape);
  Tensor gout = gpu_zeros(g, out_shape, g.act_dtype(), out_shape.size() == 4 ? g.layout() : Layout::NCHW);
  cpu->forward(cctx, cin, cout, c.training);
  gpu->forward(gctx, gin_refs, gout, c.training);

  LayerErrors e;
  e.out = rel_err(to_host_f32(g, gout), cout);

  // Batch-norm running statistics (compare after the forward, before backward touches anything).
  auto cb = cpu->buffers();
  auto gb = gpu->buffers();
  SB_CHECK(cb.size() == gb.size(), "buffer counts differ: cpu {} gpu {}", cb.size(), gb.size());
  for (std::size_t i = 0; i < cb.size(); ++i) {
    Tensor h = Tensor::zeros(gb[i].second->shape());
    gpu_download(g, *gb[i].second, h);
    e.buffers = std::max(e.buffers, rel_err(h, *cb[i].second));
  }

  if (c.training) {
    std::vector<Tensor> cdin, gdin;
    std::vector<Tensor*> cdin_p, gdin_p;
    for (const auto& s : c.in) {
      cdin.push_back(Tensor::zeros(s));
      gdin.push_back(gpu_zeros(g, s, g.act_dtype(), s.size() == 4 ? g.layout() : Layout::NCHW));
    }
    for (std::size_t i = 0; i < c.in.size(); ++i) cdin_p.push_back(&cdin[i]), gdin_p.push_back(&gdin[i]);
    cpu->backward(cctx, cin, cout, hdout, cdin_p);
    gpu->backward(gctx, gin_refs, gout, gdout, gdin_p);
    for (std::size_t i = 0; i < c.in.size(); ++i) e.din.push_back(rel_err(to_host_f32(g, gdin[i]), cdin[i]));
    gpu_download(g, dg, hp);  // reuse hp as the host copy of the GPU's gradients
    off = 0;
    for (const auto& s : specs) {
      const Tensor got = Tensor::view(hp.f32() + off, s.shape), want = Tensor::view(hg.f32() + off, s.shape);
      e.dparam.push_back(rel_err(got, want));
      off += numel(s.shape);
    }
  }
  g.synchronize();
  return e;
}

}  // namespace scalebench::gpu_test
