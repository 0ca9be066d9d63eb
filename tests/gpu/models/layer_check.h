// layer_check.h — runs one layer on the CPU (reference kernels, the specification) and on the GPU
// (a precision and an activation layout) with the same inputs, parameters and output gradient, and
// reports how far the GPU's output, input gradients and parameter gradients are from the CPU's:
// max |gpu - cpu| / max(|cpu|) per quantity (0 when both are all zero). Inputs of a bf16 run are
// rounded to bf16 on the host first, so both sides see the same values.
// Used by every tests/gpu/models/test_*_cuda.cpp; the model-level comparison is test_model_cuda.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/gpu_kernels.h"
#include "kernels/common/precision.h"
#include "models/layer.h"

namespace scalebench::gpu_test {

struct LayerCase {
  LayerDesc desc;
  std::vector<Shape> in;  // logical [n, c, h, w] (or [n, f] for linear)
  Precision precision = Precision::fp32;
  Layout layout = Layout::NCHW;
  bool training = true;
  bool deterministic = false;
  GpuKernels kernels = GpuKernels::cudnn;  // batch norm and max pooling: cuDNN's or ours
  std::uint64_t seed = 7;
  Ctx ctx{};  // seed/step/sample offsets for dropout; `reference` is forced on for the CPU side
};

struct LayerErrors {
  double out = 0;
  std::vector<double> din;     // per input
  std::vector<double> dparam;  // per parameter, in param_specs() order
  double buffers = 0;          // batch-norm running statistics after the forward
  std::string describe() const;
};

LayerErrors check_layer(const LayerCase& c);

// Tolerance of a precision for outputs of sums over `fan_in` terms: fp32 1e-4, tf32 4e-3, bf16 4e-2.
double tolerance(Precision p);

// "conv2d fp32 NHWC in=[3,5,9,7]" for test messages.
std::string describe(const LayerCase& c);

}  // namespace scalebench::gpu_test
