// nonfinite_flag.h — the gradient's non-finite scan queued without a host wait: the first non-finite
// element's index and value written into a device NonfiniteFlag, for an asynchronous copy back
// (models/cuda/late_reads.cpp reads it one step late). The same scan as reduce.h's first_nonfinite.
// Not here: the copy back, events, or what a non-finite step does (the trainer decides).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace scalebench::cuda {

struct NonfiniteFlag {
  unsigned long long index = ~0ull;  // ~0: every element finite
  float value = 0;                   // x[index] when index is set
};

// Resets *flag, then sets it to x's first non-finite element, if any; flag is device memory.
void scan_nonfinite(std::int64_t count, const float* x, NonfiniteFlag* flag, cudaStream_t stream);

}  // namespace scalebench::cuda
