// state.h — internal to the nccl transport (harness/comm/nccl/*.cpp only): the per-
// communicator Core (NCCL handle, stream, queued point-to-point operations, the deadline-polling
// loop, abort bookkeeping), the group-wide abort flag, and the NcclComm Communicator over a Core.
// Requests hold the Core by shared_ptr, so a Request outliving its communicator fails cleanly.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/comm/communicator.h"
#include "kernels/cuda/device.h"

namespace scalebench::comm::nccl_detail {

using Clock = std::chrono::steady_clock;

// Shared by the communicators of one NcclDeviceGroup and their dups: the first failing rank
// raises it; every wait of every other rank sees it at its next poll and stops.
struct GroupAbort {
  std::atomic<bool> raised{false};
  std::mutex mu;
  int rank = -1;
  std::string reason;
  void raise(int r, const std::string& why);  // the first call wins
  std::string describe();                     // "rank 2 failed: ..."
};

// One launched NCCL group of point-to-point operations: completes when its event does.
struct Batch {
  cudaEvent_t event = nullptr;
  int device = 0;
  std::size_t ops = 0;
  bool done = false;
  ~Batch();
};

struct P2pOp {
  bool is_send = false;
  void* buf = nullptr;
  std::size_t bytes = 0;
  int peer = 0, tag = 0;
  std::shared_ptr<Batch> batch;  // null while queued
  std::string describe() const;  // "recv of 4096 bytes from rank 1 (tag 5)"
};

using What = std::function<std::string()>;

class Core {
 public:
  // Takes ownership of `comm` (possibly still initialising) and creates the stream and scratch.
  Core(ncclComm_t comm, int device, int rank, int size, CommOptions opts, std::shared_ptr<GroupAbort> group);
  ~Core();  // releases the communicator if still held (aborting it), then frees the stream and scratch
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }
  const CommOptions& opts() const { return opts_; }
  ncclComm_t handle() const { return comm_; }
  const std::shared_ptr<GroupAbort>& group() const { return group_; }
  cudaStream_t stream() const { return stream_; }
  bool aborted() const { return aborted_; }

  // The deadline loop: returns once done(async_state) is true; throws (after aborting) on an NCCL
  // error, a raised group abort, or the deadline. `hint` says who is probably at fault.
  void poll(const std::function<bool(ncclResult_t)>& done, const What& what, Clock::time_point start,
            const char* hint);
  // Polls until the communicator's asynchronous state is ncclSuccess (creation, split, enqueue).
  void wait_ready(const What& what, Clock::time_point start, const char* hint);
  void wait_event(cudaEvent_t ev, const What& what, Clock::time_point start, const char* hint);
  // Runs an NCCL call on a non-blocking communicator: waits out ncclInProgress, throws on errors.
  void enqueue(const std::function<ncclResult_t()>& call, const What& what, Clock::time_point start,
               const char* hint);
  // Records the operation event on the stream and waits for it.
  void complete(const What& what, Clock::time_point start, const char* hint);
  void cuda(cudaError_t e, const char* call, const What& what);  // fail() on a CUDA error

  // Runs one NCCL collective (queued point-to-point first), then waits for it on the GPU.
  void run_collective(const std::function<ncclResult_t()>& call, const What& what);
  void barrier();  // a 1-element allreduce on the scratch buffer
  // Throws unless p is device memory on this rank's device (or managed memory).
  void check_buffer(const void* p, const char* what) const;
  void check_live(const What& what) const;  // throws if the communicator was aborted or released
  void check_peer(int peer, int tag, const char* what) const;

  // Point-to-point.
  std::shared_ptr<P2pOp> queue(bool is_send, void* buf, std::size_t bytes, int peer, int tag);
  void flush(const What& what, Clock::time_point start);  // launches every queued operation as one group
  bool test_op(const std::shared_ptr<P2pOp>& op);
  void wait_op(const std::shared_ptr<P2pOp>& op);
  void abandon_op(const std::shared_ptr<P2pOp>& op) noexcept;

  // The communicator's device scratch, grown (stream-ordered) to at least `bytes`: the control
  // plane's allgather and the round schedules (schedule.cpp) stage data in it.
  void* scratch(std::size_t bytes) {
    ensure_scratch(bytes);
    return scratch_;
  }

  // Control plane over NCCL (small payloads): every rank's byte string.
  std::vector<std::string> allgather(const std::string& mine);

  // Aborts the NCCL communicator (if any) and records why; never throws.
  void abort_comm(const std::string& reason) noexcept;
  // Ends with an Error after aborting; `detail` follows the standard prefix.
  [[noreturn]] void fail(const std::string& detail);
  std::string prefix() const;  // "nccl transport: rank 0 of 2 (cuda:0 on host)"

  // Teardown, step by step so that a device group can finalise all its communicators together.
  bool begin_finalize() noexcept;                         // false: nothing to finalise (aborted/released)
  bool finalize_done(std::string* error) noexcept;        // polled; true once finished (or failed: *error)
  void finish_release() noexcept;                         // ncclCommDestroy after a finalize
  void release(bool graceful) noexcept;                   // the whole sequence for one communicator

 private:
  void ensure_scratch(std::size_t bytes);
  void free_resources() noexcept;

  ncclComm_t comm_ = nullptr;
  int device_, rank_, size_;
  CommOptions opts_;
  std::shared_ptr<GroupAbort> group_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t op_event_ = nullptr;  // collectives and copies
  bool aborted_ = false;
  bool released_ = false;
  std::string abort_reason_;
  std::deque<std::shared_ptr<P2pOp>> queued_;
  void* scratch_ = nullptr;  // device, stream-ordered allocation
  std::size_t scratch_bytes_ = 0;
};

class NcclComm final : public Communicator {
 public:
  // owns_teardown: the destructor finalises the communicator (false for members of a device
  // group, whose NcclDeviceGroup finalises them together).
  NcclComm(std::shared_ptr<Core> core, bool owns_teardown) : core_(std::move(core)), owns_(owns_teardown) {}
  ~NcclComm() override;

  int rank() const override { return core_->rank(); }
  int size() const override { return core_->size(); }
  const char* transport() const override { return "nccl"; }
  Caps caps() const override { return Caps{true, true, true, true}; }
  double timeout_s() const override { return core_->opts().timeout_s; }

  void allreduce_sum(float* buf, std::size_t count) override;
  void broadcast(float* buf, std::size_t count, int root) override;
  void barrier() override;
  std::vector<std::string> allgather(std::string_view mine) override;
  void collective(const CollArgs& a) override;  // collective.cpp
  std::unique_ptr<Communicator> dup() override;

  Request isend(const void* buf, std::size_t bytes, int peer, int tag) override;
  Request irecv(void* buf, std::size_t bytes, int peer, int tag) override;
  [[noreturn]] void abort(const std::string& reason) override;

  const std::shared_ptr<Core>& core() const { return core_; }

 private:
  std::shared_ptr<Core> core_;
  bool owns_;
};

// A fresh non-blocking config.
ncclConfig_t nonblocking_config();

// Creates the communicator of `rank` (device current inside) and waits until it is ready;
// the error names `label` (e.g. "creation (unique id from the mpi bootstrap)").
std::shared_ptr<Core> init_rank(const ncclUniqueId& id, int rank, int size, int device, const CommOptions& opts,
                                const std::string& label);

// "CUDA_VISIBLE_DEVICES=0,1" or "CUDA_VISIBLE_DEVICES unset".
std::string visible_devices_text();

}  // namespace scalebench::comm::nccl_detail
