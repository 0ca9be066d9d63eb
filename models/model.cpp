// model.cpp — graph instantiation, arena layout, forward/backward with fan-out gradient sums.
#include "models/model.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "models/device.h"
#include "models/init.h"
#include "models/registry.h"

namespace scalebench {

namespace {
std::unique_ptr<ComputeDevice> cpu_only(Backend backend) {
  SB_CHECK(backend == Backend::cpu, "a {} Model needs its ComputeDevice (models/device.h)", to_string(backend));
  return cpu::make_cpu_device();
}
}  // namespace

Model::Model(Graph graph, Backend backend, std::uint64_t seed)
    : own_device_(cpu_only(backend)), graph_(std::move(graph)), dev_(*own_device_), seed_(seed) {
  make_layers();
}

Model::Model(Graph graph, ComputeDevice& dev, std::uint64_t seed) : graph_(std::move(graph)), dev_(dev), seed_(seed) {
  make_layers();
}

void Model::make_layers() {
  SB_REQUIRE(!graph_.nodes.empty(), "model has no layers");
  consumers_.assign(graph_.nodes.size(), 0);
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    LayerDesc d = graph_.nodes[i].desc;
    d.salt = i;
    layers_.push_back(make_layer(d, backend(), dev_.gpu()));
    for (int in : graph_.nodes[i].inputs) {
      SB_CHECK(in < int(i), "node {} reads node {} which is not before it", graph_.nodes[i].name, in);
      if (in >= 0) ++consumers_[std::size_t(in)];
    }
  }
  // A ReLU that alone reads a layer's output is offered to that layer (Layer::fuse_relu): one pass
  // over memory fewer each way where the layer applies it (CPU batch norm, convolution).
  relu_into_.assign(graph_.nodes.size(), -1);
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    const auto& in = graph_.nodes[i].inputs;
    if (graph_.nodes[i].desc.kind != LayerKind::relu || in.size() != 1 || in[0] < 0) continue;
    const std::size_t k = std::size_t(in[0]);
    if (consumers_[k] == 1 && layers_[k]->fuse_relu()) relu_into_[i] = int(k);
  }
}

Model::~Model() = default;

std::vector<Shape> Model::input_shapes(std::size_t node) const {
  std::vector<Shape> in;
  for (int k : graph_.nodes[node].inputs) in.push_back(k < 0 ? input_shape_ : out_shapes_[std::size_t(k)]);
  return in;
}

const Shape& Model::output_shape() const { return out_shapes_.back(); }

Shape Model::setup(const Shape& input) {
  SB_REQUIRE(input.size() == 4, "model input must be [n,c,h,w], got {}", to_string(input));
  if (input == input_shape_ && !out_shapes_.empty()) return out_shapes_.back();
  input_shape_ = input;
  out_shapes_.assign(graph_.nodes.size(), {});
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    try {
      out_shapes_[i] = layers_[i]->setup(input_shapes(i));
    } catch (const Error& e) {
      throw Error(fmt::format("layer {}: {}", graph_.nodes[i].name, e.what()));
    }
  }
  // On the CPU each node keeps its storage across batch sizes (Tensor::resize grows it only past
  // what it had): training, evaluation's smaller last batch and training again would otherwise
  // allocate, zero and fault in every activation anew each epoch (28 % of a short U-Net run's page
  // faults, in the first step of each epoch). Layers overwrite their outputs and gradients, so the stale contents are never read.
  const bool keep = dev_.where().is_cpu();
  outputs_.resize(graph_.nodes.size());
  dgrads_.resize(graph_.nodes.size());
  scratch_.resize(graph_.nodes.size());
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    const int k = relu_into_[i];  // a fused ReLU shares its input's tensors (run in place when it runs)
    if (k >= 0) {
      outputs_[i] = outputs_[std::size_t(k)];
      dgrads_[i] = dgrads_[std::size_t(k)];
    } else if (keep && outputs_[i].defined()) {
      outputs_[i].resize(out_shapes_[i]);
      dgrads_[i].resize(out_shapes_[i]);
    } else {
      outputs_[i] = dev_.activation(out_shapes_[i]);
      dgrads_[i] = dev_.activation(out_shapes_[i]);
    }
    if (keep && scratch_[i].defined())
      scratch_[i].resize(out_shapes_[i]);
    else
      scratch_[i] = Tensor();  // made by backward() where a fan-out needs it
  }
  if (!params_.defined()) allocate_and_init(seed_);
  return out_shapes_.back();
}

void Model::allocate_and_init(std::uint64_t seed) {
  std::int64_t total = 0;
  std::vector<std::vector<ParamSpec>> specs(layers_.size());
  node_param_range_.assign(layers_.size(), {0, 0});
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    specs[i] = layers_[i]->param_specs();
    node_param_range_[i].first = total;
    for (const auto& s : specs[i]) {
      param_info_.push_back({graph_.nodes[i].name + "." + s.name, s.shape, total, int(i)});
      total += numel(s.shape);
    }
    node_param_range_[i].second = total;
  }
  // Initialised on the host (the same values on every backend), then uploaded.
  Tensor host = Tensor::zeros({total});
  params_ = dev_.zeros({total});
  grads_ = dev_.zeros({total});
  const Device dev = dev_.where();
  std::size_t p = 0;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    std::vector<Tensor> w, g;
    for (const auto& s : specs[i]) {
      const ParamInfo& info = param_info_[p];
      float* wp = host.f32() + info.offset;
      const std::int64_t count = numel(s.shape);
      if (s.init == Init::he_normal)
        fill_normal(wp, count, std::sqrt(2.0f / float(s.fan_in)), seed, p);
      else if (s.init == Init::ones)
        std::fill_n(wp, count, 1.0f);
      w.push_back(Tensor::view(static_cast<float*>(params_.raw()) + info.offset, s.shape, DType::f32, dev));
      g.push_back(Tensor::view(static_cast<float*>(grads_.raw()) + info.offset, s.shape, DType::f32, dev));
      ++p;
    }
    layers_[i]->bind(std::move(w), std::move(g));
  }
  dev_.upload(host, params_);
}

const Tensor& Model::forward(Ctx& ctx, const Tensor& x, bool training) {
  setup(x.shape());
  input_ = x;
  SB_CHECK(x.device() == dev_.where() && x.dtype() == DType::f32 && x.layout() == Layout::NCHW,
           "a Model takes its input as an f32 NCHW tensor of its device");
  if (dev_.act_dtype() != DType::f32 || dev_.act_layout() != Layout::NCHW) {
    if (!converted_input_.defined() || converted_input_.shape() != x.shape())
      converted_input_ = dev_.activation(x.shape());
    dev_.convert(x, converted_input_);
    input_ = converted_input_;
  }
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    TensorRefs in;
    for (int k : graph_.nodes[i].inputs) in.push_back(k < 0 ? &input_ : &outputs_[std::size_t(k)]);
    if (!skipped(i, ctx)) layers_[i]->forward(ctx, in, outputs_[i], training);
    if (fwd_hook_ && training) {
      dev_.synchronize();
      fwd_hook_(int(i));
    }
  }
  if (outputs_.back().rank() == 4 && outputs_.back().layout() != Layout::NCHW) {
    if (!logits_.defined() || logits_.shape() != outputs_.back().shape())
      logits_ = dev_.zeros(outputs_.back().shape(), outputs_.back().dtype(), Layout::NCHW);
    dev_.convert(outputs_.back(), logits_);
    return logits_;
  }
  return outputs_.back();
}

void Model::backward(Ctx& ctx, const Tensor& dlogits, bool last_micro_batch) {
  SB_CHECK(dlogits.shape() == out_shapes_.back(), "dlogits {} != output {}", to_string(dlogits.shape()),
           to_string(out_shapes_.back()));
  dev_.convert(dlogits, dgrads_.back());  // a copy, or NCHW → the device's activation layout
  std::vector<bool> written(layers_.size(), false);
  written.back() = true;
  for (std::size_t j = layers_.size(); j-- > 0;) {
    const auto& inputs = graph_.nodes[j].inputs;
    TensorRefs in;
    std::vector<Tensor*> din;
    int pending_sum = -1;  // node whose gradient lands in scratch_ and is summed after
    for (int k : inputs) {
      in.push_back(k < 0 ? &input_ : &outputs_[std::size_t(k)]);
      if (k < 0) {
        din.push_back(nullptr);
      } else if (!written[std::size_t(k)]) {
        din.push_back(&dgrads_[std::size_t(k)]);
        written[std::size_t(k)] = true;
      } else {
        SB_CHECK(pending_sum < 0, "node {} reads two already-written inputs", graph_.nodes[j].name);
        Tensor& scratch = scratch_[std::size_t(k)];
        if (!scratch.defined()) scratch = dev_.activation(out_shapes_[std::size_t(k)]);
        din.push_back(&scratch);
        pending_sum = k;
      }
    }
    if (!skipped(j, ctx)) layers_[j]->backward(ctx, in, outputs_[j], dgrads_[j], din);
    if (pending_sum >= 0) dev_.add(dgrads_[std::size_t(pending_sum)], scratch_[std::size_t(pending_sum)]);
    const auto [pb, pe] = node_param_range_[j];
    if (!last_micro_batch) continue;  // earlier micro-batch: the hook waits for the last one
    if (holding_) dev_.axpy(pe - pb, 1.0f, held_.f32() + pb, grads_.f32() + pb);
    if (hook_ && pe > pb) {
      dev_.synchronize();
      hook_(int(j), pb, pe);
    }
  }
  if (!last_micro_batch) {
    if (!held_.defined()) held_ = dev_.zeros(grads_.shape());
    if (!holding_) dev_.fill(held_.f32(), held_.numel(), 0.0f);
    dev_.axpy(held_.numel(), 1.0f, grads_.f32(), held_.f32());
  }
  holding_ = !last_micro_batch;
}

void Model::scale_grads(float s) { dev_.scale(grads_.f32(), grads_.numel(), s); }

std::vector<LayerTiming> Model::time_layers(Ctx& ctx, int reps) {
  SB_CHECK(input_.defined() && reps > 0, "time_layers needs a forward first and reps > 0");
  auto sync = [this] { dev_.synchronize(); };
  auto time = [&](auto&& call) {
    sync();
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) call();
    sync();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  };
  std::vector<LayerTiming> out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    TensorRefs in;
    std::vector<Tensor*> din;
    for (int k : graph_.nodes[i].inputs) {
      in.push_back(k < 0 ? &input_ : &outputs_[std::size_t(k)]);
      din.push_back(k < 0 ? nullptr : &dgrads_[std::size_t(k)]);  // clobbered: timing only
    }
    LayerTiming t{graph_.nodes[i].name, layers_[i]->kind()};
    t.forward_flops = layers_[i]->flops(input_shapes(i));
    for (std::size_t k = 0; k < in.size(); ++k) {
      t.forward_bytes += double(in[k]->nbytes());
      t.backward_bytes += double(in[k]->nbytes()) + (din[k] ? double(in[k]->nbytes()) : 0.0);
    }
    t.forward_bytes += double(outputs_[i].nbytes());
    t.backward_bytes += double(outputs_[i].nbytes());  // the output gradient (the output's shape and dtype)
    if (skipped(i, ctx)) {  // its time is in its input layer's
      out.push_back(std::move(t));
      continue;
    }
    t.forward_s = time([&] { layers_[i]->forward(ctx, in, outputs_[i], true); });
    t.backward_s = time([&] { layers_[i]->backward(ctx, in, outputs_[i], dgrads_[i], din); });
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::pair<std::string, Tensor*>> Model::buffers() {
  std::vector<std::pair<std::string, Tensor*>> out;
  for (std::size_t i = 0; i < layers_.size(); ++i)
    for (auto& [name, t] : layers_[i]->buffers()) out.emplace_back(graph_.nodes[i].name + "." + name, t);
  return out;
}

std::vector<LayerFlops> Model::layer_flops() const {
  SB_CHECK(!out_shapes_.empty(), "layer_flops before setup");
  std::vector<LayerFlops> out;
  const double n = double(input_shape_[0]);
  for (std::size_t i = 0; i < layers_.size(); ++i)
    out.push_back({graph_.nodes[i].name, layers_[i]->kind(), out_shapes_[i], layers_[i]->flops(input_shapes(i)) / n});
  return out;
}

double Model::forward_flops_per_image() const {
  double total = 0;
  for (const auto& l : layer_flops()) total += l.forward;
  return total;
}

}  // namespace scalebench
