// model.h — Model: the layers of a Graph on one backend, with all parameters in one contiguous
// arena and all gradients in another (so broadcast, bucketing and allreduce are single-buffer
// operations), activations and their gradients owned per node, and a hook that fires as each
// node's backward finishes (for overlapping gradient exchange with the rest of backward).
// Parameters are laid out in node order, so backward completes the arena from its end backwards.
// Not thread-safe; one Model per device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/graph.h"
#include "models/layer.h"

namespace scalebench {

struct ParamInfo {
  std::string name;  // "<node>.<param>"
  Shape shape;
  std::int64_t offset = 0;  // into the arenas, in elements
  int node = 0;
};

struct LayerFlops {
  std::string name;
  LayerKind kind;
  Shape out_shape;
  double forward = 0;  // per image
};

class Model {
 public:
  Model(Graph graph, Backend backend, std::uint64_t seed);
  ~Model();

  // Shapes for input x [n, c, h, w]. The first call allocates the arenas and initialises the
  // parameters (He normal from the seed, deterministic on every platform). Returns the output shape.
  Shape setup(const Shape& input);
  const Shape& input_shape() const { return input_shape_; }
  const Shape& output_shape() const;

  const Tensor& forward(Ctx& ctx, const Tensor& x, bool training);  // logits
  // dlogits has the output shape. Fills the gradient arena (overwrites).
  void backward(Ctx& ctx, const Tensor& dlogits);

  Tensor& params() { return params_; }  // flat [param_count]
  Tensor& grads() { return grads_; }    // flat [param_count]
  std::int64_t param_count() const { return params_.numel(); }
  const std::vector<ParamInfo>& param_info() const { return param_info_; }
  // Non-trained state (batch-norm running statistics), named "<node>.<buffer>".
  std::vector<std::pair<std::string, Tensor*>> buffers();

  using BackwardHook = std::function<void(int node, std::int64_t grad_begin, std::int64_t grad_end)>;
  void set_backward_hook(BackwardHook hook) { hook_ = std::move(hook); }

  // Analytic forward FLOPs per image, per layer and in total. Training ≈ 3× forward.
  std::vector<LayerFlops> layer_flops() const;
  double forward_flops_per_image() const;
  double train_flops_per_image() const { return 3.0 * forward_flops_per_image(); }

  const Graph& graph() const { return graph_; }
  std::size_t layer_count() const { return layers_.size(); }

 private:
  std::vector<Shape> input_shapes(std::size_t node) const;
  void allocate_and_init(std::uint64_t seed);

  Graph graph_;
  Backend backend_;
  std::uint64_t seed_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<int> consumers_;            // how many nodes read each node's output
  std::vector<Shape> out_shapes_;
  std::vector<Tensor> outputs_, dgrads_;  // per node: activation and its gradient
  Tensor scratch_;                        // gradient of a fan-out input before it is summed
  Tensor input_;                          // view of the last forward's input
  Shape input_shape_;
  Tensor params_, grads_;
  std::vector<ParamInfo> param_info_;
  std::vector<std::pair<std::int64_t, std::int64_t>> node_param_range_;  // [begin, end) per node
  BackwardHook hook_;
};

}  // namespace scalebench
