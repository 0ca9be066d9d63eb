// core.cpp — the nccl transport's Core (state.h): the deadline loop every wait goes
// through, abort bookkeeping, buffer checks, collectives and teardown. Point-to-point queuing and
// the control-plane allgather are in p2p.cpp.
#include <fmt/format.h>

#include <cstdio>
#include <thread>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/state.h"
#include "kernels/cuda/check.h"

namespace scalebench::comm::nccl_detail {

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

Clock::duration to_duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

const char* kCollectiveHint = "a peer rank is dead, stalled or deadlocked, or did not call the same collective";

}  // namespace

void GroupAbort::raise(int r, const std::string& why) {
  std::lock_guard lk(mu);
  if (raised.load(std::memory_order_relaxed)) return;
  rank = r;
  reason = why;
  raised.store(true, std::memory_order_release);
}

std::string GroupAbort::describe() {
  std::lock_guard lk(mu);
  return fmt::format("rank {} of this process's device group failed: {}", rank, reason);
}

Batch::~Batch() {
  if (event == nullptr) return;
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(device);
  (void)cudaEventDestroy(event);
  if (prev >= 0) (void)cudaSetDevice(prev);
}

std::string P2pOp::describe() const {
  return fmt::format("{} of {} bytes {} rank {} (tag {})", is_send ? "send" : "recv", bytes, is_send ? "to" : "from",
                     peer, tag);
}

Core::Core(ncclComm_t comm, int device, int rank, int size, CommOptions opts, std::shared_ptr<GroupAbort> group)
    : comm_(comm), device_(device), rank_(rank), size_(size), opts_(opts), group_(std::move(group)) {
  try {
    cuda::DeviceGuard g(device_);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&op_event_, cudaEventDisableTiming));
    ensure_scratch(4096);
  } catch (...) {
    if (comm_ != nullptr) (void)ncclCommAbort(comm_);
    comm_ = nullptr;
    free_resources();  // ~Core does not run for a constructor that throws
    throw;
  }
}

Core::~Core() {
  if (!released_) release(false);
  free_resources();
}

void Core::free_resources() noexcept {
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(device_);
  if (scratch_ != nullptr && stream_ != nullptr) (void)cudaFreeAsync(scratch_, stream_);
  scratch_ = nullptr;
  if (op_event_ != nullptr) (void)cudaEventDestroy(op_event_);
  op_event_ = nullptr;
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  stream_ = nullptr;
  if (prev >= 0) (void)cudaSetDevice(prev);
}

std::string Core::prefix() const {
  return fmt::format("nccl transport: rank {} of {} (cuda:{} on {})", rank_, size_, device_, hostname());
}

void Core::abort_comm(const std::string& reason) noexcept {
  if (aborted_ || released_) return;
  aborted_ = true;
  try {
    abort_reason_ = reason;
  } catch (...) {
  }
  queued_.clear();
  if (comm_ != nullptr) {
    int prev = -1;
    (void)cudaGetDevice(&prev);
    (void)cudaSetDevice(device_);
    (void)ncclCommAbort(comm_);  // the handle is freed by NCCL: never touched again
    if (prev >= 0) (void)cudaSetDevice(prev);
  }
  comm_ = nullptr;
}

void Core::fail(const std::string& detail) {
  const std::string msg = fmt::format("{}: {}; the communicator was aborted", prefix(), detail);
  if (group_) group_->raise(rank_, msg);  // no-op when this failure echoes another rank's
  abort_comm(msg);
  throw Error(msg);
}

void Core::check_live(const What& what) const {
  if (released_ && !aborted_) throw Error(fmt::format("{}: {} on a communicator that was destroyed", prefix(), what()));
  if (aborted_) throw Error(fmt::format("{}: {} on a communicator aborted earlier: {}", prefix(), what(), abort_reason_));
}

void Core::check_peer(int peer, int tag, const char* what) const {
  SB_REQUIRE(peer >= 0 && peer < size_, "{}: {} to/from rank {}: not a rank of this {}-rank communicator", prefix(), what,
             peer, size_);
  SB_REQUIRE(tag >= 0 && tag <= Communicator::kMaxTag, "{}: {} tag {} out of range [0, {}]", prefix(), what, tag,
             Communicator::kMaxTag);
}

void Core::check_buffer(const void* p, const char* what) const {
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) (void)cudaGetLastError();
  if (e == cudaSuccess && a.type == cudaMemoryTypeManaged) return;
  if (e == cudaSuccess && a.type == cudaMemoryTypeDevice) {
    if (a.device == device_) return;
    throw Error(fmt::format("{}: {}: buffer {} is on cuda:{}, but this rank's communicator drives cuda:{}", prefix(), what,
                            p, a.device, device_));
  }
  throw Error(fmt::format("{}: {}: buffer {} is host memory; the nccl transport moves device memory only "
                          "(allocate it with cudaMalloc on cuda:{})",
                          prefix(), what, p, device_));
}

void Core::poll(const std::function<bool(ncclResult_t)>& done, const What& what, Clock::time_point start,
                const char* hint) {
  const auto deadline = start + to_duration(opts_.timeout_s);
  const auto spin_until = start + to_duration(opts_.spin_s);
  for (;;) {
    ncclResult_t st = ncclSuccess;
    const ncclResult_t rc = ncclCommGetAsyncError(comm_, &st);
    if (rc != ncclSuccess) fail(fmt::format("{} failed: ncclCommGetAsyncError: {}", what(), nccl_error_text(rc)));
    if (st != ncclSuccess && st != ncclInProgress)
      fail(fmt::format("{} failed after {:.3f} s: {}", what(), seconds_since(start), nccl_error_text(st)));
    if (done(st)) return;
    if (group_ && group_->raised.load(std::memory_order_acquire))
      fail(fmt::format("{} stopped after {:.3f} s: {}", what(), seconds_since(start), group_->describe()));
    const auto now = Clock::now();
    if (now > deadline)
      fail(fmt::format("{} did not complete within the {} s timeout (waited {:.1f} s); {}", what(), opts_.timeout_s,
                       seconds_since(start), hint));
    if (now < spin_until) continue;
    // Past the spin: give the core away each poll; nap once the wait is clearly long.
    if (now - spin_until < std::chrono::milliseconds(5))
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void Core::wait_ready(const What& what, Clock::time_point start, const char* hint) {
  poll([](ncclResult_t st) { return st == ncclSuccess; }, what, start, hint);
}

void Core::wait_event(cudaEvent_t ev, const What& what, Clock::time_point start, const char* hint) {
  poll(
      [&](ncclResult_t st) {
        if (st == ncclInProgress) return false;
        const cudaError_t e = cudaEventQuery(ev);
        if (e == cudaSuccess) return true;
        if (e == cudaErrorNotReady) return false;
        (void)cudaGetLastError();
        fail(fmt::format("{} failed on the GPU: {} ({})", what(), cudaGetErrorString(e), cudaGetErrorName(e)));
      },
      what, start, hint);
}

void Core::enqueue(const std::function<ncclResult_t()>& call, const What& what, Clock::time_point start,
                   const char* hint) {
  const ncclResult_t rc = call();
  if (rc == ncclSuccess) return;
  if (rc != ncclInProgress) fail(fmt::format("{} failed: {}", what(), nccl_error_text(rc)));
  wait_ready(what, start, hint);  // non-blocking: the call is still being enqueued
}

void Core::complete(const What& what, Clock::time_point start, const char* hint) {
  cuda(cudaEventRecord(op_event_, stream_), "cudaEventRecord", what);
  wait_event(op_event_, what, start, hint);
}

void Core::cuda(cudaError_t e, const char* call, const What& what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  fail(fmt::format("{}: {} failed: {} ({})", what(), call, cudaGetErrorString(e), cudaGetErrorName(e)));
}

void Core::run_collective(const std::function<ncclResult_t()>& call, const What& what) {
  check_live(what);
  cuda::DeviceGuard g(device_);
  const auto start = Clock::now();
  flush(what, start);  // queued point-to-point operations go first, as posted
  enqueue(call, what, start, kCollectiveHint);
  complete(what, start, kCollectiveHint);
}

void Core::barrier() {
  run_collective([&] { return ncclAllReduce(scratch_, scratch_, 1, ncclFloat32, ncclSum, comm_, stream_); },
                 [] { return std::string("barrier"); });
}

void Core::ensure_scratch(std::size_t bytes) {
  if (bytes <= scratch_bytes_) return;
  const std::size_t want = std::max(bytes, scratch_bytes_ * 2);
  if (scratch_ != nullptr) CUDA_CHECK(cudaFreeAsync(scratch_, stream_));  // stream-ordered: after its last use
  scratch_ = nullptr;
  scratch_bytes_ = 0;
  CUDA_CHECK(cudaMallocAsync(&scratch_, want, stream_));
  scratch_bytes_ = want;
}

bool Core::begin_finalize() noexcept {
  if (aborted_ || released_ || comm_ == nullptr) return false;
  queued_.clear();
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(device_);
  const ncclResult_t rc = ncclCommFinalize(comm_);
  if (prev >= 0) (void)cudaSetDevice(prev);
  if (rc == ncclSuccess || rc == ncclInProgress) return true;
  std::fprintf(stderr, "scalebench: warning: %s: ncclCommFinalize failed: %s; aborting the communicator\n",
               prefix().c_str(), nccl_error_text(rc).c_str());
  abort_comm("ncclCommFinalize failed");
  return false;
}

bool Core::finalize_done(std::string* error) noexcept {
  ncclResult_t st = ncclSuccess;
  const ncclResult_t rc = ncclCommGetAsyncError(comm_, &st);
  if (rc != ncclSuccess) st = rc;
  if (st == ncclInProgress) return false;
  if (st != ncclSuccess) *error = nccl_error_text(st);
  return true;
}

void Core::finish_release() noexcept {
  if (comm_ == nullptr) return;
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(device_);
  (void)ncclCommDestroy(comm_);
  if (prev >= 0) (void)cudaSetDevice(prev);
  comm_ = nullptr;
  released_ = true;
}

void Core::release(bool graceful) noexcept {
  if (released_ || aborted_) {
    released_ = true;
    return;
  }
  if (!graceful) {
    abort_comm("communicator destroyed while an error was unwinding");
    released_ = true;
    return;
  }
  if (!begin_finalize()) {
    released_ = true;
    return;
  }
  const auto start = Clock::now();
  std::string err;
  while (!finalize_done(&err)) {
    if (seconds_since(start) > opts_.timeout_s) {
      err = fmt::format("ncclCommFinalize did not complete within the {} s timeout (a peer rank never finalised)",
                        opts_.timeout_s);
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (!err.empty()) {
    std::fprintf(stderr, "scalebench: warning: %s: %s; aborting the communicator\n", prefix().c_str(), err.c_str());
    abort_comm(err);
    released_ = true;
    return;
  }
  finish_release();
}

}  // namespace scalebench::comm::nccl_detail
