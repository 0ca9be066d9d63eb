// counters.h — process-wide counts of the GPU calls a training step should not make once warm:
// device (and page-locked host) allocations and frees, host synchronisations that drain a stream or
// the device, and cuDNN descriptor creations. Our wrappers count them where they make them
// (device_buffer.cpp, workspace.cpp, pinned.cpp, models/cuda/memory.cpp, kernels/cudnn/descriptors.cpp),
// so a test can take a snapshot after warm-up, run steps and require the difference to be zero
// (tests/gpu/models/test_step_no_alloc.cpp; the trainer's step: tests/gpu/train/
// test_step_sync_free.cpp). A bounded wait for work queued a step earlier (the loss, the input's
// slot, the phase marks read one step late) is counted apart (lagged_waits): the stream stays fed,
// nothing drains. CUDA graph launches (models/cuda/step_graph.cpp) are counted so a test can see
// one replay per step.
// Not here: timing, or calls made inside cuDNN, cuBLAS or NCCL (theirs, not ours). Relaxed atomics:
// counts, not an order of events. Includable by plain C++.
#pragma once

#include <cstdint>

namespace scalebench::cuda {

struct CallCounts {
  std::int64_t allocations = 0;  // cudaMalloc / cudaMallocAsync / cudaMallocHost through our wrappers
  std::int64_t frees = 0;        // cudaFree / cudaFreeAsync / cudaFreeHost of those (cudaFree also waits)
  std::int64_t syncs = 0;        // stream or device synchronisations (synchronous copies included)
  std::int64_t descriptors = 0;  // cuDNN descriptors created
  std::int64_t lagged_waits = 0; // waits on an event recorded a step earlier
  std::int64_t graph_launches = 0;  // cudaGraphLaunch of a captured step
  CallCounts operator-(const CallCounts& o) const {
    return {allocations - o.allocations, frees - o.frees, syncs - o.syncs, descriptors - o.descriptors,
            lagged_waits - o.lagged_waits, graph_launches - o.graph_launches};
  }
};

CallCounts call_counts();  // a snapshot
void count_allocation();
void count_free();
void count_sync();
void count_descriptor();
void count_lagged_wait();
void count_graph_launch();

}  // namespace scalebench::cuda
