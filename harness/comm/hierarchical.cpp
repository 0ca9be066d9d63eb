// hierarchical.cpp — hierarchical allreduce: reduce inside each node to its leader, ring allreduce
// among the node leaders, broadcast inside each node.
// Inside a node both phases are pipelined chains rather than a star: the reduce flows
// last -> ... -> local 1 -> leader (each member adds its own data to a chunk and forwards it at once),
// the broadcast flows leader -> local 1 -> ... -> last. A chain moves each chunk once per link, so the
// leader's memory traffic does not grow with the number of ranks per node.
// It deliberately does not pick node groupings itself: NodeMap (host names or ranks_per_node) does.
#include <vector>

#include "harness/comm/allreduce.h"
#include "harness/comm/pipeline.h"

namespace scalebench::comm {

void hierarchical_allreduce(Communicator& comm, const NodeMap& nodes, float* buf, std::size_t count,
                            const AllreduceOptions& opts, float* scratch) {
  if (count == 0 || comm.size() == 1) return;
  const auto& local = nodes.ranks_of_node[static_cast<std::size_t>(nodes.node)];
  const int L = static_cast<int>(local.size());
  const int pos = nodes.local_rank;
  const int up = pos > 0 ? local[static_cast<std::size_t>(pos - 1)] : -1;        // toward the leader
  const int down = pos + 1 < L ? local[static_cast<std::size_t>(pos + 1)] : -1;  // away from it
  const std::size_t ce = chunk_elems(opts);
  std::vector<Chunk> chunks;
  append_chunks(chunks, 0, count, ce);
  Sender sends(comm, opts.wire);

  // 1. Chain reduce toward the leader (tag+2).
  if (down < 0) {
    if (up >= 0)
      for (const Chunk& c : chunks) sends.send(buf, c, up, opts.tag + 2);
  } else {
    recv_reduce(comm, down, opts.tag + 2, buf, chunks, scratch, ce, opts.depth, opts.wire, [&](std::size_t i) {
      if (up >= 0) sends.send(buf, chunks[i], up, opts.tag + 2);
    });
  }
  sends.wait();  // phase 3 overwrites what these sends read

  // 2. Ring among node leaders (tags tag, tag+1).
  if (pos == 0 && nodes.num_nodes() > 1) ring_allreduce(comm, nodes.leaders(), buf, count, opts, scratch);
  // The leader broadcasts wire values: it keeps exactly those (a no-op after the ring, which rounded).
  if (pos == 0) round_to_wire(buf, count, opts.wire);

  // 3. Chain broadcast from the leader (tag+3).
  if (up < 0) {
    if (down >= 0)
      for (const Chunk& c : chunks) sends.send(buf, c, down, opts.tag + 3);
  } else {
    recv_into(comm, up, opts.tag + 3, buf, chunks, opts.wire, [&](std::size_t i) {
      if (down >= 0) sends.send(buf, chunks[i], down, opts.tag + 3);
    });
  }
  sends.wait();
}

}  // namespace scalebench::comm
