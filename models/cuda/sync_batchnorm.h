// sync_batchnorm.h — synchronised batch norm on the GPU (train --sync-bn, cuda): the CPU layer's
// algorithm (kernels/cpu/batchnorm.cpp) with its loops on the device (kernels/cuda/sync_batchnorm.h)
// and its per-channel sums added over the replicas by the strategy's ReplicaSum on the host (over
// NCCL's allgather on GPUs). Statistics, running statistics and the backward's constants are formed
// on the host in double exactly as the CPU forms them, so a GPU replica group normalises with the
// global batch's statistics like the CPU does. CUDA builds only; BatchNormCuda uses it when the
// Ctx carries a replica sum, cuDNN's batch norm otherwise.
// What it deliberately does not do: communicate itself, or fuse the passes (three sums per step
// cross to the host: synchronised statistics are a collective per layer anyway).
#pragma once

#include <vector>

#include "kernels/common/batchnorm_params.h"
#include "kernels/common/tensor.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/sync_batchnorm.h"
#include "models/replica_sum.h"

namespace scalebench {

class GpuContext;

class SyncBatchNormGpu {
 public:
  // x, y, dy, dx: activations of `s` (dtype and layout); gamma, beta, dgamma, dbeta, running and
  // saved statistics: f32 [c] device tensors.
  struct Tensors {
    Tensor* gamma;
    Tensor* beta;
    Tensor* dgamma;
    Tensor* dbeta;
    Tensor* running_mean;
    Tensor* running_var;
    Tensor* save_mean;
    Tensor* save_invstd;
  };
  void forward_train(GpuContext& g, const BatchNormParams& p, const cuda::BnShape& s, const void* x, void* y,
                     const Tensors& t, ReplicaSum& sum);
  void backward(GpuContext& g, const BatchNormParams& p, const cuda::BnShape& s, const void* x, const void* dy, void* dx,
                const Tensors& t, ReplicaSum& sum);

 private:
  void ensure(int c, int device);
  cuda::DeviceBuffer sums_;    // double [2c + 1]
  cuda::DeviceBuffer consts_;  // float [3c] (centre/scale/shift, or a/b/c0)
};

}  // namespace scalebench
