// particle_noise.cpp — the detector response applied to a noise-free canvas: per-image gain,
// white electronic noise plus a small coherent offset per wire (column), and a few dead wires
// (whole columns or rows reading zero). Labels come from the noise-free charge: a pixel is
// background below knob::kLabelThreshold, otherwise the class of its dominant particle; dead-wire
// pixels are background because nothing can be seen there.
// No signal shaping, no induction-plane effects, no zero suppression.
#include <algorithm>
#include <vector>

#include "harness/data/particles.h"

namespace scalebench::data::detail {

void apply_detector(const Canvas& c, Rng& rng, float* image, std::int32_t* labels) {
  const int n = c.size();
  const float gain = std::clamp(static_cast<float>(rng.normal(1.0, 0.07)), 0.8f, 1.2f);
  const float sigma = static_cast<float>(rng.uniform(0.03, 0.06));

  std::vector<float> wire(static_cast<size_t>(n));  // [W] coherent offset per column
  for (auto& w : wire) w = static_cast<float>(rng.normal(0.0, 0.25 * sigma));

  const auto& total = c.total();
  const auto& owner = c.owner();
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const size_t i = static_cast<size_t>(y) * n + x;
      image[i] = total[i] * gain + wire[static_cast<size_t>(x)] + sigma * static_cast<float>(rng.normal());
      if (labels) labels[i] = total[i] >= knob::kLabelThreshold ? owner[i] : kPixelBackground;
    }
  }

  // Dead wires: 0-3 per image, each a whole column or row.
  const double u = rng.uniform();
  const int dead = u < 0.35 ? 0 : u < 0.70 ? 1 : u < 0.90 ? 2 : 3;
  for (int k = 0; k < dead; ++k) {
    const bool column = rng.chance(0.5);
    const int w = rng.range(0, n - 1);
    for (int j = 0; j < n; ++j) {
      const size_t i = column ? static_cast<size_t>(j) * n + w : static_cast<size_t>(w) * n + j;
      image[i] = 0.0f;
      if (labels) labels[i] = kPixelBackground;
    }
  }
}

}  // namespace scalebench::data::detail
