// ring.cpp — ring allreduce over send/recv: reduce-scatter then allgather, each in n-1 steps around
// the ring (left -> me -> right), every step's segment cut into chunks and pipelined across steps.
//
// Segments: the buffer is split into n segments (sizes differ by at most one element, so any count
// works, including count < n where some segments are empty and send nothing). In reduce-scatter step
// s, position p sends segment (p-s) and receives segment (p-s-1), adding it in. The segment received
// at step s is exactly the one sent at step s+1, so each chunk is forwarded the moment it has been
// added — sends of one chunk overlap the arrival and reduction of the next, and step s+1 starts before
// step s ends. After n-1 steps position p owns the full sum of segment (p+1); allgather circulates
// the owned segments the same way, received straight into the buffer and forwarded on arrival.
// Deliberately no bidirectional ring or rail tricks: one ring, one direction, one tag per phase.
#include <chrono>
#include <vector>

#include "harness/comm/allreduce.h"
#include "harness/comm/pipeline.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

// opts.step_ends: item i is the last of its step when the next item belongs to a later step.
void note_step_end(const AllreduceOptions& opts, const std::vector<int>& step_of, std::size_t i) {
  if (opts.step_ends == nullptr || (i + 1 < step_of.size() && step_of[i + 1] == step_of[i])) return;
  opts.step_ends->push_back(std::chrono::steady_clock::now());
}

}  // namespace

void ring_allreduce(Communicator& comm, const std::vector<int>& group, float* buf, std::size_t count,
                    const AllreduceOptions& opts, float* scratch) {
  const int n = static_cast<int>(group.size());
  int p = -1;
  for (int i = 0; i < n; ++i)
    if (group[static_cast<std::size_t>(i)] == comm.rank()) p = i;
  SB_CHECK(p >= 0, "ring allreduce: rank {} is not in the ring", comm.rank());
  if (n == 1 || count == 0) return;
  const int left = group[static_cast<std::size_t>(mod(p - 1, n))];
  const int right = group[static_cast<std::size_t>(mod(p + 1, n))];
  const std::size_t ce = chunk_elems(opts);
  Sender sends(comm, opts.wire);

  // Reduce-scatter. Items received, in order; the step of item i tells whether it is forwarded.
  std::vector<Chunk> items;
  std::vector<int> step_of;
  for (int s = 0; s < n - 1; ++s) {
    const Chunk seg = segment(count, n, mod(p - s - 1, n));
    append_chunks(items, seg.off, seg.len, ce);
    step_of.resize(items.size(), s);
  }
  {
    std::vector<Chunk> first;
    const Chunk seg = segment(count, n, p);
    append_chunks(first, seg.off, seg.len, ce);
    for (const Chunk& c : first) sends.send(buf, c, right, opts.tag);
  }
  recv_reduce(comm, left, opts.tag, buf, items, scratch, ce, opts.depth, opts.wire, [&](std::size_t i) {
    note_step_end(opts, step_of, i);
    if (step_of[i] < n - 2) sends.send(buf, items[i], right, opts.tag);
  });
  // The allgather below overwrites exactly the segments these sends read from.
  sends.wait();
  {
    // The owned segment leaves as wire values; keep exactly those here too (bit-identical ranks).
    const Chunk seg = segment(count, n, mod(p + 1, n));
    round_to_wire(buf + seg.off, seg.len, opts.wire);
  }

  // Allgather: step s sends segment (p+1-s) and receives segment (p-s).
  items.clear();
  step_of.clear();
  for (int s = 0; s < n - 1; ++s) {
    const Chunk seg = segment(count, n, mod(p - s, n));
    append_chunks(items, seg.off, seg.len, ce);
    step_of.resize(items.size(), s);
  }
  {
    std::vector<Chunk> owned;
    const Chunk seg = segment(count, n, mod(p + 1, n));
    append_chunks(owned, seg.off, seg.len, ce);
    for (const Chunk& c : owned) sends.send(buf, c, right, opts.tag + 1);
  }
  recv_into(comm, left, opts.tag + 1, buf, items, opts.wire, [&](std::size_t i) {
    note_step_end(opts, step_of, i);
    if (step_of[i] < n - 2) sends.send(buf, items[i], right, opts.tag + 1);
  });
  sends.wait();
}

}  // namespace scalebench::comm
