// gpu_run.h — one GPU model on its own CUDA device with an optimizer, trained step by step: the
// rig test_model_cuda.cpp (GPU against CPU) and test_step_no_alloc.cpp (a warm step allocates and
// waits for nothing) share. A step takes the labels of a batch whose images are already in `x`;
// the loss is synchronous or, `late`, queued and the previous step's returned.
// Not here: what a test compares or counts.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/cuda/train.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"
#include "tests/gpu/models/step_util.h"

namespace scalebench::gpu_test {

struct GpuRun {
  GpuRun(const Problem& p, const GpuOptions& o, const OptimizerConfig& oc)
      : dev(make_cuda_device(o)), g(*dev->gpu()), m(build_model_graph(parse_model_spec(p.spec), p.data), *dev, 11),
        loss(g) {
    m.setup({p.batch, p.data.channels, p.data.height, p.data.width});
    opt = std::make_unique<Optimizer>(oc, m.param_count(), dev.get());
    x = gpu_zeros(g, m.input_shape(), DType::f32, Layout::NCHW);
  }
  double step(const std::vector<std::int32_t>& labels, float lr, bool late = false, bool update = true) {
    const Tensor& logits = m.forward(ctx, x, true);
    const double l = late ? loss.queue(logits, labels.data(), {}, &dl) : loss(logits, labels.data(), {}, &dl);
    m.backward(ctx, dl);
    if (update) opt->step(m.params().f32(), m.grads().f32(), lr);
    ++ctx.step;
    return l;
  }
  std::unique_ptr<ComputeDevice> dev;
  GpuContext& g;
  Model m;
  GpuLoss loss;
  std::unique_ptr<Optimizer> opt;
  Ctx ctx{.backend = Backend::cuda, .seed = 3};
  Tensor x, dl;
};

}  // namespace scalebench::gpu_test
