// model_test_util.h — shared helpers of the model-level tests: seeded random data with the
// properties finite differences need (no values near a ReLU kink, no max-pool ties), a rig that
// drives one Layer through its public interface with buffers the test owns, a central-difference
// gradient checker for such a rig, and model construction from a spec string.
// Header-only and test-only. It makes no assertions itself: each test states its own tolerance.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "models/layer.h"
#include "models/model.h"
#include "models/registry.h"
#include "models/spec.h"

namespace scalebench::test {

inline std::vector<float> uniform(std::size_t count, std::uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(gen);
  return v;
}

// |x| in [min_abs, max_abs], random sign: a step smaller than min_abs never crosses zero.
inline std::vector<float> away_from_zero(std::size_t count, std::uint32_t seed, float min_abs = 0.1f,
                                         float max_abs = 1.0f) {
  auto v = uniform(count, seed, min_abs, max_abs);
  std::mt19937 gen(seed ^ 0x5bd1e995u);
  for (auto& x : v)
    if (gen() & 1u) x = -x;
  return v;
}

// Pairwise distinct values at least `spacing` apart, shuffled: a step below spacing/2 never changes
// which element of a window is largest.
inline std::vector<float> distinct(std::size_t count, std::uint32_t seed, float spacing) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = (float(i) - float(count) / 2) * spacing;
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

inline std::vector<std::int32_t> random_labels(std::size_t count, int classes, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<std::int32_t> v(count);
  for (auto& y : v) y = std::int32_t(gen() % std::uint32_t(classes));
  return v;
}

// max |got − want| / max(max |want|, floor): the error relative to the reference's largest
// magnitude, so entries near zero do not blow the ratio up. NaN anywhere gives +inf.
template <class A, class B>
double rel_err(const std::vector<A>& got, const std::vector<B>& want, double floor = 1e-30) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = std::abs(double(got[i]) - double(want[i]));
    if (!(d == d)) return INFINITY;
    diff = std::max(diff, d);
    scale = std::max(scale, std::abs(double(want[i])));
  }
  return diff / std::max(scale, floor);
}

template <class T>
double max_abs(const std::vector<T>& v) {
  double m = 0.0;
  for (const T& x : v) m = std::max(m, std::abs(double(x)));
  return m;
}

inline double dot(const float* y, const std::vector<float>& r) {
  double s = 0.0;
  for (std::size_t i = 0; i < r.size(); ++i) s += double(y[i]) * r[i];
  return s;
}

// One layer made through the registry, set up for fixed input shapes, with inputs, parameters and
// parameter gradients in vectors the test owns (the layer sees views of them, as in a Model).
class LayerRig {
 public:
  LayerRig(const LayerDesc& desc, std::vector<Shape> in_shapes, std::uint32_t seed)
      : layer_(make_layer(desc, Backend::cpu)), in_shapes_(std::move(in_shapes)) {
    out_shape_ = layer_->setup(in_shapes_);
    out_ = Tensor::zeros(out_shape_);
    specs_ = layer_->param_specs();
    std::vector<Tensor> p, g;
    for (std::size_t j = 0; j < specs_.size(); ++j) {
      const auto count = std::size_t(numel(specs_[j].shape));
      // Batch-norm γ near 1 (as trained nets have), everything else symmetric around 0.
      params.push_back(specs_[j].init == Init::ones ? uniform(count, seed + 17 * j, 0.5f, 1.5f)
                                                   : uniform(count, seed + 17 * j, -0.5f, 0.5f));
      grads.emplace_back(count, NAN);
    }
    for (std::size_t j = 0; j < specs_.size(); ++j) {
      p.push_back(Tensor::view(params[j].data(), specs_[j].shape));
      g.push_back(Tensor::view(grads[j].data(), specs_[j].shape));
    }
    layer_->bind(std::move(p), std::move(g));
    for (std::size_t i = 0; i < in_shapes_.size(); ++i)
      inputs.push_back(uniform(std::size_t(numel(in_shapes_[i])), seed + 1000 + i));
  }

  Layer& layer() { return *layer_; }
  const Shape& out_shape() const { return out_shape_; }
  const std::vector<Shape>& in_shapes() const { return in_shapes_; }
  const std::vector<ParamSpec>& specs() const { return specs_; }

  std::vector<float> forward(Ctx& ctx, bool training) {
    run_forward(ctx, training);
    return std::vector<float>(out_.f32(), out_.f32() + out_.numel());
  }
  // Σ y·r of a fresh forward.
  double loss(Ctx& ctx, const std::vector<float>& r, bool training) {
    run_forward(ctx, training);
    return dot(out_.f32(), r);
  }
  // Backward of the last forward; input gradients are returned, parameter gradients land in
  // `grads`. Both start as NaN, so anything the layer fails to overwrite shows.
  std::vector<std::vector<float>> backward(Ctx& ctx, const std::vector<float>& dout) {
    std::vector<std::vector<float>> din;
    for (const auto& s : in_shapes_) din.emplace_back(std::size_t(numel(s)), NAN);
    for (auto& g : grads) std::fill(g.begin(), g.end(), NAN);
    auto xs = views();
    TensorRefs in;
    for (auto& x : xs) in.push_back(&x);
    std::vector<Tensor> dviews;
    for (std::size_t i = 0; i < din.size(); ++i) dviews.push_back(Tensor::view(din[i].data(), in_shapes_[i]));
    std::vector<Tensor*> dptr;
    for (auto& d : dviews) dptr.push_back(&d);
    std::vector<float> dcopy = dout;
    const Tensor dy = Tensor::view(dcopy.data(), out_shape_);
    layer_->backward(ctx, in, out_, dy, dptr);
    return din;
  }

  std::vector<std::vector<float>> inputs, params, grads;

 private:
  std::vector<Tensor> views() {
    std::vector<Tensor> xs;
    for (std::size_t i = 0; i < inputs.size(); ++i) xs.push_back(Tensor::view(inputs[i].data(), in_shapes_[i]));
    return xs;
  }
  void run_forward(Ctx& ctx, bool training) {
    auto xs = views();
    TensorRefs in;
    for (auto& x : xs) in.push_back(&x);
    layer_->forward(ctx, in, out_, training);
  }

  std::unique_ptr<Layer> layer_;
  std::vector<Shape> in_shapes_;
  Shape out_shape_;
  Tensor out_;
  std::vector<ParamSpec> specs_;
};

struct TensorCheck {
  std::string name;  // "input0", "weight", ...
  double err = 0;    // max |analytic − numeric| / max |numeric|
  double scale = 0;  // max |numeric|
};

// Compares the layer's backward (for L = Σ y ⊙ r, r fixed and random) with central differences of
// L in every element of every input and every parameter. `step` is the perturbation.
inline std::vector<TensorCheck> check_layer_gradients(LayerRig& rig, Ctx& ctx, bool training, float step,
                                                      std::uint32_t seed) {
  const auto r = uniform(std::size_t(numel(rig.out_shape())), seed);
  rig.forward(ctx, training);
  const auto din = rig.backward(ctx, r);
  const auto dparams = rig.grads;

  auto numeric = [&](std::vector<float>& v) {
    std::vector<double> g(v.size());
    for (std::size_t e = 0; e < v.size(); ++e) {
      const float keep = v[e];
      const float up = keep + step, down = keep - step;
      v[e] = up;
      const double lu = rig.loss(ctx, r, training);
      v[e] = down;
      const double ld = rig.loss(ctx, r, training);
      v[e] = keep;
      g[e] = (lu - ld) / (double(up) - double(down));  // the step actually taken in float
    }
    return g;
  };
  std::vector<TensorCheck> out;
  for (std::size_t i = 0; i < rig.inputs.size(); ++i) {
    const auto g = numeric(rig.inputs[i]);
    out.push_back({"input" + std::to_string(i), rel_err(din[i], g), max_abs(g)});
  }
  for (std::size_t j = 0; j < rig.params.size(); ++j) {
    const auto g = numeric(rig.params[j]);
    out.push_back({rig.specs()[j].name, rel_err(dparams[j], g), max_abs(g)});
  }
  return out;
}

// Graph from a spec string and data shape, instantiated on the CPU (a Model is not movable).
inline std::unique_ptr<Model> make_model(const std::string& spec, const DataShape& data, std::uint64_t seed) {
  return std::make_unique<Model>(build_model_graph(parse_model_spec(spec), data), Backend::cpu, seed);
}

}  // namespace scalebench::test
