// commbench_coll.cpp — commbench's --coll tables (see commbench.h): for each collective and type,
// each size of --sizes, one verification call and the timed calls out of place, then in place,
// through the transport's typed collective (Communicator::collective).
// Sizes as nccl-tests reads them: the size is a rank's largest buffer; allgather, reduce_scatter and
// alltoall split it into n blocks of `count` elements, rounded down to 16 bytes a block, and report
// the size that results. algbw = size/time for every collective; busbw = algbw * the collective's
// factor (collectives.def). In place follows NCCL's convention (collective.h).
// Timed calls run on zeros (a sum of zeros costs a float add like any other normal value, and in
// place results would otherwise grow call after call; 16-bit sums would overflow).
// It deliberately does not run several roots (root 0 only), reduction operators other than sum, or
// the allreduce algorithms (commbench.cpp's table).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ostream>

#include "harness/comm/commbench_detail.h"

namespace scalebench::comm::bench_detail {

namespace {

// NCCL's count for a requested size of `bytes`: the elements of a rank block.
std::size_t block_count(Coll c, std::size_t bytes, DType t, int n) {
  const std::size_t es = elem_size(t), elems = bytes / es;
  if (coll_info(c).shape == CollShape::same) return elems;
  const std::size_t align = 16 / es;
  return elems / std::size_t(n) / align * align;
}

struct Buffers {
  std::vector<float> send_host, recv_host;  // float units; the typed data lives in their bytes
  std::unique_ptr<BenchBuffer> send, recv;
  static std::size_t floats(std::size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); }
};

// One half of a line: verification, warm-up, timed calls.
CollRow run_one(Communicator& comm, const CommbenchOptions& o, Buffers& b, Coll c, DType t, std::size_t count,
                bool in_place) {
  const int n = comm.size(), me = comm.rank();
  const CollInfo& ci = coll_info(c);
  const std::size_t es = elem_size(t), sb = send_elems(c, count, n) * es, rb = recv_elems(c, count, n) * es;
  CollArgs a;
  a.coll = c;
  a.count = count;
  a.type = t;
  a.root = 0;  // broadcast and reduce: root 0 (nccl-tests' -r 0); the others ignore it
  // Where send and receive lie: two buffers, or one (NCCL's in-place offsets, collective.h).
  char* send_dev = reinterpret_cast<char*>(b.send->data());
  char* recv_dev = reinterpret_cast<char*>(b.recv->data());
  char* recv_host = reinterpret_cast<char*>(b.recv_host.data());
  char* send_host = reinterpret_cast<char*>(b.send_host.data());
  std::size_t send_off = 0, recv_off = 0;  // within the one buffer, in place
  if (in_place) {
    if (ci.shape == CollShape::gather) send_off = std::size_t(me) * count * es;
    if (ci.shape == CollShape::scatter) recv_off = std::size_t(me) * count * es;
    a.send = recv_dev + send_off;
    a.recv = recv_dev + recv_off;
    fill_input(c, t, recv_host + send_off, count, me, n);
    b.recv->set(Buffers::floats(std::max(sb + send_off, rb + recv_off)));
  } else {
    a.send = send_dev;
    a.recv = recv_dev;
    fill_input(c, t, send_host, count, me, n);
    b.send->set(Buffers::floats(sb));
  }
  comm.collective(a);
  b.recv->get(Buffers::floats(rb + recv_off));
  const std::size_t wrong = count_wrong(c, t, recv_host + recv_off, count, me, n, a.root);

  b.send->zero(Buffers::floats(sb));
  b.recv->zero(Buffers::floats(std::max(sb + send_off, rb + recv_off)));
  for (int w = 0; w < o.warmup; ++w) busy_gap(o.gap_ms), comm.collective(a);
  comm.barrier();
  std::vector<double> calls;
  for (int it = 0; it < o.iters; ++it) {
    busy_gap(o.gap_ms);
    const auto t0 = std::chrono::steady_clock::now();
    comm.collective(a);
    calls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const Spread sp = spread_over_ranks(comm, calls);
  CollRow row;
  row.coll = c;
  row.type = t;
  row.in_place = in_place;
  row.root = ci.rooted ? a.root : -1;  // -1 as nccl-tests prints it
  row.bytes = std::max(sb, rb);
  row.count = count;
  row.time_us = sp.mean_us;
  row.time_min_us = sp.min_us;
  row.time_max_us = sp.max_us;
  row.algbw_gbps = row.time_us > 0 ? double(row.bytes) / (row.time_us * 1e-6) / 1e9 : 0;
  row.busbw_gbps = row.algbw_gbps * ci.busbw_factor(n);
  row.wrong = static_cast<std::size_t>(sum_over_ranks(comm, double(wrong)));
  return row;
}

}  // namespace

void sweep_collectives(Communicator& comm, const CommbenchOptions& o, CommbenchReport& rep, std::ostream& out) {
  const auto sizes = parse_sizes(o.sizes);
  const std::size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
  Buffers b;
  b.send_host.assign(Buffers::floats(max_bytes), 0.0f);
  b.recv_host.assign(Buffers::floats(max_bytes), 0.0f);
  b.send = make_buffer(comm, b.send_host);
  b.recv = make_buffer(comm, b.recv_host);
  const bool lead = comm.rank() == 0;
  for (Coll c : o.colls) {
    if (lead) write_coll_header(out, rep, c);
    std::vector<CollRow> mine;
    for (DType t : o.types)
      for (std::size_t bytes : sizes) {
        const std::size_t count = block_count(c, bytes, t, comm.size());
        CollRow oop = run_one(comm, o, b, c, t, count, false);
        CollRow ip = run_one(comm, o, b, c, t, count, true);
        if (lead) write_coll_line(out, oop, ip);
        mine.push_back(oop);
        mine.push_back(ip);
      }
    if (lead) write_coll_summary(out, mine);
    rep.coll_rows.insert(rep.coll_rows.end(), mine.begin(), mine.end());
  }
}

}  // namespace scalebench::comm::bench_detail
