// vgg.cpp — builds the VGG graph. Node names: features.conv<i>, features.bn<i>, features.pool<j>,
// classifier.fc<k>; tests/golden/make_golden.py mirrors them in PyTorch.
#include "models/vgg.h"

#include <algorithm>
#include <cmath>

namespace scalebench {
namespace {

constexpr int M = 0;  // a max pool in the configuration lists

std::vector<int> vgg_config(int layers) {
  switch (layers) {
    case 11: return {64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
    case 13: return {64, 64, M, 128, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
    case 16: return {64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M};
    case 19: return {64, 64, M, 128, 128, M, 256, 256, 256, 256, M, 512, 512, 512, 512, M, 512, 512, 512, 512, M};
  }
  fail_input(fmt::format("vgg{}: unknown configuration (11, 13, 16 or 19)", layers));
}

}  // namespace

Graph build_vgg(SpecOptions& opts, const DataShape& data, int layers) {
  const double width = opts.real("width", 1.0, 1.0 / 64, 4.0);
  const bool bn = opts.flag("bn", false);
  const int hidden = opts.integer("hidden", std::max(1, int(std::lround(4096 * width))), 1, 1 << 16);
  const double p = opts.real("dropout", 0.5, 0.0, 0.95);
  const int classes = opts.integer("classes", data.classes, 2, 1 << 16);
  // The data size first: the default of "input" is the data height, so checking input's range
  // first would blame an option the user never gave.
  SB_REQUIRE(data.height >= 32 && data.width >= 32, "vgg needs images of at least 32x32 (5 pools), got {}x{}",
             data.height, data.width);
  const int input = opts.integer("input", data.height, 32, 1 << 14);
  SB_REQUIRE(classes == data.classes, "model spec: classes={} but the data has {} classes", classes, data.classes);
  SB_REQUIRE(input == data.height, "model spec: input={} but the data images are {}x{}", input, data.height,
             data.width);

  Graph g;
  int x = -1, conv = 0, pool = 0;
  for (int c : vgg_config(layers)) {
    if (c == M) {
      x = g.add(fmt::format("features.pool{}", pool++), {.kind = LayerKind::maxpool2x2}, {x});
      continue;
    }
    const int channels = std::max(1, int(std::lround(c * width)));
    x = g.add(fmt::format("features.conv{}", conv),
              {.kind = LayerKind::conv2d, .out_channels = channels, .kernel = 3, .stride = 1, .pad = 1, .bias = !bn},
              {x});
    if (bn) x = g.add(fmt::format("features.bn{}", conv), {.kind = LayerKind::batchnorm}, {x});
    x = g.add(fmt::format("features.relu{}", conv), {.kind = LayerKind::relu}, {x});
    ++conv;
  }
  for (int k = 0; k < 2; ++k) {
    x = g.add(fmt::format("classifier.fc{}", k), {.kind = LayerKind::linear, .out_channels = hidden}, {x});
    x = g.add(fmt::format("classifier.relu{}", k), {.kind = LayerKind::relu}, {x});
    x = g.add(fmt::format("classifier.drop{}", k), {.kind = LayerKind::dropout, .dropout_p = float(p)}, {x});
  }
  g.add("classifier.fc2", {.kind = LayerKind::linear, .out_channels = classes}, {x});
  return g;
}

}  // namespace scalebench
