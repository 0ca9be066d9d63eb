// vgg.h — VGG builder (Simonyan & Zisserman 2014, configurations A/B/D/E = VGG 11/13/16/19):
// 3×3 convs (+ batch norm) + ReLU, 2×2 max pools, then fc–relu–dropout ×2 and an fc to `classes`.
// Options: width=1 (channel multiplier), bn=0, hidden=<4096·width>, dropout=0.5,
// classes=<from the data>, input=<checked against the data when given>.
#pragma once

#include "kernels/common/check.h"
#include "models/spec.h"

namespace scalebench {

Graph build_vgg(SpecOptions& opts, const DataShape& data, int layers);

}  // namespace scalebench
