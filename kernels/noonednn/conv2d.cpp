// conv2d.cpp — the stand-in for kernels/onednn in builds without oneDNN: available() is false and
// the convolution fails with one line saying so (models/conv2d_cpu.cpp never calls it there:
// --cpu-kernels auto falls back to im2col, and onednn is refused before a run starts).
#include "kernels/onednn/conv2d.h"

#include "kernels/common/check.h"

namespace scalebench::onednn {

struct Conv2d::Impl {};

bool available() { return false; }
std::string version() { return ""; }

Conv2d::Conv2d(bool, bool, bool) {}
Conv2d::~Conv2d() = default;

void Conv2d::forward(const Conv2dParams&, const float*, const float*, const float*, float*) {
  fail_input("this scalebench was built without oneDNN (install libdnnl-dev and rebuild, or use --cpu-kernels blas)");
}
void Conv2d::backward(const Conv2dParams&, const float*, const float*, const float*, float*, float*, float*) {
  fail_input("this scalebench was built without oneDNN (install libdnnl-dev and rebuild, or use --cpu-kernels blas)");
}

}  // namespace scalebench::onednn
