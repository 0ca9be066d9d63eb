// softmax_xent_params.h — the sizes of one softmax cross-entropy: logits [n, classes, hw] (NCHW),
// labels [n, hw] (hw = 1: per-sample classification). Shared by the CPU kernels
// (kernels/cpu/softmax_xent.h) and the CUDA ones (kernels/cuda/softmax_xent.h, confusion.h).
// Plain data: no validation, class weights or dtype.
#pragma once

namespace scalebench {

struct SoftmaxXentParams {
  int n = 1, classes = 2, hw = 1;
};

}  // namespace scalebench
