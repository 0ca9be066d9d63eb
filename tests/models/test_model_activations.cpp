// test_model_activations.cpp — how the Model holds activations. Its ReLU fusion (Layer::fuse_relu): a ReLU that alone reads a
// batch norm's or a convolution's output is applied by that layer, sharing its tensors; the
// reference kernels run the ReLU node itself (in place). Whole models (U-Net with and without batch
// norm, its skip fan-out included; VGG with batch norm) with the fast kernels (im2col and oneDNN)
// against the reference composition: training logits, every parameter gradient, evaluation logits.
// That the fusion happened is read from time_layers(), which leaves a fused ReLU's time at zero.
// The per-kernel bit-for-bit checks are tests/kernels (test_batchnorm.cpp, test_onednn_conv2d.cpp).
// And its storage across batch sizes: training, a smaller evaluation batch, training again keeps
// every activation where it was, with the results of a model that never saw the smaller batch.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/onednn/conv2d.h"
#include "models/loss.h"
#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

struct Outcome {
  std::vector<float> logits, grads, eval_logits;
};

Outcome run(Model& m, const Ctx& ctx_in, const std::vector<float>& x, const Shape& shape,
            const std::vector<std::int32_t>& labels) {
  Ctx ctx = ctx_in;
  const Tensor xt = Tensor::view(const_cast<float*>(x.data()), shape);
  Outcome o;
  const Tensor& logits = m.forward(ctx, xt, /*training=*/true);
  o.logits.assign(logits.f32(), logits.f32() + logits.numel());
  Tensor dlogits;
  softmax_cross_entropy(logits, labels.data(), {}, &dlogits);
  m.grads().fill(NAN);
  m.backward(ctx, dlogits);
  o.grads.assign(m.grads().f32(), m.grads().f32() + m.param_count());
  const Tensor& ev = m.forward(ctx, xt, /*training=*/false);
  o.eval_logits.assign(ev.f32(), ev.f32() + ev.numel());
  return o;
}

TEST(ReluFusion, FusedModelsMatchTheReferenceComposition) {
  struct Case {
    const char* spec;
    DataShape data;
  };
  for (const Case& c : {Case{"unet:depth=2,base=4,bn=1", {1, 8, 8, 3}}, Case{"unet:depth=2,base=4,bn=0", {1, 8, 8, 3}},
                        Case{"vgg11:width=0.0625,hidden=8,dropout=0,bn=1", {1, 32, 32, 4}}}) {
    const Shape shape{2, c.data.channels, c.data.height, c.data.width};
    const auto x = test::uniform(std::size_t(numel(shape)), 3);
    std::vector<CpuKernels> kernels{CpuKernels::blas};
    if (onednn::available()) kernels.push_back(CpuKernels::onednn);
    for (CpuKernels k : kernels) {
      const std::string what = fmt::format("{} with {}", c.spec, name_of(k));
      // One model per path from one seed: the same parameters, and batch-norm running statistics
      // moved by exactly one training forward before each evaluation.
      auto ref_model = test::make_model(c.spec, c.data, 7), fast_model = test::make_model(c.spec, c.data, 7);
      const Shape out = ref_model->setup(shape);
      fast_model->setup(shape);
      const auto labels = test::random_labels(std::size_t(numel(out) / out[1]), c.data.classes, 4);
      Ctx ref_ctx, fast_ctx;
      ref_ctx.reference = true;
      fast_ctx.cpu_kernels = k;
      const Outcome want = run(*ref_model, ref_ctx, x, shape, labels), got = run(*fast_model, fast_ctx, x, shape, labels);
      EXPECT_LE(test::rel_err(got.logits, want.logits), 1e-4) << what << ": training logits";
      EXPECT_LE(test::rel_err(got.grads, want.grads), 1e-3) << what << ": gradients";
      EXPECT_LE(test::rel_err(got.eval_logits, want.eval_logits), 1e-4) << what << ": evaluation logits";
      int relus = 0, fused = 0;
      for (const auto& t : fast_model->time_layers(fast_ctx, 1)) {
        if (t.kind != LayerKind::relu) continue;
        ++relus;
        fused += t.forward_s == 0.0 && t.backward_s == 0.0;
      }
      // Every ReLU of these models follows a batch norm or a convolution, except VGG's classifier's.
      EXPECT_GE(fused, relus - 2) << what;
      EXPECT_GT(fused, 0) << what;
    }
  }
}

TEST(ModelActivations, ASmallerBatchAndBackKeepTheStorageAndTheResults) {
  const DataShape data{1, 8, 8, 3};
  const Shape big{4, 1, 8, 8}, small{2, 1, 8, 8};
  const auto x = test::uniform(std::size_t(numel(big)), 5);
  const auto labels = test::random_labels(std::size_t(4 * 8 * 8), 3, 6);
  auto fresh = test::make_model("unet:depth=2,base=4,bn=1", data, 9), cycled = test::make_model("unet:depth=2,base=4,bn=1", data, 9);
  Ctx ctx;
  fresh->setup(big);
  cycled->setup(big);
  const Tensor xt = Tensor::view(const_cast<float*>(x.data()), big);
  const void* logits_before = cycled->forward(ctx, xt, false).raw();
  cycled->forward(ctx, Tensor::view(const_cast<float*>(x.data()), small), false);  // evaluation's last batch
  const Outcome want = run(*fresh, ctx, x, big, labels), got = run(*cycled, ctx, x, big, labels);
  EXPECT_EQ(cycled->forward(ctx, xt, false).raw(), logits_before) << "the batch-4 storage was given up";
  EXPECT_EQ(got.logits, want.logits);
  EXPECT_EQ(got.grads, want.grads);
}

}  // namespace
}  // namespace scalebench
