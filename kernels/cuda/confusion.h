// confusion.h — IoU confusion counts on the GPU: counts[label·classes + pred] += 1 for every pixel,
// with pred the argmax over classes of NCHW logits [n, classes, hw] (ties to the lower class, as
// kernels/cpu/softmax_xent.h's argmax_classes) and label from int32 labels [n, hw]. The [label, pred]
// order and int64 counts are those of harness/train/metrics.h's ConfusionMatrix, so a download adds
// straight into one. Integer atomics only: the counts are exact and run-order independent.
// Not here: the IoU arithmetic itself (done on the host from the counts), ignore_index.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/softmax_xent_params.h"
#include "kernels/common/tensor.h"

namespace scalebench::cuda {

// ADDS into counts [classes, classes] (zero it first for a fresh matrix). Pixels whose label is
// outside [0, classes) are not counted; their number is added to *invalid when invalid is non-null
// (softmax_xent on the same batch reports them as an error).
void confusion_counts(const SoftmaxXentParams& p, DType dtype, const void* logits, const std::int32_t* labels,
                      std::int64_t* counts, std::int64_t* invalid, cudaStream_t stream);

}  // namespace scalebench::cuda
