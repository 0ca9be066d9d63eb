// p2p.cpp — point-to-point on the nccl transport (see comm.h for the semantics):
// isend/irecv queue an operation; the first test/wait (or the next collective) launches every
// queued operation as one ncclGroupStart/End group and records one CUDA event after it, which the
// group's Requests poll. Also the control-plane allgather (small byte strings over NCCL).
// Not here: tag matching (NCCL has none; comm.h), the data collectives (core.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/state.h"
#include "kernels/cuda/check.h"

namespace scalebench::comm::nccl_detail {

namespace {

std::string p2p_hint(const P2pOp& op) {
  return fmt::format("rank {} is dead, stalled or deadlocked, or never posted the matching {} (NCCL matches sends and "
                     "receives between two ranks in posting order, not by tag)",
                     op.peer, op.is_send ? "receive" : "send");
}

}  // namespace

std::shared_ptr<P2pOp> Core::queue(bool is_send, void* buf, std::size_t bytes, int peer, int tag) {
  auto op = std::make_shared<P2pOp>();
  op->is_send = is_send;
  op->buf = buf;
  op->bytes = bytes;
  op->peer = peer;
  op->tag = tag;
  queued_.push_back(op);
  return op;
}

void Core::flush(const What& what, Clock::time_point start) {
  if (queued_.empty()) return;
  const std::size_t n = queued_.size();
  // Errors name the queued operations (the first, and how many more), and what launched them.
  const std::string ops = n == 1 ? queued_.front()->describe()
                                 : fmt::format("{} and {} more queued send/recv operations", queued_.front()->describe(),
                                               n - 1);
  const std::string trigger = what();
  const What launch = [&] { return ops == trigger ? ops : fmt::format("{} (launched by {})", ops, trigger); };
  auto batch = std::make_shared<Batch>();
  batch->device = device_;
  batch->ops = n;
  cuda(cudaEventCreateWithFlags(&batch->event, cudaEventDisableTiming), "cudaEventCreateWithFlags", launch);
  const std::string hint = p2p_hint(*queued_.front());
  NCCL_CHECK(ncclGroupStart());
  ncclResult_t bad = ncclSuccess;
  std::string bad_op;
  for (const auto& op : queued_) {
    const ncclResult_t rc = op->is_send ? ncclSend(op->buf, op->bytes, ncclUint8, op->peer, comm_, stream_)
                                        : ncclRecv(op->buf, op->bytes, ncclUint8, op->peer, comm_, stream_);
    if (rc != ncclSuccess && rc != ncclInProgress) {
      bad = rc;
      bad_op = op->describe();
      break;
    }
  }
  const ncclResult_t end = ncclGroupEnd();  // closes the group even after a failed call
  for (const auto& op : queued_) op->batch = batch;
  queued_.clear();
  if (bad != ncclSuccess) fail(fmt::format("{}: queuing the {} failed: {}", launch(), bad_op, nccl_error_text(bad)));
  if (end != ncclSuccess && end != ncclInProgress) fail(fmt::format("{} failed: {}", launch(), nccl_error_text(end)));
  if (end == ncclInProgress) wait_ready(launch, start, hint.c_str());
  cuda(cudaEventRecord(batch->event, stream_), "cudaEventRecord", launch);
}

bool Core::test_op(const std::shared_ptr<P2pOp>& op) {
  const What what = [&] { return op->describe(); };
  check_live(what);
  cuda::DeviceGuard g(device_);
  if (!op->batch) flush(what, Clock::now());
  if (op->batch->done) return true;
  ncclResult_t st = ncclSuccess;
  const ncclResult_t rc = ncclCommGetAsyncError(comm_, &st);
  if (rc != ncclSuccess) fail(fmt::format("{} failed: ncclCommGetAsyncError: {}", what(), nccl_error_text(rc)));
  if (st != ncclSuccess && st != ncclInProgress) fail(fmt::format("{} failed: {}", what(), nccl_error_text(st)));
  if (group_ && group_->raised.load(std::memory_order_acquire))
    fail(fmt::format("{} stopped: {}", what(), group_->describe()));
  if (st == ncclInProgress) return false;
  const cudaError_t e = cudaEventQuery(op->batch->event);
  if (e == cudaErrorNotReady) return false;
  cuda(e, "cudaEventQuery", what);
  op->batch->done = true;
  return true;
}

void Core::wait_op(const std::shared_ptr<P2pOp>& op) {
  const What what = [&] { return op->describe(); };
  check_live(what);
  cuda::DeviceGuard g(device_);
  const auto start = Clock::now();
  if (!op->batch) flush(what, start);
  if (op->batch->done) return;
  const std::string hint = p2p_hint(*op);
  wait_event(op->batch->event, what, start, hint.c_str());
  op->batch->done = true;
}

void Core::abandon_op(const std::shared_ptr<P2pOp>& op) noexcept {
  if (!op->batch) {  // never launched: withdraw it
    queued_.erase(std::remove(queued_.begin(), queued_.end(), op), queued_.end());
    return;
  }
  if (op->batch->done || aborted_ || released_) return;
  int prev = -1;
  (void)cudaGetDevice(&prev);
  (void)cudaSetDevice(device_);
  const bool finished = cudaEventQuery(op->batch->event) == cudaSuccess;
  if (prev >= 0) (void)cudaSetDevice(prev);
  if (finished) {
    op->batch->done = true;
    return;
  }
  // A launched NCCL operation cannot be withdrawn; its buffer is about to go away with the
  // unwinding caller, so stop the GPU from touching it.
  try {
    abort_comm(fmt::format("a {} still in flight was abandoned (an error is unwinding past it)", op->describe()));
  } catch (...) {
    abort_comm("a send/recv still in flight was abandoned");
  }
}

// Two NCCL allgathers through the device scratch buffer: first every rank's length, then every
// rank's bytes padded to the longest. Host copies use pageable memory: an upload returns once staged
// (it never waits on the stream), and each download is issued only after the allgather's event
// completed within the deadline, so it waits for nothing but itself. (No pinned memory: freeing it
// would synchronise the device, which in a device group can wait on a peer thread's collective.)
std::vector<std::string> Core::allgather(const std::string& mine) {
  const What what = [&] { return fmt::format("allgather of {} bytes", mine.size()); };
  const char* hint = "a peer rank is dead, stalled or deadlocked, or did not call the same collective";
  check_live(what);
  cuda::DeviceGuard g(device_);
  const auto start = Clock::now();
  flush(what, start);
  const auto n = static_cast<std::size_t>(size_), me = static_cast<std::size_t>(rank_);
  auto gather = [&](const void* part, std::size_t bytes, ncclDataType_t type, std::size_t count, void* host_all) {
    try {
      ensure_scratch(n * bytes);
    } catch (const Error& e) {
      fail(fmt::format("{}: {}", what(), e.what()));
    }
    auto* dev = static_cast<char*>(scratch_);
    cuda(cudaMemcpyAsync(dev + me * bytes, part, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync", what);
    enqueue([&] { return ncclAllGather(dev + me * bytes, dev, count, type, comm_, stream_); }, what, start, hint);
    complete(what, start, hint);
    cuda(cudaMemcpyAsync(host_all, dev, n * bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync", what);
    cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", what);
  };
  const std::uint64_t len = mine.size();
  std::vector<std::uint64_t> lens(n);
  gather(&len, sizeof(len), ncclUint64, 1, lens.data());
  const std::size_t longest = *std::max_element(lens.begin(), lens.end());
  std::vector<std::string> out(n);
  if (longest == 0) return out;
  std::string padded(mine);
  padded.resize(longest, '\0');
  std::vector<char> all(n * longest);
  gather(padded.data(), longest, ncclUint8, longest, all.data());
  for (std::size_t r = 0; r < n; ++r) out[r].assign(all.data() + r * longest, static_cast<std::size_t>(lens[r]));
  return out;
}

}  // namespace scalebench::comm::nccl_detail
