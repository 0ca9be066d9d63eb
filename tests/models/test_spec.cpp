// test_spec.cpp — model spec strings: every parse or build error throws scalebench::Error whose one
// line names the offending model, key or value; canonical_spec fills defaults and ignores order;
// the graphs the builders produce have the documented node names and output shapes.
// Deliberately not here: parameter values or gradients (test_model_*.cpp, test_golden.cpp).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/models/model_test_util.h"

namespace scalebench {
namespace {

const DataShape kSeg{1, 64, 64, 3};     // segmentation data: 1 channel, 64×64, 3 classes
const DataShape kCls{3, 32, 32, 10};    // classification data: RGB 32×32, 10 classes

// The message of the Error that f throws, or "" (a test failure) when it throws none.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no scalebench::Error thrown";
  return "";
}

std::string build_error(const std::string& spec, const DataShape& data) {
  return error_of([&] { build_model_graph(parse_model_spec(spec), data); });
}

struct BadSpec {
  std::string spec;
  DataShape data;
  std::vector<std::string> needles;  // each must appear in the message
};

void PrintTo(const BadSpec& b, std::ostream* os) { *os << "'" << b.spec << "'"; }

class SpecErrors : public ::testing::TestWithParam<BadSpec> {};

TEST_P(SpecErrors, ThrowOneLineNamingTheCulprit) {
  const BadSpec& b = GetParam();
  const std::string msg = build_error(b.spec, b.data);
  for (const auto& needle : b.needles) EXPECT_NE(msg.find(needle), std::string::npos) << "'" << needle << "' not in: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SpecErrors,
    ::testing::Values(BadSpec{"resnet50:depth=2", kSeg, {"unknown model", "'resnet50'"}},
                      BadSpec{":depth=2", kSeg, {"missing the model name"}},
                      BadSpec{"unet:depth=2,foo=1", kSeg, {"unknown option", "'foo'"}},
                      BadSpec{"vgg16:depth=2", kCls, {"unknown option", "'depth'", "vgg16"}},
                      BadSpec{"unet:depth=two", kSeg, {"depth", "'two'", "not an integer"}},
                      BadSpec{"unet:depth=2x", kSeg, {"depth", "'2x'"}},
                      BadSpec{"unet:depth=0", kSeg, {"depth=0", "out of range"}},
                      BadSpec{"unet:depth=2,depth=3", kSeg, {"'depth'", "twice"}},
                      BadSpec{"unet:depth", kSeg, {"'depth'", "key=value"}},
                      BadSpec{"unet:depth=2,", kSeg, {"key=value"}},
                      BadSpec{"unet:padding=full", kSeg, {"padding", "'full'", "same|valid"}},
                      BadSpec{"unet:bn=yes", kSeg, {"bn", "'yes'"}},
                      BadSpec{"unet:classes=4", kSeg, {"classes=4", "3 classes"}},
                      BadSpec{"unet:depth=3", {1, 20, 20, 3}, {"divisible by 8", "20x20"}},
                      BadSpec{"unet:depth=2", {1, 64, 30, 3}, {"divisible by 4", "64x30"}},
                      BadSpec{"vgg16:width=abc", kCls, {"width", "'abc'", "not a number"}},
                      BadSpec{"vgg16:width=8", kCls, {"width=8", "out of range"}},
                      BadSpec{"vgg16:classes=5", kCls, {"classes=5", "10 classes"}},
                      BadSpec{"vgg16:input=64", kCls, {"input=64", "32x32"}},
                      BadSpec{"vgg16", {3, 16, 16, 10}, {"at least 32x32", "16x16"}},
                      BadSpec{"vgg16", {3, 32, 16, 10}, {"at least 32x32", "32x16"}}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(SpecParse, SplitsFamilyAndOptions) {
  const ModelSpec s = parse_model_spec("unet:depth=3,base=8,padding=valid");
  EXPECT_EQ(s.family, "unet");
  EXPECT_EQ(s.text, "unet:depth=3,base=8,padding=valid");
  EXPECT_EQ(s.options.size(), 3u);
  EXPECT_EQ(s.options.at("padding"), "valid");
  EXPECT_TRUE(parse_model_spec("vgg19").options.empty());
}

TEST(SpecCanonical, FillsDefaultsAndIgnoresOrder) {
  EXPECT_EQ(canonical_spec(parse_model_spec("unet"), kSeg), "unet:base=16,bn=1,classes=3,depth=4,padding=same");
  EXPECT_EQ(canonical_spec(parse_model_spec("unet:padding=valid,depth=2"), kSeg),
            canonical_spec(parse_model_spec("unet:depth=2,padding=valid,bn=1"), kSeg));
  // vgg: hidden defaults to 4096·width; input to the data's height.
  const std::string v = canonical_spec(parse_model_spec("vgg16:width=0.25"), kCls);
  EXPECT_NE(v.find("hidden=1024"), std::string::npos) << v;
  EXPECT_NE(v.find("input=32"), std::string::npos) << v;
  EXPECT_NE(v.find("width=0.25"), std::string::npos) << v;
  EXPECT_EQ(v.rfind("vgg16:", 0), 0u) << v;
  // Spellings of the same flag agree.
  EXPECT_EQ(canonical_spec(parse_model_spec("unet:bn=true"), kSeg), canonical_spec(parse_model_spec("unet:bn=1"), kSeg));
}

std::vector<std::string> node_names(const Graph& g) {
  std::vector<std::string> n;
  for (const auto& node : g.nodes) n.push_back(node.name);
  return n;
}

TEST(UnetGraph, NodeNamesAndSkipEdges) {
  const Graph g = build_model_graph(parse_model_spec("unet:depth=1,base=4,bn=1"), kSeg);
  const std::vector<std::string> want{
      "enc0.conv0",       "enc0.bn0",       "enc0.relu0",       "enc0.conv1",       "enc0.bn1",       "enc0.relu1",
      "enc0.pool",        "bottleneck.conv0", "bottleneck.bn0", "bottleneck.relu0", "bottleneck.conv1",
      "bottleneck.bn1",   "bottleneck.relu1", "dec0.up",        "dec0.concat",    "dec0.conv0",       "dec0.bn0",
      "dec0.relu0",       "dec0.conv1",     "dec0.bn1",         "dec0.relu1",       "head"};
  EXPECT_EQ(node_names(g), want);
  // dec0.concat reads (skip = enc0.relu1, up = dec0.up), in that order.
  EXPECT_EQ(g.nodes[14].inputs, (std::vector<int>{5, 13}));
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{-1}));
  EXPECT_EQ(g.nodes.back().desc.kernel, 1);
  EXPECT_EQ(g.nodes.back().desc.out_channels, 3);
  EXPECT_FALSE(g.nodes[0].desc.bias);  // conv bias is redundant before batch norm
  const Graph nobn = build_model_graph(parse_model_spec("unet:depth=1,base=4,bn=0"), kSeg);
  EXPECT_TRUE(nobn.nodes[0].desc.bias);
  EXPECT_EQ(nobn.nodes[1].name, "enc0.relu0");
}

TEST(UnetGraph, OutputShapes) {
  auto same = test::make_model("unet:depth=2,base=2,padding=same", {1, 8, 8, 3}, 1);
  EXPECT_EQ(same->setup({2, 1, 8, 8}), (Shape{2, 3, 8, 8}));
  // valid: 44 → 40 → 20 → 16 → 8 → 4 → (up) 8 → 4 → (up) 8 → 4.
  auto valid = test::make_model("unet:depth=2,base=2,padding=valid", {1, 44, 44, 3}, 1);
  EXPECT_EQ(valid->setup({1, 1, 44, 44}), (Shape{1, 3, 4, 4}));
  // Too small for valid padding: a clear error naming the layer, not a crash.
  auto tiny = test::make_model("unet:depth=2,base=2,padding=valid", {1, 16, 16, 3}, 1);
  const std::string msg = error_of([&] { tiny->setup({1, 1, 16, 16}); });
  EXPECT_NE(msg.find("layer "), std::string::npos) << msg;
}

TEST(VggGraph, LayerCountsPerDepth) {
  const int convs[] = {8, 10, 13, 16};
  const char* names[] = {"vgg11", "vgg13", "vgg16", "vgg19"};
  for (int i = 0; i < 4; ++i) {
    const Graph g = build_model_graph(parse_model_spec(std::string(names[i]) + ":width=0.25"), kCls);
    int conv = 0, pool = 0, linear = 0, dropout = 0;
    for (const auto& n : g.nodes) {
      conv += n.desc.kind == LayerKind::conv2d;
      pool += n.desc.kind == LayerKind::maxpool2x2;
      linear += n.desc.kind == LayerKind::linear;
      dropout += n.desc.kind == LayerKind::dropout;
    }
    EXPECT_EQ(conv, convs[i]) << names[i];
    EXPECT_EQ(pool, 5) << names[i];
    EXPECT_EQ(linear, 3) << names[i];
    EXPECT_EQ(dropout, 2) << names[i];
    EXPECT_EQ(g.nodes.back().name, "classifier.fc2");
    EXPECT_EQ(g.nodes.back().desc.out_channels, 10);
  }
  auto m = test::make_model("vgg11:width=0.25", kCls, 1);
  EXPECT_EQ(m->setup({4, 3, 32, 32}), (Shape{4, 10}));
}

}  // namespace
}  // namespace scalebench
