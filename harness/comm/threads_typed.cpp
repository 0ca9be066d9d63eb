// threads_typed.cpp — the threads transport's typed collectives (Communicator::collective,
// collective.h): every rank publishes its send and receive buffers, all meet, and each rank then
// reads the others' buffers directly. Reductions split the work by slices as allreduce_sum does
// (each rank sums its slice over all ranks in rank order, 16-bit types in float, rounded once).
// In place, alltoall and sendrecv stage what they read in a private copy before anyone writes
// (the one place a rank's input is overwritten while a peer may still read it); nothing else copies
// through a buffer of its own.
// It deliberately does not check the caller's buffer sizes beyond the shapes (collective.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "harness/comm/collective.h"
#include "harness/comm/threads_state.h"
#include "kernels/common/check.h"

namespace scalebench::comm::threads_detail {

namespace {

std::size_t slice_begin(std::size_t count, int n, int r) {
  return count * static_cast<std::size_t>(r) / static_cast<std::size_t>(n);
}

// dst[i] = sum over r of srcs[r][off + i], i < len: in rank order, in float, one rounding to `t`.
void reduce_block(void* dst, const std::vector<const void*>& srcs, std::size_t off, std::size_t len, DType t) {
  constexpr std::size_t kBlock = 2048;
  float acc[kBlock];
  for (std::size_t b = 0; b < len; b += kBlock) {
    const std::size_t m = std::min(kBlock, len - b);
    if (t == DType::f32) {
      std::memcpy(acc, static_cast<const float*>(srcs[0]) + off + b, m * sizeof(float));
      for (std::size_t r = 1; r < srcs.size(); ++r) {
        const float* s = static_cast<const float*>(srcs[r]) + off + b;
        for (std::size_t i = 0; i < m; ++i) acc[i] += s[i];
      }
      std::memcpy(static_cast<float*>(dst) + b, acc, m * sizeof(float));
      continue;
    }
    for (std::size_t i = 0; i < m; ++i) acc[i] = load_elem(srcs[0], off + b + i, t);
    for (std::size_t r = 1; r < srcs.size(); ++r)
      for (std::size_t i = 0; i < m; ++i) acc[i] += load_elem(srcs[r], off + b + i, t);
    for (std::size_t i = 0; i < m; ++i) store_elem(dst, b + i, t, acc[i]);
  }
}

}  // namespace

void ThreadsComm::collective(const CollArgs& a) {
  const int n = w_->n;
  const CollInfo& ci = coll_info(a.coll);
  check_args(a, rank_, n, "threads");
  const std::string what = fmt::format("{} ({})", ci.name, comm_type_name(a.type));
  CollEntry e{what, a.count, ci.rooted ? a.root : -1, a.recv};
  e.send = a.send;
  enter(std::move(e));
  sync(what.c_str());
  validate();
  std::vector<const void*> sends(static_cast<std::size_t>(n));
  std::vector<void*> recvs(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    sends[static_cast<std::size_t>(r)] = ctx_->entries[static_cast<std::size_t>(r)].send;
    recvs[static_cast<std::size_t>(r)] = ctx_->entries[static_cast<std::size_t>(r)].ptr;
  }
  const std::size_t es = elem_size(a.type), count = a.count, bytes = count * es;
  auto at = [es](const void* p, std::size_t elems) { return static_cast<const char*>(p) + elems * es; };
  auto at_w = [es](void* p, std::size_t elems) { return static_cast<char*>(p) + elems * es; };
  const bool in_place = is_in_place(a, rank_, n);
  std::vector<char> staged;
  if (count > 0) switch (a.coll) {
      case Coll::allreduce: {
        const std::size_t lo = slice_begin(count, n, rank_), hi = slice_begin(count, n, rank_ + 1);
        reduce_block(at_w(a.recv, lo), sends, lo, hi - lo, a.type);
        sync(what.c_str());
        for (int r = 0; r < n; ++r) {
          const std::size_t b = slice_begin(count, n, r), z = slice_begin(count, n, r + 1);
          if (r != rank_ && z > b) std::memcpy(at_w(a.recv, b), at(recvs[static_cast<std::size_t>(r)], b), (z - b) * es);
        }
        break;
      }
      case Coll::reduce: {
        const std::size_t lo = slice_begin(count, n, rank_), hi = slice_begin(count, n, rank_ + 1);
        reduce_block(at_w(recvs[static_cast<std::size_t>(a.root)], lo), sends, lo, hi - lo, a.type);
        break;
      }
      case Coll::reduce_scatter:
        reduce_block(a.recv, sends, std::size_t(rank_) * count, count, a.type);
        break;
      case Coll::allgather:
        for (int r = 0; r < n; ++r) {
          char* dst = at_w(a.recv, std::size_t(r) * count);
          if (dst != sends[static_cast<std::size_t>(r)]) std::memcpy(dst, sends[static_cast<std::size_t>(r)], bytes);
        }
        break;
      case Coll::broadcast:
        if (a.recv != sends[static_cast<std::size_t>(a.root)])
          std::memcpy(a.recv, sends[static_cast<std::size_t>(a.root)], bytes);
        break;
      case Coll::alltoall:
      case Coll::sendrecv: {
        const bool all = a.coll == Coll::alltoall;
        const std::size_t total = all ? bytes * std::size_t(n) : bytes;
        char* dst = static_cast<char*>(a.recv);
        if (in_place) staged.resize(total), dst = staged.data();
        if (all) {
          for (int r = 0; r < n; ++r)
            std::memcpy(dst + std::size_t(r) * bytes, at(sends[static_cast<std::size_t>(r)], std::size_t(rank_) * count), bytes);
        } else {
          std::memcpy(dst, sends[static_cast<std::size_t>((rank_ + n - 1) % n)], bytes);
        }
        // Every rank has read its peers' inputs before any input is overwritten. Unconditional:
        // whether a rank runs in place is not compared across ranks, and the syncs must pair up.
        sync(what.c_str());
        if (in_place) std::memcpy(a.recv, staged.data(), total);
        break;
      }
    }
  sync(what.c_str());  // nobody returns (and reuses its buffers) while another rank still reads them
}

}  // namespace scalebench::comm::threads_detail
