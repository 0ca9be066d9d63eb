// nonfinite_flag.cu — the queued non-finite scan (see nonfinite_flag.h): reset, reduce.h's scan into
// the flag's index, then one thread copies the element found.
#include "kernels/cuda/device_types.cuh"  // first: makes fmt usable under nvcc
#include "kernels/cuda/check.h"
#include "kernels/cuda/nonfinite_flag.h"
#include "kernels/cuda/reduce.h"

namespace scalebench::cuda {
namespace {
__global__ void reset_kernel(NonfiniteFlag* flag) {
  flag->index = ~0ull;
  flag->value = 0;
}
__global__ void value_kernel(const float* x, NonfiniteFlag* flag) {
  if (flag->index != ~0ull) flag->value = x[flag->index];
}
}  // namespace

void scan_nonfinite(std::int64_t count, const float* x, NonfiniteFlag* flag, cudaStream_t stream) {
  reset_kernel<<<1, 1, 0, stream>>>(flag);
  CUDA_CHECK(cudaGetLastError());
  first_nonfinite(count, x, &flag->index, stream);
  value_kernel<<<1, 1, 0, stream>>>(x, flag);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
