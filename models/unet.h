// unet.h — U-Net builder (Ronneberger et al. 2015 shape): `depth` pooling steps, channels
// base·2^level, two 3×3 convs per level (+ batch norm), 2×2 up-convs, skip joins with centre crop
// (valid padding) or none (same padding), a 1×1 head to `classes` logits per pixel.
// Options: depth=4, base=16, padding=same|valid, bn=1, classes=<from the data>.
#pragma once

#include "kernels/common/check.h"
#include "models/spec.h"

namespace scalebench {

Graph build_unet(SpecOptions& opts, const DataShape& data);

}  // namespace scalebench
