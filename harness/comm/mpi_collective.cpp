// mpi_collective.cpp — the mpi transport's typed collectives (mpi_collective.h): one MPI collective
// each (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Reduce, MPI_Alltoall)
// and MPI_Sendrecv(_replace) for the ring shift, MPI_IN_PLACE where the call is in place.
// MPI has no 16-bit float types: bfloat16/float16 data moves as MPI_UINT16_T, and their reductions
// convert to float, reduce as MPI_FLOAT and round once (collective.h) — the conversions are part of
// the call and so of commbench's time. Broadcast out of place copies send to receive on the root
// first (MPI_Bcast is in place only); reduce_scatter in place moves the result from the block MPI
// writes (the first) to this rank's block (NCCL's convention).
// It deliberately does not split counts above INT_MAX (an Error says so).
#include "harness/comm/mpi_collective.h"

#include <climits>
#include <cstring>
#include <vector>

#include "kernels/common/check.h"

namespace scalebench::comm {

namespace {

int as_count(std::size_t n, std::string_view name) {
  SB_REQUIRE(n <= static_cast<std::size_t>(INT_MAX), "mpi transport: {} of {} elements exceeds MPI's int count", name, n);
  return static_cast<int>(n);
}

// The ring shift's tag: the largest, above the algorithms' (Communicator::kAlgoTagBase and up use
// lower ones), so it never meets a pending message of theirs.
constexpr int kShiftTag = Communicator::kMaxTag;

void reduce_f32(MPI_Comm comm, int rank, int n, const CollArgs& a, const void* send, void* recv, bool in_place) {
  const int cnt = as_count(a.count, coll_info(a.coll).name);
  switch (a.coll) {
    case Coll::allreduce:
      MPI_CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, cnt, MPI_FLOAT, MPI_SUM, comm));
      return;
    case Coll::reduce:
      MPI_CHECK(MPI_Reduce(in_place && rank == a.root ? MPI_IN_PLACE : send, recv, cnt, MPI_FLOAT, MPI_SUM, a.root, comm));
      return;
    case Coll::reduce_scatter:
      as_count(a.count * std::size_t(n), "reduce_scatter");
      if (!in_place) {
        MPI_CHECK(MPI_Reduce_scatter_block(send, recv, cnt, MPI_FLOAT, MPI_SUM, comm));
        return;
      }
      // In place: MPI reads the whole buffer and writes this rank's result to its first block.
      MPI_CHECK(MPI_Reduce_scatter_block(MPI_IN_PLACE, const_cast<void*>(send), cnt, MPI_FLOAT, MPI_SUM, comm));
      if (rank != 0) std::memmove(recv, send, a.count * sizeof(float));
      return;
    default: throw Error("mpi_collective: not a reduction");
  }
}

}  // namespace

void mpi_collective(MPI_Comm comm, int rank, int n, const CollArgs& a) {
  const CollInfo& ci = coll_info(a.coll);
  if (a.count == 0) return;  // every rank passes the same count
  const bool in_place = is_in_place(a, rank, n);
  const std::size_t es = elem_size(a.type);
  const MPI_Datatype moved = a.type == DType::f32 ? MPI_FLOAT : MPI_UINT16_T;
  const int cnt = as_count(a.count, ci.name);
  if (ci.reduces) {
    if (a.type == DType::f32) return reduce_f32(comm, rank, n, a, a.send, a.recv, in_place);
    // 16-bit: through float copies (never in place there), one rounding back.
    const std::size_t se = send_elems(a.coll, a.count, n), re = recv_elems(a.coll, a.count, n);
    // Reused per thread (one call at a time per thread, communicator.h): no allocation, no page
    // faults inside the timed call after the first of a size.
    thread_local std::vector<float> in, out;
    if (in.size() < se) in.resize(se);
    if (out.size() < re) out.resize(re);
    for (std::size_t i = 0; i < se; ++i) in[i] = load_elem(a.send, i, a.type);
    reduce_f32(comm, rank, n, a, in.data(), out.data(), false);
    if (a.coll != Coll::reduce || rank == a.root)
      for (std::size_t i = 0; i < re; ++i) store_elem(a.recv, i, a.type, out[i]);
    return;
  }
  switch (a.coll) {
    case Coll::allgather:
      as_count(a.count * std::size_t(n), ci.name);
      MPI_CHECK(MPI_Allgather(in_place ? MPI_IN_PLACE : a.send, cnt, moved, a.recv, cnt, moved, comm));
      return;
    case Coll::alltoall:
      as_count(a.count * std::size_t(n), ci.name);
      MPI_CHECK(MPI_Alltoall(in_place ? MPI_IN_PLACE : a.send, cnt, moved, a.recv, cnt, moved, comm));
      return;
    case Coll::broadcast:
      if (rank == a.root && !in_place) std::memcpy(a.recv, a.send, a.count * es);
      MPI_CHECK(MPI_Bcast(a.recv, cnt, moved, a.root, comm));
      return;
    case Coll::sendrecv: {
      const int to = (rank + 1) % n, from = (rank + n - 1) % n;
      if (in_place)
        MPI_CHECK(MPI_Sendrecv_replace(a.recv, cnt, moved, to, kShiftTag, from, kShiftTag, comm, MPI_STATUS_IGNORE));
      else
        MPI_CHECK(MPI_Sendrecv(a.send, cnt, moved, to, kShiftTag, a.recv, cnt, moved, from, kShiftTag, comm,
                               MPI_STATUS_IGNORE));
      return;
    }
    default: throw Error("mpi_collective: unhandled collective");
  }
}

}  // namespace scalebench::comm
