// test_model_params.cpp — what a Model holds before any training: parameter names, shapes, counts
// and arena layout for known configurations (VGG16 at full size against its published 138,357,544),
// analytic FLOP counts (VGG16 at 224² against a hand-written layer table), and initialisation
// (He normal statistics, bit-identical for one seed, different for another, untouched by a new
// batch size). Full-size VGG16 is checked by walking its layers' param_specs()/flops() without a
// Model, so no 1 GB arena is allocated.
// Deliberately not here: gradients (test_*gradcheck.cpp, test_golden.cpp), spec errors (test_spec.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

struct Walk {
  std::int64_t params = 0;
  double conv_linear_flops = 0;  // forward, whole batch
  double all_flops = 0;
  Shape out;
};

// Sets up each layer of the graph in turn (as Model::setup does) without allocating parameters.
Walk walk(const Graph& g, const Shape& input) {
  Walk w;
  std::vector<Shape> out(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    auto layer = make_layer(g.nodes[i].desc, Backend::cpu);
    std::vector<Shape> in;
    for (int k : g.nodes[i].inputs) in.push_back(k < 0 ? input : out[std::size_t(k)]);
    out[i] = layer->setup(in);
    for (const auto& s : layer->param_specs()) w.params += numel(s.shape);
    const double f = layer->flops(in);
    w.all_flops += f;
    if (layer->kind() == LayerKind::conv2d || layer->kind() == LayerKind::linear) w.conv_linear_flops += f;
  }
  w.out = out.back();
  return w;
}

// VGG16 (configuration D) on 224×224×3, written out by hand: (c_in, c_out, spatial size) per conv.
struct ConvRow {
  double c_in, c_out, hw;
};
const ConvRow kVgg16[] = {{3, 64, 224},   {64, 64, 224},  {64, 128, 112}, {128, 128, 112}, {128, 256, 56},
                          {256, 256, 56}, {256, 256, 56}, {256, 512, 28}, {512, 512, 28},  {512, 512, 28},
                          {512, 512, 14}, {512, 512, 14}, {512, 512, 14}};
const double kVgg16Fc[][2] = {{25088, 4096}, {4096, 4096}, {4096, 1000}};

TEST(ParamCount, Vgg16FullSizeIsThePublishedCount) {
  const Graph g = build_model_graph(parse_model_spec("vgg16"), {3, 224, 224, 1000});
  const Walk w = walk(g, {1, 3, 224, 224});
  EXPECT_EQ(w.out, (Shape{1, 1000}));
  double table = 0;
  for (const auto& r : kVgg16) table += 9 * r.c_in * r.c_out + r.c_out;
  for (const auto& f : kVgg16Fc) table += f[0] * f[1] + f[1];
  EXPECT_EQ(table, 138357544.0);  // the table itself against torchvision's vgg16
  EXPECT_EQ(w.params, 138357544);
}

TEST(Flops, Vgg16FullSizeForward) {
  const Graph g = build_model_graph(parse_model_spec("vgg16"), {3, 224, 224, 1000});
  const Walk w = walk(g, {2, 3, 224, 224});
  // 2·K²·Cin·Cout·Hout·Wout per conv, 2·in·out per linear: 15.47 G multiply-adds per image.
  double table = 0;
  for (const auto& r : kVgg16) table += 2 * 9 * r.c_in * r.c_out * r.hw * r.hw;
  for (const auto& f : kVgg16Fc) table += 2 * f[0] * f[1];
  EXPECT_EQ(table, 30940528640.0);
  EXPECT_EQ(w.conv_linear_flops, 2 * table);  // batch of 2
  // ReLU, pooling and dropout add ~0.06%.
  EXPECT_GT(w.all_flops / 2, table);
  EXPECT_LT(w.all_flops / 2, table * 1.001);
}

TEST(Flops, ModelReportsPerImageForwardAndTrain) {
  auto m = test::make_model("vgg11:width=0.25,bn=1", {3, 32, 32, 10}, 1);
  m->setup({4, 3, 32, 32});
  const Walk w = walk(m->graph(), {4, 3, 32, 32});
  EXPECT_DOUBLE_EQ(m->forward_flops_per_image(), w.all_flops / 4);
  EXPECT_DOUBLE_EQ(m->train_flops_per_image(), 3 * w.all_flops / 4);
  const auto layers = m->layer_flops();
  ASSERT_EQ(layers.size(), m->graph().nodes.size());
  // features.conv0: 3 → 16 channels, 3×3, 32×32 output.
  EXPECT_EQ(layers[0].name, "features.conv0");
  EXPECT_EQ(layers[0].kind, LayerKind::conv2d);
  EXPECT_EQ(layers[0].out_shape, (Shape{4, 16, 32, 32}));
  EXPECT_DOUBLE_EQ(layers[0].forward, 2.0 * 9 * 3 * 16 * 32 * 32);
  // Per image: a new batch size changes nothing.
  const double per_image = m->forward_flops_per_image();
  m->setup({1, 3, 32, 32});
  EXPECT_DOUBLE_EQ(m->forward_flops_per_image(), per_image);
}

TEST(Flops, UnetHeadIsOneByOneConv) {
  auto m = test::make_model("unet:depth=2,base=4", {1, 16, 16, 3}, 1);
  m->setup({2, 1, 16, 16});
  const auto layers = m->layer_flops();
  EXPECT_EQ(layers.back().name, "head");
  EXPECT_DOUBLE_EQ(layers.back().forward, 2.0 * 1 * 4 * 3 * 16 * 16);
}

// U-Net parameters by hand: two 3×3 convs per block (+ batch-norm γ, β or conv bias), a 2×2
// up-convolution with bias per decoder level, a 1×1 head with bias.
std::int64_t unet_params(std::int64_t in, int depth, std::int64_t base, std::int64_t classes, bool bn) {
  auto block = [&](std::int64_t c_in, std::int64_t c) { return 9 * c_in * c + 9 * c * c + (bn ? 4 : 2) * c; };
  std::int64_t total = 0, c = in;
  for (int l = 0; l < depth; ++l) total += block(c, base << l), c = base << l;
  total += block(c, base << depth);
  for (int l = depth - 1; l >= 0; --l) {
    const std::int64_t up_in = base << (l + 1), out = base << l;
    total += up_in * out * 4 + out + block(2 * out, out);
  }
  return total + base * classes + classes;
}

TEST(ParamCount, UnetMatchesHandCount) {
  struct Cfg {
    std::string spec;
    DataShape data;
    std::int64_t want;
  };
  const Cfg cfgs[] = {
      {"unet", {1, 64, 64, 3}, unet_params(1, 4, 16, 3, true)},
      {"unet:depth=4,base=64,padding=valid,bn=0", {1, 572, 572, 2}, unet_params(1, 4, 64, 2, false)},
      {"unet:depth=2,base=2,bn=0", {3, 8, 8, 5}, unet_params(3, 2, 2, 5, false)},
  };
  // The classic U-Net (Ronneberger et al.: depth 4, 64 base channels, no batch norm) has ~31.0 M.
  EXPECT_EQ(unet_params(1, 4, 64, 2, false), 31030658);
  for (const auto& c : cfgs) {
    const Graph g = build_model_graph(parse_model_spec(c.spec), c.data);
    EXPECT_EQ(walk(g, {1, c.data.channels, c.data.height, c.data.width}).params, c.want) << c.spec;
  }
}

TEST(ParamInfo, NamesShapesAndContiguousOffsets) {
  auto m = test::make_model("unet:depth=1,base=4,bn=1", {1, 16, 16, 3}, 1);
  m->setup({1, 1, 16, 16});
  struct Want {
    const char* name;
    Shape shape;
  };
  const std::vector<Want> want{
      {"enc0.conv0.weight", {4, 1, 3, 3}},       {"enc0.bn0.weight", {4}},       {"enc0.bn0.bias", {4}},
      {"enc0.conv1.weight", {4, 4, 3, 3}},       {"enc0.bn1.weight", {4}},       {"enc0.bn1.bias", {4}},
      {"bottleneck.conv0.weight", {8, 4, 3, 3}}, {"bottleneck.bn0.weight", {8}}, {"bottleneck.bn0.bias", {8}},
      {"bottleneck.conv1.weight", {8, 8, 3, 3}}, {"bottleneck.bn1.weight", {8}}, {"bottleneck.bn1.bias", {8}},
      {"dec0.up.weight", {8, 4, 2, 2}},          {"dec0.up.bias", {4}},          {"dec0.conv0.weight", {4, 8, 3, 3}},
      {"dec0.bn0.weight", {4}},                  {"dec0.bn0.bias", {4}},         {"dec0.conv1.weight", {4, 4, 3, 3}},
      {"dec0.bn1.weight", {4}},                  {"dec0.bn1.bias", {4}},         {"head.weight", {3, 4, 1, 1}},
      {"head.bias", {3}}};
  const auto& info = m->param_info();
  ASSERT_EQ(info.size(), want.size());
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(info[i].name, want[i].name);
    EXPECT_EQ(info[i].shape, want[i].shape) << want[i].name;
    EXPECT_EQ(info[i].offset, offset) << want[i].name;
    EXPECT_EQ(m->graph().nodes[std::size_t(info[i].node)].name + "." + info[i].name.substr(info[i].name.rfind('.') + 1),
              info[i].name);
    offset += numel(info[i].shape);
  }
  EXPECT_EQ(m->param_count(), offset);
  EXPECT_EQ(m->grads().numel(), offset);
  // Batch-norm running statistics are buffers named after their node, not parameters.
  const auto bufs = m->buffers();
  ASSERT_EQ(bufs.size(), 12u);
  EXPECT_EQ(bufs[0].first, "enc0.bn0.running_mean");
  EXPECT_EQ(bufs[1].first, "enc0.bn0.running_var");
  EXPECT_EQ(bufs[0].second->numel(), 4);
}

std::vector<float> param_copy(Model& m) { return {m.params().f32(), m.params().f32() + m.param_count()}; }

TEST(Init, SameSeedBitIdenticalOtherSeedDifferent) {
  const std::string spec = "unet:depth=2,base=4,bn=0";
  const DataShape d{1, 16, 16, 3};
  auto a = test::make_model(spec, d, 42), b = test::make_model(spec, d, 42), c = test::make_model(spec, d, 43);
  a->setup({2, 1, 16, 16});
  b->setup({1, 1, 16, 16});  // the batch size plays no part
  c->setup({2, 1, 16, 16});
  ASSERT_EQ(a->param_count(), b->param_count());
  EXPECT_EQ(std::memcmp(a->params().f32(), b->params().f32(), sizeof(float) * std::size_t(a->param_count())), 0);
  // Every He-initialised tensor differs under another seed; the zero biases do not.
  const auto pa = param_copy(*a), pc = param_copy(*c);
  for (const auto& info : a->param_info()) {
    const bool weight = info.name.ends_with(".weight");
    const bool differs = !std::equal(pa.begin() + info.offset, pa.begin() + info.offset + numel(info.shape),
                                     pc.begin() + info.offset);
    EXPECT_EQ(differs, weight) << info.name;
  }
}

TEST(Init, HeNormalStatisticsAndConstantInits) {
  auto m = test::make_model("vgg11:width=0.25,bn=1", {3, 32, 32, 10}, 7);
  m->setup({1, 3, 32, 32});
  const auto p = param_copy(*m);
  int checked = 0;
  for (const auto& info : m->param_info()) {
    const auto begin = p.begin() + info.offset;
    const std::vector<float> v(begin, begin + numel(info.shape));
    if (info.name.find(".bn") != std::string::npos) {
      const float want = info.name.ends_with(".weight") ? 1.0f : 0.0f;  // γ = 1, β = 0
      for (float x : v) ASSERT_EQ(x, want) << info.name;
    } else if (info.name.ends_with(".bias")) {
      for (float x : v) ASSERT_EQ(x, 0.0f) << info.name;
    } else if (v.size() >= 20000) {
      // std = sqrt(2 / fan_in), fan_in = c_in·k² (conv) or in-features (linear); mean 0.
      const double fan_in = double(numel(info.shape)) / double(info.shape[0]);
      double sum = 0, sq = 0;
      for (float x : v) sum += x, sq += double(x) * x;
      const double mean = sum / double(v.size()), sd = std::sqrt(sq / double(v.size()) - mean * mean);
      const double want_sd = std::sqrt(2.0 / fan_in);
      EXPECT_NEAR(sd / want_sd, 1.0, 0.03) << info.name;
      EXPECT_NEAR(mean / want_sd, 0.0, 0.03) << info.name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 4);
}

TEST(Init, UpconvUsesPyTorchFanIn) {
  // ConvTranspose2d weight [c_in, c_out, 2, 2]: PyTorch's fan-in is dim 1 × 4 = c_out·4.
  auto m = test::make_model("unet:depth=1,base=64,bn=0", {1, 16, 16, 2}, 3);
  m->setup({1, 1, 16, 16});
  for (const auto& info : m->param_info()) {
    if (info.name != "dec0.up.weight") continue;
    ASSERT_EQ(info.shape, (Shape{128, 64, 2, 2}));
    double sq = 0;
    const float* w = m->params().f32() + info.offset;
    for (std::int64_t i = 0; i < numel(info.shape); ++i) sq += double(w[i]) * w[i];
    EXPECT_NEAR(std::sqrt(sq / double(numel(info.shape))) / std::sqrt(2.0 / (64 * 4)), 1.0, 0.03);
    return;
  }
  FAIL() << "dec0.up.weight not found";
}

TEST(Init, NewBatchSizeKeepsParameters) {
  auto m = test::make_model("vgg11:width=0.0625,hidden=8", {3, 32, 32, 4}, 5);
  m->setup({2, 3, 32, 32});
  m->params().f32()[0] = 123.0f;  // a trained value must survive re-setup
  const auto before = param_copy(*m);
  EXPECT_EQ(m->setup({5, 3, 32, 32}), (Shape{5, 4}));
  EXPECT_EQ(param_copy(*m), before);
}

}  // namespace
}  // namespace scalebench
