// test_layer_timing.cpp — Model::time_layers' least-traffic counts (LayerTiming::forward_bytes and
// backward_bytes), what the GPU per-layer table's roofline columns divide by (sb_bench_gpu_model
// --layers): the forward reads the inputs and writes the output once; the backward reads the inputs
// and the output gradient and writes the input gradients once, none for the model's input. Checked
// on the CPU, where the counts are the same (they depend on shapes and dtypes only).
#include <gtest/gtest.h>

#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

TEST(LayerTiming, BytesAreTheLeastTrafficOfEachLayer) {
  const DataShape data{1, 8, 8, 3};
  const Shape shape{2, 1, 8, 8};
  auto m = test::make_model("unet:depth=2,base=4,bn=1", data, 3);
  m->setup(shape);
  const auto x = test::uniform(std::size_t(numel(shape)), 4);
  Ctx ctx;
  ctx.reference = true;  // every ReLU runs as its own layer, so each layer's counts stand alone
  m->forward(ctx, Tensor::view(const_cast<float*>(x.data()), shape), true);
  const auto times = m->time_layers(ctx, 1);
  ASSERT_FALSE(times.empty());
  // The first layer (a convolution) reads the model's input, which has no gradient.
  const double input_bytes = double(numel(shape)) * sizeof(float);
  EXPECT_EQ(times[0].kind, LayerKind::conv2d);
  EXPECT_EQ(times[0].backward_bytes, times[0].forward_bytes);
  EXPECT_GT(times[0].forward_bytes, input_bytes);
  int bn = 0, pool = 0;
  for (const auto& t : times) {
    if (t.kind == LayerKind::batchnorm) {  // in, out alike: 2 forward, 3 backward (in, dout, din)
      ++bn;
      EXPECT_GT(t.forward_bytes, 0.0) << t.name;
      EXPECT_EQ(3 * t.forward_bytes, 2 * t.backward_bytes) << t.name;
    }
    if (t.kind == LayerKind::maxpool2x2) {  // out = in / 4 (even planes): 1.25 in forward, 2.25 in backward
      ++pool;
      const double in = t.forward_bytes / 1.25;
      EXPECT_EQ(t.backward_bytes, 2.25 * in) << t.name;
    }
  }
  EXPECT_GT(bn, 0);
  EXPECT_GT(pool, 0);
}

}  // namespace
}  // namespace scalebench
