// unet.cpp — builds the U-Net graph. Node names (and so parameter names) are
// enc<l>.conv<j>, enc<l>.bn<j>, bottleneck.conv<j>, dec<l>.up, dec<l>.concat, dec<l>.conv<j>, head;
// tests/golden/make_golden.py builds the same network in PyTorch with these names.
#include "models/unet.h"

namespace scalebench {
namespace {

// conv3x3 [+ bn] + relu, twice; returns the last node.
int double_conv(Graph& g, const std::string& prefix, int in, int channels, int pad, bool bn) {
  int x = in;
  for (int j = 0; j < 2; ++j) {
    LayerDesc conv{.kind = LayerKind::conv2d, .out_channels = channels, .kernel = 3, .stride = 1, .pad = pad,
                   .bias = !bn};
    x = g.add(fmt::format("{}.conv{}", prefix, j), conv, {x});
    if (bn) x = g.add(fmt::format("{}.bn{}", prefix, j), {.kind = LayerKind::batchnorm}, {x});
    x = g.add(fmt::format("{}.relu{}", prefix, j), {.kind = LayerKind::relu}, {x});
  }
  return x;
}

}  // namespace

Graph build_unet(SpecOptions& opts, const DataShape& data) {
  const int depth = opts.integer("depth", 4, 1, 7);
  const int base = opts.integer("base", 16, 1, 1024);
  const bool same = opts.choice("padding", "same", {"same", "valid"}) == "same";
  const bool bn = opts.flag("bn", true);
  const int classes = opts.integer("classes", data.classes, 2, 1 << 16);
  SB_REQUIRE(classes == data.classes, "model spec: classes={} but the data has {} classes", classes, data.classes);
  if (same) {
    const int m = 1 << depth;
    SB_REQUIRE(data.height % m == 0 && data.width % m == 0,
               "unet with depth={} and same padding needs image sizes divisible by {}, got {}x{}", depth, m,
               data.height, data.width);
  }
  const int pad = same ? 1 : 0;

  Graph g;
  std::vector<int> skips;
  int x = -1;
  for (int l = 0; l < depth; ++l) {
    x = double_conv(g, fmt::format("enc{}", l), x, base << l, pad, bn);
    skips.push_back(x);
    x = g.add(fmt::format("enc{}.pool", l), {.kind = LayerKind::maxpool2x2}, {x});
  }
  x = double_conv(g, "bottleneck", x, base << depth, pad, bn);
  for (int l = depth - 1; l >= 0; --l) {
    const std::string p = fmt::format("dec{}", l);
    x = g.add(p + ".up", {.kind = LayerKind::upconv2x2, .out_channels = base << l}, {x});
    x = g.add(p + ".concat", {.kind = LayerKind::concat_crop}, {skips[std::size_t(l)], x});
    x = double_conv(g, p, x, base << l, pad, bn);
  }
  g.add("head", {.kind = LayerKind::conv2d, .out_channels = classes, .kernel = 1, .stride = 1, .pad = 0}, {x});
  return g;
}

}  // namespace scalebench
