// commbench_nccl.h — what commbench (commbench.cpp) needs of the nccl transport, declared without any
// CUDA header: where the benchmarked buffer lives (the host vector itself, or a device copy on the
// rank's GPU) and the nccl job's start (a device group of --ranks GPUs, or one process per GPU with
// the id over a file or MPI). Defined in harness/comm/nccl/commbench.cpp with the CUDA backend, else
// in harness/comm/nonccl/ (each entry there refuses with the reason).
// What it deliberately does not do: time anything or format results (commbench.cpp, commbench_format.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "harness/comm/commbench.h"
#include "harness/comm/communicator.h"

namespace scalebench::comm {

// Where the benchmarked buffer lives. Host transports use `host` itself; the nccl transport a device
// copy (set/get move the first n elements, outside the timed calls).
class BenchBuffer {
 public:
  explicit BenchBuffer(std::vector<float>& host) : host_(host) {}
  virtual ~BenchBuffer() = default;
  virtual float* data() { return host_.data(); }
  virtual void set(std::size_t) {}
  virtual void get(std::size_t) {}
  virtual void zero(std::size_t n) { std::fill(host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(n), 0.0f); }

 protected:
  std::vector<float>& host_;
};

// A device copy of `host` on the GPU of `comm` (an nccl communicator).
std::unique_ptr<BenchBuffer> make_device_bench_buffer(Communicator& comm, std::vector<float>& host);

// Runs commbench on nccl: `group_rank` on every rank of a device group of --ranks GPUs in this
// process (rank 0's report kept), or `job` on this process's rank of a job (one process per GPU).
// Returns false on a job's ranks other than 0 (nothing to write), as `job` does.
using BenchOnRank = std::function<void(Communicator&, CommbenchReport&)>;
using BenchOnJob = std::function<bool(Communicator&, CommbenchReport&)>;
bool run_nccl_bench(const CommbenchOptions& opts, CommbenchReport& rep, const BenchOnRank& group_rank,
                    const BenchOnJob& job);

}  // namespace scalebench::comm
