// collective.cpp — the nccl transport's typed collectives (Communicator::collective, collective.h):
// ncclAllReduce, ncclAllGather, ncclReduceScatter, ncclBroadcast and ncclReduce as they are, and
// alltoall and sendrecv as one group of ncclSend/ncclRecv (every peer; the ring shift). Each call is
// host-synchronous like the rest of the transport (Core::run_collective: queued point-to-point
// first, then the call, then the wait against the deadline).
// In place alltoall/sendrecv: a rank's send and receive blocks would alias inside one group (NCCL
// orders nothing between them), so the input is first copied to the communicator's device scratch
// on the same stream (part of the call, and so of commbench's time); the others are in place in NCCL.
// It deliberately does not reduce 16-bit types in float on the host: NCCL reduces on the GPU.
#include <fmt/format.h>

#include "harness/comm/collective.h"
#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/state.h"

namespace scalebench::comm::nccl_detail {

namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::f32: return ncclFloat32;
    case DType::bf16: return ncclBfloat16;
    case DType::f16: return ncclFloat16;
  }
  return ncclFloat32;
}

// One group: ncclGroupStart, the sends and receives, ncclGroupEnd; the first failing call's code
// (the group is still closed, so NCCL is not left inside a group).
template <class Body>
ncclResult_t grouped(Body&& body) {
  ncclResult_t rc = ncclGroupStart();
  if (rc != ncclSuccess) return rc;
  rc = body();
  const ncclResult_t end = ncclGroupEnd();
  return rc != ncclSuccess ? rc : end;
}

}  // namespace

void NcclComm::collective(const CollArgs& a) {
  const CollInfo& ci = coll_info(a.coll);
  const What what = [&] { return fmt::format("{} of {} x {}", ci.name, a.count, comm_type_name(a.type)); };
  check_args(a, rank(), size(), "nccl");
  core_->check_live(what);
  if (a.count == 0) return;  // every rank passes the same count, so every rank skips
  core_->check_buffer(a.send, ci.name.data());
  core_->check_buffer(a.recv, ci.name.data());
  Core& c = *core_;
  const ncclDataType_t t = nccl_type(a.type);
  const int n = size(), me = rank();
  const std::size_t block = a.count * elem_size(a.type);
  switch (a.coll) {
    case Coll::allreduce:
      return c.run_collective([&] { return ncclAllReduce(a.send, a.recv, a.count, t, ncclSum, c.handle(), c.stream()); }, what);
    case Coll::allgather:
      return c.run_collective([&] { return ncclAllGather(a.send, a.recv, a.count, t, c.handle(), c.stream()); }, what);
    case Coll::reduce_scatter:
      return c.run_collective(
          [&] { return ncclReduceScatter(a.send, a.recv, a.count, t, ncclSum, c.handle(), c.stream()); }, what);
    case Coll::broadcast:
      return c.run_collective(
          [&] { return ncclBroadcast(a.send, a.recv, a.count, t, a.root, c.handle(), c.stream()); }, what);
    case Coll::reduce:
      return c.run_collective(
          [&] { return ncclReduce(a.send, a.recv, a.count, t, ncclSum, a.root, c.handle(), c.stream()); }, what);
    case Coll::alltoall:
    case Coll::sendrecv: {
      const bool all = a.coll == Coll::alltoall;
      const std::size_t total = all ? block * std::size_t(n) : block;
      const char* src = static_cast<const char*>(a.send);
      if (is_in_place(a, me, n)) {
        void* copy = c.scratch(total);
        c.cuda(cudaMemcpyAsync(copy, a.send, total, cudaMemcpyDeviceToDevice, c.stream()), "cudaMemcpyAsync", what);
        src = static_cast<const char*>(copy);
      }
      char* dst = static_cast<char*>(a.recv);
      return c.run_collective(
          [&] {
            return grouped([&]() -> ncclResult_t {
              if (!all) {
                const ncclResult_t rc = ncclSend(src, a.count, t, (me + 1) % n, c.handle(), c.stream());
                return rc != ncclSuccess ? rc : ncclRecv(dst, a.count, t, (me + n - 1) % n, c.handle(), c.stream());
              }
              for (int p = 0; p < n; ++p) {
                ncclResult_t rc = ncclSend(src + std::size_t(p) * block, a.count, t, p, c.handle(), c.stream());
                if (rc == ncclSuccess) rc = ncclRecv(dst + std::size_t(p) * block, a.count, t, p, c.handle(), c.stream());
                if (rc != ncclSuccess) return rc;
              }
              return ncclSuccess;
            });
          },
          what);
    }
  }
}

}  // namespace scalebench::comm::nccl_detail
