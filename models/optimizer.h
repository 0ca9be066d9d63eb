// optimizer.h — SGD with momentum and AdamW over the whole parameter arena at once (one flat
// pass; the model's layer structure is irrelevant there), and the large-batch optimizers LARS and
// LAMB, which step each parameter tensor with its own trust ratio (OptimizerConfig::tensors). State
// (momentum, moments) is owned here, sized like the arena, on the arena's ComputeDevice: every kind
// runs on every backend through kernels/common/device.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/enum_names.h"
#include "kernels/common/tensor.h"

namespace scalebench {

enum class OptimizerKind { sgd, adamw, lars, lamb };
template <>
struct EnumNames<OptimizerKind> {
  static constexpr std::array<EnumEntry<OptimizerKind>, 4> entries{{{OptimizerKind::sgd, "sgd"},
                                                                    {OptimizerKind::adamw, "adamw"},
                                                                    {OptimizerKind::lars, "lars"},
                                                                    {OptimizerKind::lamb, "lamb"}}};
};

// One parameter tensor of the arena, for the layer-wise optimizers: adapt = false (biases,
// batch-norm scale and shift) steps with trust ratio 1, as is usual for LARS and LAMB.
struct ParamTensor {
  std::int64_t offset = 0, count = 0;
  bool adapt = true;
};

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::sgd;
  float momentum = 0.9f;     // sgd
  float weight_decay = 0.0f;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;  // adamw, lamb
  float trust_coefficient = 0.001f;  // lars: eta of You et al. 2017
  // lars, lamb: the arena's tensors; empty = the whole arena is one adapting tensor.
  std::vector<ParamTensor> tensors;
};

class ComputeDevice;

class Optimizer {
 public:
  // validates cfg. The state lives on `dev` and step() takes pointers of dev (which must outlive
  // the optimizer); null: a CPU device of the optimizer's own.
  Optimizer(const OptimizerConfig& cfg, std::int64_t count, ComputeDevice* dev = nullptr);
  ~Optimizer();
  void step(float* w, const float* g, float lr);                // w[count], g[count]
  std::int64_t steps_taken() const { return t_; }
  const OptimizerConfig& config() const { return cfg_; }
  bool has_second_moment() const { return cfg_.kind == OptimizerKind::adamw || cfg_.kind == OptimizerKind::lamb; }

  // Checkpoints: the whole state as host copies (steps taken, first and second moments; v is empty
  // for sgd), and back. On cuda the moments are copied from and to the device.
  struct State {
    std::int64_t steps = 0;
    std::vector<float> m, v;
  };
  State state() const;
  void restore(const State& s);  // throws scalebench::Error when the sizes do not match

 private:
  OptimizerConfig cfg_;
  std::int64_t count_;
  std::int64_t t_ = 0;
  std::unique_ptr<ComputeDevice> own_;  // when no device was given
  ComputeDevice& dev_;
  Tensor m_, v_;  // [count] on dev_ (v_: adamw, lamb)
};

}  // namespace scalebench
