// softmax_xent.h — softmax cross-entropy on the GPU with the semantics of kernels/cpu/softmax_xent.h:
// NCHW logits [n, classes, hw] (f32, bf16 or f16) against int32 labels [n, hw], optional f32 class
// weights [classes] giving the weighted mean Σ w[y]·nll / Σ w[y]; zero total weight gives loss 0 and
// zero dlogits; a label outside [0, classes) throws scalebench::Error naming the first bad position.
// Per-pixel math in fp32 (max-shifted log-sum-exp); the loss and weight sums are accumulated in
// double through fixed reduction trees (deterministic, no float atomics).
// Not here: ignore_index, label smoothing, NHWC logits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/softmax_xent_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cuda/workspace.h"

namespace scalebench::cuda {

std::size_t softmax_xent_workspace_bytes(const SoftmaxXentParams& p);

// The loss's sums as the kernels leave them: the loss is loss_sum / weight_sum (0 when the weight is
// 0); bad_index is the first position whose label is out of range (all bits set when none).
struct XentSums {
  double loss_sum;          // Σ w_y · nll
  double weight_sum;        // Σ w_y
  std::uint64_t bad_index;  // first pixel whose label is out of range, ~0 if none
};

// softmax_xent split for a step that does not wait for its loss: queue writes dlogits and the sums
// into `sums` (device memory the caller keeps, or null: the workspace's, as softmax_xent reads them)
// and returns at once, nothing synchronised; finish turns sums copied to the host into the loss and
// throws for a bad label (reading that label from `labels`, which must still hold the batch).
void softmax_xent_queue(const SoftmaxXentParams& p, DType dtype, const void* logits, const std::int32_t* labels,
                        const float* class_weights, void* dlogits, Workspace& ws, XentSums* sums,
                        cudaStream_t stream);
double softmax_xent_finish(const SoftmaxXentParams& p, const XentSums& sums, const std::int32_t* labels,
                           cudaStream_t stream);
// The same with the batch's labels on the host (a captured step's device labels are the next step's
// by the time its sums are read).
double softmax_xent_finish_host(const SoftmaxXentParams& p, const XentSums& sums, const std::int32_t* labels_host);

// Returns the loss (the stream is synchronised: the loss and the label check come back to the host).
// dlogits (same dtype and shape as logits, nullable) receives the gradient of the returned loss.
// class_weights may be null. Takes softmax_xent_workspace_bytes(p) from ws. After a bad-label error
// dlogits holds unspecified values (the CPU version throws before writing).
double softmax_xent(const SoftmaxXentParams& p, DType dtype, const void* logits, const std::int32_t* labels,
                    const float* class_weights, void* dlogits, Workspace& ws, cudaStream_t stream);

// pred [n, hw] = argmax over classes: strict x[c] > best as on the CPU, so ties go to the lower
// class and NaN logits pick the same class there as here.
void argmax_classes(const SoftmaxXentParams& p, DType dtype, const void* logits, std::int32_t* pred,
                    cudaStream_t stream);

}  // namespace scalebench::cuda
