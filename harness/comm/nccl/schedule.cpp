// schedule.cpp — the nccl executor of round schedules (schedule.h): ring and hierarchical
// allreduce on device buffers, over ncclSend/ncclRecv. It binds the staged executor
// (schedule_executor.h, which holds the sequencing and the buffer layout and is tested on CPUs) to
// the GPU: casts and additions are CUDA kernels (kernels/cuda/cast.h, add.h), a round's transfers are
// one ncclGroupStart/End, and everything goes on the communicator's stream in schedule order, waited
// for once against the deadline. The additions are the host executor's, one float32 rounding each,
// and the casts round like the host's, so the result is bit-identical to run_schedule_on_host on the
// same inputs (tests/gpu/comm/test_nccl_schedule.cpp). What it deliberately does not do: overlap a
// round's additions with the next round's transfers (one stream; the library pipelines inside each
// transfer), or reduce in 16-bit.
#include <fmt/format.h>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/comm.h"
#include "harness/comm/nccl/state.h"
#include "harness/comm/schedule_executor.h"
#include "kernels/common/check.h"
#include "kernels/cuda/add.h"
#include "kernels/cuda/cast.h"

namespace scalebench::comm {

using nccl_detail::Clock;
using nccl_detail::Core;
using nccl_detail::What;

namespace {

const char* kScheduleHint =
    "a peer rank is dead, stalled or deadlocked, or runs a different schedule (every rank must call the same "
    "allreduce with the same count)";

DType wire_dtype(WireType w) {
  switch (w) {
    case WireType::f32: return DType::f32;
    case WireType::bf16: return DType::bf16;
    case WireType::f16: return DType::f16;
  }
  return DType::f32;
}

const char* kind_name(Transfer::Kind k) {
  switch (k) {
    case Transfer::Kind::send: return "send";
    case Transfer::Kind::recv_add: return "receive-and-add";
    case Transfer::Kind::recv_store: return "receive";
  }
  return "?";
}

// The staged executor's operations on one NCCL communicator's device and stream.
class GpuOps {
 public:
  GpuOps(Core& core, WireType wire, What what, Clock::time_point start)
      : core_(core), wdt_(wire_dtype(wire)), what_(std::move(what)), start_(start), st_(core.stream()) {}

  void* workspace(std::size_t bytes) {
    try {
      return core_.scratch(bytes);
    } catch (const Error& e) {
      core_.fail(fmt::format("{}: device scratch of {} bytes: {}", what_(), bytes, e.what()));
    }
  }
  void pack(std::size_t n, const float* src, void* wire) {
    cuda::cast(std::int64_t(n), DType::f32, src, wdt_, wire, st_);
  }
  void widen(std::size_t n, const void* wire, float* dst) {
    cuda::cast(std::int64_t(n), wdt_, wire, DType::f32, dst, st_);
  }
  void add(std::size_t n, float* dst, const float* src) {
    cuda::add_inplace(std::int64_t(n), DType::f32, dst, src, st_);
  }

  // One NCCL group of every transfer; the kernels queued after it on the stream see the data.
  void exchange(std::size_t round, const std::vector<Transfer>& ts, const std::vector<void*>& where,
                std::size_t elem_bytes) {
    NCCL_CHECK(ncclGroupStart());
    ncclResult_t bad = ncclSuccess;
    std::size_t bad_at = 0;
    for (std::size_t i = 0; i < ts.size() && bad == ncclSuccess; ++i) {
      const Transfer& t = ts[i];
      const std::size_t bytes = t.range.len * elem_bytes;
      const ncclResult_t rc = t.kind == Transfer::Kind::send
                                  ? ncclSend(where[i], bytes, ncclUint8, t.peer, core_.handle(), st_)
                                  : ncclRecv(where[i], bytes, ncclUint8, t.peer, core_.handle(), st_);
      if (rc != ncclSuccess && rc != ncclInProgress) {
        bad = rc;
        bad_at = i;
      }
    }
    const ncclResult_t end = ncclGroupEnd();  // closes the group even after a failed call
    const What round_what = [&] { return fmt::format("{}, round {}", what_(), round); };
    if (bad != ncclSuccess)
      core_.fail(fmt::format("{}: queuing the {} of {} elements with rank {} failed: {}", round_what(),
                             kind_name(ts[bad_at].kind), ts[bad_at].range.len, ts[bad_at].peer,
                             nccl_error_text(bad)));
    if (end != ncclSuccess && end != ncclInProgress)
      core_.fail(fmt::format("{}: ncclGroupEnd failed: {}", round_what(), nccl_error_text(end)));
    if (end == ncclInProgress) core_.wait_ready(round_what, start_, kScheduleHint);
  }

  // A CUDA or NCCL error inside a round aborts the communicator and names the round.
  void run_round(std::size_t round, const std::function<void()>& body) {
    try {
      body();
    } catch (const Error& e) {
      if (core_.aborted()) throw;
      core_.fail(fmt::format("{}, round {}: {}", what_(), round, e.what()));
    }
  }

 private:
  Core& core_;
  DType wdt_;
  What what_;
  Clock::time_point start_;
  cudaStream_t st_;
};

}  // namespace

void nccl_run_schedule(Communicator& comm, const Schedule& s, float* buf, WireType wire) {
  auto* nc = dynamic_cast<nccl_detail::NcclComm*>(&comm);
  SB_CHECK(nc != nullptr, "nccl_run_schedule: the {} transport is not nccl", comm.transport());
  Core& core = *nc->core();
  const What what = [&] {
    return fmt::format("allreduce schedule of {} rounds ({} on the wire)", s.rounds.size(), to_string(wire));
  };
  core.check_live(what);
  if (s.rounds.empty()) return;  // one rank, or nothing to reduce: the same on every rank
  core.check_buffer(buf, "allreduce schedule");
  for (const Round& r : s.rounds)
    for (const Transfer& t : r.transfers) core.check_peer(t.peer, 0, kind_name(t.kind));

  cuda::DeviceGuard g(core.device());
  const auto start = Clock::now();
  core.flush(what, start);  // queued point-to-point operations go first, as posted
  GpuOps ops(core, wire, what, start);
  run_schedule_staged(s, buf, wire, ops);
  core.complete(what, start, kScheduleHint);
}

}  // namespace scalebench::comm
