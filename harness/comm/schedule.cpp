// schedule.cpp — building the ring and hierarchical schedules of schedule.h, and the host executor
// (the reference the nccl executor is tested against). The element ranges and their order are those
// of ring.cpp and hierarchical.cpp; only the grouping into rounds is new.
#include "harness/comm/schedule.h"

#include <algorithm>

#include "kernels/common/check.h"

namespace scalebench::comm {

namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

void add(Round& r, Transfer::Kind kind, int peer, const Chunk& c) {
  if (c.len > 0) r.transfers.push_back({kind, peer, c});  // empty segments travel on neither side
}

// Chain of `chunks` arriving from `from` (recv_add or recv_store) and leaving for `to`, pipelined one
// round apart: round j receives chunk j and forwards chunk j-1. from < 0: the chain starts here (one
// send per round); to < 0: it ends here.
void chain(Schedule& s, const std::vector<Chunk>& chunks, int from, Transfer::Kind kind, int to) {
  const std::size_t c = chunks.size();
  if (from < 0) {
    if (to < 0) return;
    for (std::size_t j = 0; j < c; ++j) add(s.rounds.emplace_back(), Transfer::Kind::send, to, chunks[j]);
    return;
  }
  for (std::size_t j = 0; j <= c; ++j) {
    if (j == c && to < 0) break;
    Round& r = s.rounds.emplace_back();
    if (j < c) add(r, kind, from, chunks[j]);
    if (j > 0 && to >= 0) add(r, Transfer::Kind::send, to, chunks[j - 1]);
  }
}

}  // namespace

std::size_t Schedule::max_round_recv_elems() const {
  std::size_t most = 0;
  for (const Round& r : rounds) {
    std::size_t n = 0;
    for (const Transfer& t : r.transfers) n += t.kind == Transfer::Kind::send ? 0 : t.range.len;
    most = std::max(most, n);
  }
  return most;
}

std::size_t Schedule::max_round_send_elems() const {
  std::size_t most = 0;
  for (const Round& r : rounds) {
    std::size_t n = 0;
    for (const Transfer& t : r.transfers) n += t.kind == Transfer::Kind::send ? t.range.len : 0;
    most = std::max(most, n);
  }
  return most;
}

Schedule ring_schedule(int rank, const std::vector<int>& group, std::size_t count) {
  const int n = static_cast<int>(group.size());
  const auto it = std::find(group.begin(), group.end(), rank);
  SB_CHECK(it != group.end(), "ring schedule: rank {} is not in the ring", rank);
  const int p = static_cast<int>(it - group.begin());
  Schedule s;
  if (n == 1 || count == 0) return s;
  const int left = group[static_cast<std::size_t>(mod(p - 1, n))];
  const int right = group[static_cast<std::size_t>(mod(p + 1, n))];
  for (int k = 0; k < n - 1; ++k) {  // reduce-scatter
    Round& r = s.rounds.emplace_back();
    add(r, Transfer::Kind::send, right, segment(count, n, mod(p - k, n)));
    add(r, Transfer::Kind::recv_add, left, segment(count, n, mod(p - k - 1, n)));
  }
  for (int k = 0; k < n - 1; ++k) {  // allgather of the owned segments
    Round& r = s.rounds.emplace_back();
    // The owned segment leaves as wire values; its owner keeps exactly those (bit-identical ranks).
    if (k == 0) r.round_to_wire.push_back(segment(count, n, mod(p + 1, n)));
    add(r, Transfer::Kind::send, right, segment(count, n, mod(p + 1 - k, n)));
    add(r, Transfer::Kind::recv_store, left, segment(count, n, mod(p - k, n)));
  }
  return s;
}

Schedule hierarchical_schedule(int rank, const NodeMap& nodes, std::size_t count, std::size_t chunk_elems) {
  SB_CHECK(chunk_elems >= 1, "hierarchical schedule: chunk of {} elements", chunk_elems);
  SB_CHECK(rank >= 0 && static_cast<std::size_t>(rank) < nodes.node_of_rank.size(),
           "hierarchical schedule: rank {} is not in the node map", rank);
  Schedule s;
  if (count == 0 || nodes.node_of_rank.size() == 1) return s;
  const auto& local = nodes.ranks_of_node[static_cast<std::size_t>(nodes.node_of_rank[static_cast<std::size_t>(rank)])];
  const auto pos = static_cast<std::size_t>(std::find(local.begin(), local.end(), rank) - local.begin());
  const int up = pos > 0 ? local[pos - 1] : -1;                  // toward the leader
  const int down = pos + 1 < local.size() ? local[pos + 1] : -1;  // away from it
  std::vector<Chunk> chunks;
  append_chunks(chunks, 0, count, chunk_elems);

  chain(s, chunks, down, Transfer::Kind::recv_add, up);  // 1. reduce toward the leader
  if (pos == 0) {
    if (nodes.num_nodes() > 1) {  // 2. ring among the leaders
      Schedule ring = ring_schedule(rank, nodes.leaders(), count);
      s.rounds.insert(s.rounds.end(), ring.rounds.begin(), ring.rounds.end());
    }
    // The leader broadcasts wire values: it keeps exactly those (a no-op after the ring, which rounded).
    s.rounds.emplace_back().round_to_wire.push_back({0, count});
  }
  chain(s, chunks, up, Transfer::Kind::recv_store, down);  // 3. broadcast from the leader
  return s;
}

void run_schedule_on_host(Communicator& comm, const Schedule& s, float* buf, WireType wire, int tag) {
  std::vector<float> scratch(std::max<std::size_t>(1, s.max_round_recv_elems()));
  const auto nothing = [](std::size_t) {};
  for (const Round& r : s.rounds) {
    for (const Chunk& c : r.round_to_wire) round_to_wire(buf + c.off, c.len, wire);
    Sender sends(comm, wire);
    for (const Transfer& t : r.transfers)
      if (t.kind == Transfer::Kind::send) sends.send(buf, t.range, t.peer, tag);
    for (const Transfer& t : r.transfers) {
      if (t.kind == Transfer::Kind::recv_add)
        recv_reduce(comm, t.peer, tag, buf, {t.range}, scratch.data(), t.range.len, 1, wire, nothing);
      else if (t.kind == Transfer::Kind::recv_store)
        recv_into(comm, t.peer, tag, buf, {t.range}, wire, nothing);
    }
    sends.wait();
  }
}

}  // namespace scalebench::comm
