// nccl_schedule_nccl.cpp — the nccl executor of round schedules (schedule.h): ring and hierarchical
// allreduce on device buffers, over ncclSend/ncclRecv. Everything goes on the communicator's stream
// in schedule order and is waited for once, against the deadline:
//   per round: round_to_wire (cast f32 -> wire -> f32 in place), pack the sends to the wire type,
//   one ncclGroupStart/End of every send and receive, then widen what arrived and add it into the
//   buffer (cuda::cast, cuda::add_inplace) or store it.
// The additions are the host executor's, one float32 rounding each, and the casts round like the
// host's (kernels/cuda/cast.h), so the result is bit-identical to run_schedule_on_host on the same
// inputs (tests/gpu/comm/test_nccl_schedule.cpp). What it deliberately does not do: overlap a round's
// additions with the next round's transfers (one stream; the library pipelines inside each
// transfer), or reduce in 16-bit.
#include <fmt/format.h>

#include <algorithm>

#include "harness/comm/nccl_check.h"
#include "harness/comm/nccl_comm.h"
#include "harness/comm/nccl_state.h"
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

std::size_t align256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

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

  nccl_detail::DeviceGuard g(core.device());
  const auto start = Clock::now();
  core.flush(what, start);  // queued point-to-point operations go first, as posted
  const bool packed = wire != WireType::f32;
  const DType wdt = wire_dtype(wire);
  const std::size_t esize = packed ? 2 : 4;

  // Workspace: f32 landing/widening area for receive-and-add, then the 16-bit area (sends packed,
  // receives landed, round_to_wire staged).
  std::size_t most_rounded = 0;
  for (const Round& r : s.rounds)
    for (const Chunk& c : r.round_to_wire) most_rounded = std::max(most_rounded, c.len);
  const std::size_t recv_elems = s.max_round_recv_elems();
  const std::size_t f32_bytes = align256(recv_elems * sizeof(float));
  const std::size_t half_elems =
      packed ? std::max(s.max_round_send_elems() + recv_elems, most_rounded) : 0;
  void* ws = nullptr;
  try {
    ws = core.scratch(f32_bytes + half_elems * 2 + 256);
  } catch (const Error& e) {
    core.fail(fmt::format("{}: device scratch of {} bytes: {}", what(), f32_bytes + half_elems * 2, e.what()));
  }
  float* wide = static_cast<float*>(ws);
  auto* half = reinterpret_cast<unsigned char*>(static_cast<char*>(ws) + f32_bytes);
  cudaStream_t st = core.stream();

  for (std::size_t ri = 0; ri < s.rounds.size(); ++ri) {
    const Round& r = s.rounds[ri];
    const What round_what = [&] { return fmt::format("{}, round {}", what(), ri); };
    try {
      if (packed)
        for (const Chunk& c : r.round_to_wire) {
          cuda::cast(std::int64_t(c.len), DType::f32, buf + c.off, wdt, half, st);
          cuda::cast(std::int64_t(c.len), wdt, half, DType::f32, buf + c.off, st);
        }
      if (r.transfers.empty()) continue;  // a rounding-only round (the hierarchical leader's)
      // Where each transfer's bytes come from or land (in transfer order).
      std::vector<void*> where(r.transfers.size());
      std::size_t half_at = 0, wide_at = 0;
      for (std::size_t i = 0; i < r.transfers.size(); ++i) {
        const Transfer& t = r.transfers[i];
        float* user = buf + t.range.off;
        if (t.kind == Transfer::Kind::send) {
          if (packed) {
            where[i] = half + half_at * 2;
            cuda::cast(std::int64_t(t.range.len), DType::f32, user, wdt, where[i], st);
            half_at += t.range.len;
          } else {
            where[i] = user;
          }
        } else if (packed) {
          where[i] = half + half_at * 2;
          half_at += t.range.len;
        } else {
          where[i] = t.kind == Transfer::Kind::recv_add ? static_cast<void*>(wide + wide_at) : user;
          wide_at += t.kind == Transfer::Kind::recv_add ? t.range.len : 0;
        }
      }
      NCCL_CHECK(ncclGroupStart());
      ncclResult_t bad = ncclSuccess;
      std::size_t bad_at = 0;
      for (std::size_t i = 0; i < r.transfers.size() && bad == ncclSuccess; ++i) {
        const Transfer& t = r.transfers[i];
        const std::size_t bytes = t.range.len * esize;
        const ncclResult_t rc = t.kind == Transfer::Kind::send
                                    ? ncclSend(where[i], bytes, ncclUint8, t.peer, core.handle(), st)
                                    : ncclRecv(where[i], bytes, ncclUint8, t.peer, core.handle(), st);
        if (rc != ncclSuccess && rc != ncclInProgress) {
          bad = rc;
          bad_at = i;
        }
      }
      const ncclResult_t end = ncclGroupEnd();  // closes the group even after a failed call
      if (bad != ncclSuccess)
        core.fail(fmt::format("{}: queuing the {} of {} elements with rank {} failed: {}", round_what(),
                              kind_name(r.transfers[bad_at].kind), r.transfers[bad_at].range.len,
                              r.transfers[bad_at].peer, nccl_error_text(bad)));
      if (end != ncclSuccess && end != ncclInProgress)
        core.fail(fmt::format("{}: ncclGroupEnd failed: {}", round_what(), nccl_error_text(end)));
      if (end == ncclInProgress) core.wait_ready(round_what, start, kScheduleHint);
      // Stream-ordered after the group: the data has arrived when these run.
      wide_at = 0;
      for (std::size_t i = 0; i < r.transfers.size(); ++i) {
        const Transfer& t = r.transfers[i];
        const auto n = std::int64_t(t.range.len);
        float* user = buf + t.range.off;
        if (t.kind == Transfer::Kind::recv_add) {
          float* addend = static_cast<float*>(where[i]);
          if (packed) {
            addend = wide + wide_at;
            cuda::cast(n, wdt, where[i], DType::f32, addend, st);
            wide_at += t.range.len;
          }
          cuda::add_inplace(n, DType::f32, user, addend, st);
        } else if (t.kind == Transfer::Kind::recv_store && packed) {
          cuda::cast(n, wdt, where[i], DType::f32, user, st);
        }
      }
    } catch (const Error& e) {
      if (core.aborted()) throw;
      core.fail(fmt::format("{}: {}", round_what(), e.what()));
    }
  }
  core.complete(what, start, kScheduleHint);
}

}  // namespace scalebench::comm
