// step_util.h — what the GPU model tests share: a problem (model spec, data shape, batch), a batch
// whose labels follow from the image, and the relative error they compare GPU results to CPU ones by.
// What it deliberately does not do: build models or devices (each test does, for what it checks).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/tensor.h"
#include "models/spec.h"

namespace scalebench::gpu_test {

struct Problem {
  std::string spec;
  DataShape data;
  int batch = 2;
  bool segmentation = true;
};

// A batch whose labels follow from the image (so a model can learn them): class of a pixel from
// the sign of channel 0 and 1; for classification, the sign of the image mean of channel 0.
struct Batch {
  Tensor x;  // host [n, c, h, w]
  std::vector<std::int32_t> labels;
};

inline Batch make_batch(const Problem& p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  Batch b;
  b.x = Tensor::zeros({p.batch, p.data.channels, p.data.height, p.data.width});
  for (std::int64_t i = 0; i < b.x.numel(); ++i) b.x.f32()[i] = nd(rng);
  const std::int64_t plane = std::int64_t(p.data.height) * p.data.width;
  for (int n = 0; n < p.batch; ++n) {
    const float* img = b.x.f32() + std::int64_t(n) * p.data.channels * plane;
    if (p.segmentation) {
      for (std::int64_t k = 0; k < plane; ++k)
        b.labels.push_back(img[k] > 0.5f ? 1 : (p.data.channels > 1 && img[plane + k] > 0.5f ? 2 : 0));
    } else {
      double mean = 0;
      for (std::int64_t k = 0; k < plane; ++k) mean += img[k];
      b.labels.push_back(mean > 0 ? 1 : 0);
    }
  }
  return b;
}

inline double rel_err(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    diff = std::max(diff, double(std::fabs(got[i] - want[i])));
    scale = std::max(scale, double(std::fabs(want[i])));
  }
  return scale == 0 ? diff : diff / scale;
}

inline const Problem kUnet{"unet:depth=2,base=8", {3, 20, 28, 3}, 3, true};
inline const Problem kVgg{"vgg11:width=0.125,bn=1,dropout=0.3", {3, 32, 32, 4}, 4, false};

}  // namespace scalebench::gpu_test
