// softmax_xent_params.h — the sizes of one softmax cross-entropy: logits [n, classes, hw] (NCHW),
// labels [n, hw] (hw = 1: per-sample classification). Shared by the CPU kernels
// (kernels/cpu/softmax_xent.h) and the CUDA ones (kernels/cuda/softmax_xent.h, confusion.h).
// Plain data and its reading from a logits shape: no class weights or dtype.
#pragma once

#include "kernels/common/check.h"
#include "kernels/common/tensor.h"

namespace scalebench {

struct SoftmaxXentParams {
  int n = 1, classes = 2, hw = 1;
};

// logits [n, C, h, w] or [n, C] → its sizes.
inline SoftmaxXentParams xent_params_of(const Shape& logits) {
  SB_CHECK(logits.size() == 2 || logits.size() == 4, "logits must be [n,C] or [n,C,h,w], got {}", to_string(logits));
  const int hw = logits.size() == 4 ? int(logits[2] * logits[3]) : 1;
  return {int(logits[0]), int(logits[1]), hw};
}

}  // namespace scalebench
