// layer.h — the Layer interface every layer of every backend implements.
// A layer is made for one backend (see registry.h), is set up once per input shape, declares its
// parameters (the Model places them in one arena and binds views), and runs forward/backward on
// tensors the Model owns. A layer never allocates parameters itself and never accumulates into
// input gradients: backward overwrites din, and the Model sums where a tensor fans out.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernels/common/tensor.h"
#include "models/ctx.h"
#include "models/layer_desc.h"

namespace scalebench {

enum class Init : std::uint8_t { he_normal, zeros, ones };

struct ParamSpec {
  std::string name;    // suffix: "weight", "bias"
  Shape shape;
  Init init = Init::zeros;
  std::int64_t fan_in = 1;  // for He initialisation: std = sqrt(2 / fan_in)
};

using TensorRefs = std::vector<const Tensor*>;

class Layer {
 public:
  virtual ~Layer() = default;
  virtual LayerKind kind() const = 0;

  // Input shapes → output shape; validates (one clear message on mismatch). May be called again
  // when the batch size changes.
  virtual Shape setup(const std::vector<Shape>& in) = 0;
  virtual std::vector<ParamSpec> param_specs() const { return {}; }
  // Views into the parameter and gradient arenas, in param_specs() order.
  virtual void bind(std::vector<Tensor> params, std::vector<Tensor> grads) {}
  // Non-trained state that belongs to the model (batch-norm running statistics).
  virtual std::vector<std::pair<std::string, Tensor*>> buffers() { return {}; }

  virtual void forward(Ctx& ctx, const TensorRefs& in, Tensor& out, bool training) = 0;
  // dout has out's shape; din[i] has in[i]'s shape and is overwritten, or is null when no
  // gradient is needed for that input (the model input). Parameter gradients are overwritten.
  virtual void backward(Ctx& ctx, const TensorRefs& in, const Tensor& out, const Tensor& dout,
                        const std::vector<Tensor*>& din) = 0;

  // ReLU fusion: the Model offers a layer the ReLU node that alone reads its output (once, before
  // setup). A layer that accepts (returns true) shares its output tensor and gradient with that
  // ReLU node from then on; where relu_fused(ctx) is true its forward writes max(y, 0) and its
  // backward takes that ReLU's output gradient, and the Model skips the ReLU node; where false the
  // Model runs the ReLU node in place (kernels/cpu/relu.h allows x == y and dy == dx). A layer's
  // backward must then not read its output as its own y (it holds max(y, 0)).
  virtual bool fuse_relu() { return false; }
  virtual bool relu_fused(const Ctx&) const { return false; }

  // Forward FLOPs for the given input shapes (batch included). Backward counts as 2× forward.
  virtual double flops(const std::vector<Shape>& in) const = 0;
};

}  // namespace scalebench
