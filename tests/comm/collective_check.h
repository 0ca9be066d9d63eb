// collective_check.h — the typed collectives (Communicator::collective) against a reference written
// out here element by element (not collective.h's count_wrong, which commbench uses), for every
// collective, type and in/out of place, on whatever communicator the test hands in (threads in
// test_collectives.cpp, mpi in mpi_test_comm.cpp). Small counts, odd on purpose (uneven slices).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "harness/comm/collective.h"
#include "harness/comm/communicator.h"

namespace scalebench::comm::collcheck {

// Rank r's element i: a small integer, exact in every type, sums exact too.
inline float cc_value(std::size_t i, int r) { return float((i * 5 + std::size_t(r) * 3) % 7 + 1); }

inline float cc_expect(Coll c, std::size_t i, std::size_t count, int rank, int n, int root) {
  float s = 0;
  switch (c) {
    case Coll::allreduce:
    case Coll::reduce:
      for (int r = 0; r < n; ++r) s += cc_value(i, r);
      return s;
    case Coll::reduce_scatter:
      for (int r = 0; r < n; ++r) s += cc_value(std::size_t(rank) * count + i, r);
      return s;
    case Coll::allgather: return cc_value(i % count, int(i / count));
    case Coll::broadcast: return cc_value(i, root);
    case Coll::alltoall: return cc_value(std::size_t(rank) * count + i % count, int(i / count));
    case Coll::sendrecv: return cc_value(i, (rank + n - 1) % n);
  }
  return -1;
}

// Runs every collective x type x {out of place, in place} x count on `comm` and checks this rank's result.
inline void check_every_collective(Communicator& comm, std::vector<std::size_t> counts = {1, 5, 0}) {
  const int n = comm.size(), me = comm.rank();
  for (const auto& ci : kCollectives)
    for (const auto& ct : kCommTypes)
      for (bool in_place : {false, true})
        for (std::size_t count : counts) {
          const std::size_t es = elem_size(ct.t), se = send_elems(ci.coll, count, n), re = recv_elems(ci.coll, count, n);
          const int root = n - 1;  // not 0, so a root mix-up shows
          std::vector<char> a(std::max(se, re) * es + 8, 0x7f), b(re * es + 8, 0x7f);
          std::size_t send_off = 0, recv_off = 0;
          if (in_place && ci.shape == CollShape::gather) send_off = std::size_t(me) * count;
          if (in_place && ci.shape == CollShape::scatter) recv_off = std::size_t(me) * count;
          CollArgs args;
          args.coll = ci.coll;
          args.type = ct.t;
          args.count = count;
          args.root = root;
          args.send = a.data() + send_off * es;
          args.recv = in_place ? a.data() + recv_off * es : b.data();
          for (std::size_t i = 0; i < se; ++i) store_elem(a.data() + send_off * es, i, ct.t, cc_value(i, me));
          comm.collective(args);
          if (ci.coll == Coll::reduce && me != root) continue;  // nothing promised off the root
          std::size_t bad = 0;
          for (std::size_t i = 0; i < re; ++i)
            bad += load_elem(args.recv, i, ct.t) != cc_expect(ci.coll, i, count, me, n, root);
          EXPECT_EQ(bad, 0u) << ci.name << " " << ct.name << (in_place ? " in place" : " out of place") << " count "
                             << count << " on rank " << me << " of " << n;
        }
}

}  // namespace scalebench::comm::collcheck
