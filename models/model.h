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

#include "models/device.h"
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

struct LayerTiming {
  std::string name;
  LayerKind kind;
  double forward_s = 0, backward_s = 0;  // mean seconds per call, batch included
  double forward_flops = 0;              // per call (batch included); backward counts 2x
  // The least memory traffic of a call, in bytes: the forward reads its inputs and writes its output
  // once; the backward reads its inputs and the output gradient and writes the input gradients once
  // (parameters and any state a layer keeps, such as an argmax, not counted). What a memory-bound
  // layer is held to (the per-layer table's roofline columns).
  double forward_bytes = 0, backward_bytes = 0;
};

class Model {
 public:
  // Every array lives on `dev` (which must outlive the Model): parameters and gradients are f32
  // arenas (same order and values on every device); forward() takes x as an f32 NCHW tensor of dev
  // and returns logits of dev in its activation dtype, NCHW; backward() takes dlogits of that shape,
  // dtype and layout. Activations in between are in dev's activation form (models/cuda/context.h).
  Model(Graph graph, ComputeDevice& dev, std::uint64_t seed);
  // The CPU backend with a device of the Model's own (tests, tools); any other backend throws.
  Model(Graph graph, Backend backend, std::uint64_t seed);
  ~Model();

  // Shapes for input x [n, c, h, w]. The first call allocates the arenas and initialises the
  // parameters (He normal from the seed, deterministic on every platform). Returns the output shape.
  Shape setup(const Shape& input);
  const Shape& input_shape() const { return input_shape_; }
  const Shape& output_shape() const;

  const Tensor& forward(Ctx& ctx, const Tensor& x, bool training);  // logits
  // dlogits has the output shape. Fills the gradient arena (overwrites).
  // Gradient accumulation: with last_micro_batch = false the backward hook does not fire and
  // the arena's gradients are added to a held sum; the next backward with last_micro_batch = true
  // adds the held sum into each node's range before that node's hook fires (so an overlapping
  // strategy sends the accumulated gradient), then empties it.
  void backward(Ctx& ctx, const Tensor& dlogits, bool last_micro_batch = true);
  // After a last_micro_batch backward that followed held ones: the earlier micro-batches' summed
  // gradients it added into the arena (until the next step's first backward). The noise scale on
  // one replica reads it to tell the last micro-batch's own gradient from the sum.
  const Tensor& held_grads() const { return held_; }

  Tensor& params() { return params_; }  // flat [param_count]
  Tensor& grads() { return grads_; }    // flat [param_count]
  std::int64_t param_count() const { return params_.numel(); }
  const std::vector<ParamInfo>& param_info() const { return param_info_; }
  // Non-trained state (batch-norm running statistics), named "<node>.<buffer>".
  std::vector<std::pair<std::string, Tensor*>> buffers();

  // grads *= s on the model's device (the strategies' mean over workers).
  void scale_grads(float s);

  // On cuda the hook runs after the node's gradient work has COMPLETED on the device (the stream is
  // synchronised first), so another stream (NCCL) may read the range at once.
  using BackwardHook = std::function<void(int node, std::int64_t grad_begin, std::int64_t grad_end)>;
  void set_backward_hook(BackwardHook hook) { hook_ = std::move(hook); }
  const BackwardHook& backward_hook() const { return hook_; }
  // --trace: fires after each node's training forward (not in evaluation), with the node's index in
  // graph(). On cuda the stream is synchronised first, so the time between two calls is the node's
  // device time — a cost only a traced run pays.
  using ForwardHook = std::function<void(int node)>;
  void set_forward_hook(ForwardHook hook) { fwd_hook_ = std::move(hook); }

  // Analytic forward FLOPs per image, per layer and in total. Training ≈ 3× forward.
  std::vector<LayerFlops> layer_flops() const;
  double forward_flops_per_image() const;
  double train_flops_per_image() const { return 3.0 * forward_flops_per_image(); }

  // Benchmarks only: after one forward and backward of the current batch, time each layer's
  // forward and backward alone over `reps` calls (GPU: synchronised around each layer's calls).
  // Overwrites activations, gradients and batch-norm statistics; train no further with them.
  std::vector<LayerTiming> time_layers(Ctx& ctx, int reps);

  const Graph& graph() const { return graph_; }
  Backend backend() const { return backend_of(dev_); }
  ComputeDevice& device() const { return dev_; }
  std::size_t layer_count() const { return layers_.size(); }

 private:
  std::vector<Shape> input_shapes(std::size_t node) const;
  void allocate_and_init(std::uint64_t seed);
  void make_layers();  // the constructors' shared part
  // Whether node i is a ReLU its input's layer applies itself in this ctx (so node i does not run).
  bool skipped(std::size_t i, const Ctx& ctx) const {
    return relu_into_[i] >= 0 && layers_[std::size_t(relu_into_[i])]->relu_fused(ctx);
  }

  std::unique_ptr<ComputeDevice> own_device_;  // the Backend constructor's (first: built before dev_ binds)
  Graph graph_;
  ComputeDevice& dev_;
  std::uint64_t seed_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<int> consumers_;            // how many nodes read each node's output
  std::vector<int> relu_into_;            // per ReLU node fused into its input's layer: that node; else -1
  std::vector<Shape> out_shapes_;
  std::vector<Tensor> outputs_, dgrads_;  // per node: activation and its gradient
  std::vector<Tensor> scratch_;           // per fan-out node: a second reader's gradient before the sum
  Tensor input_;                          // view of the last forward's input (cuda: converted copy)
  Tensor logits_;                         // cuda NHWC: the output relaid to NCHW
  Tensor converted_input_;                // cuda bf16 or NHWC: the input in the compute form
  Shape input_shape_;
  Tensor params_, grads_;
  std::vector<ParamInfo> param_info_;
  std::vector<std::pair<std::int64_t, std::int64_t>> node_param_range_;  // [begin, end) per node
  BackwardHook hook_;
  ForwardHook fwd_hook_;
  Tensor held_;              // [param_count] on dev: summed gradients of this step's earlier micro-batches
  bool holding_ = false;     // held_ holds some
};

}  // namespace scalebench
