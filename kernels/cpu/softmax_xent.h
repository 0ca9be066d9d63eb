// softmax_xent.h — softmax cross-entropy, NCHW logits [n, classes, hw] against int32 labels [n, hw]
// (hw = 1 is the per-sample classification case). Optional class weights [classes] give the
// weighted mean of PyTorch's CrossEntropyLoss(weight=...): sum_i w[y_i]·nll_i / sum_i w[y_i].
// Log-sum-exp in double for stability. Labels out of [0, classes) are a caller error (checked).
#pragma once

#include <cstdint>

#include "kernels/common/softmax_xent_params.h"

namespace scalebench::cpu {

// Returns the loss; writes dlogits (same shape as logits, gradient of the returned loss) when non-null.
double softmax_xent(const SoftmaxXentParams& p, const float* logits, const std::int32_t* labels,
                    const float* class_weights, float* dlogits);

// pred [n, hw] = argmax over classes (ties to the lower class).
void argmax_classes(const SoftmaxXentParams& p, const float* logits, std::int32_t* pred);

}  // namespace scalebench::cpu
