// pipeline.cpp — chunk planning and the two receive loops of pipeline.h, plus the f32 wire form.
// The reduction (buf += slot) is a plain loop the compiler vectorises; it runs while the next chunks
// are already in flight, which is the point of the depth > 1 slots.
#include "harness/comm/pipeline.h"

#include <algorithm>

#include "kernels/common/check.h"

namespace scalebench::comm {

namespace {

// f32 on the wire: the chunk is its own wire form, and accumulating is an add. A bf16/f16 WireType
// would pack into a staging buffer here and widen while adding.
void accumulate_from_wire(float* __restrict dst, const float* __restrict wire, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] += wire[i];
}

}  // namespace

void append_chunks(std::vector<Chunk>& out, std::size_t off, std::size_t len, std::size_t chunk_elems) {
  for (std::size_t done = 0; done < len; done += chunk_elems)
    out.push_back({off + done, std::min(chunk_elems, len - done)});
}

Chunk segment(std::size_t count, int n, int k) {
  const auto lo = count * static_cast<std::size_t>(k) / static_cast<std::size_t>(n);
  const auto hi = count * static_cast<std::size_t>(k + 1) / static_cast<std::size_t>(n);
  return {lo, hi - lo};
}

std::size_t chunk_elems(const AllreduceOptions& opts) { return std::max<std::size_t>(1, opts.chunk_bytes / sizeof(float)); }

Request send_chunk(Communicator& comm, const float* buf, const Chunk& c, int peer, int tag) {
  return comm.isend(buf + c.off, c.len * sizeof(float), peer, tag);
}

void recv_reduce(Communicator& comm, int src, int tag, float* buf, const std::vector<Chunk>& items, float* scratch,
                 std::size_t slot_elems, int depth, const std::function<void(std::size_t)>& after) {
  const std::size_t n = items.size();
  const auto d = static_cast<std::size_t>(depth);
  std::vector<Request> slots(d);
  auto post = [&](std::size_t i) {
    SB_CHECK(items[i].len <= slot_elems, "chunk of {} elements exceeds the {}-element slot", items[i].len, slot_elems);
    slots[i % d] = comm.irecv(scratch + (i % d) * slot_elems, items[i].len * sizeof(float), src, tag);
  };
  for (std::size_t i = 0; i < std::min(n, d); ++i) post(i);
  for (std::size_t i = 0; i < n; ++i) {
    slots[i % d].wait();
    accumulate_from_wire(buf + items[i].off, scratch + (i % d) * slot_elems, items[i].len);
    if (i + d < n) post(i + d);  // the slot is free again: keep `depth` receives in flight
    after(i);
  }
}

void recv_into(Communicator& comm, int src, int tag, float* buf, const std::vector<Chunk>& items,
               const std::function<void(std::size_t)>& after) {
  std::vector<Request> reqs;
  reqs.reserve(items.size());
  for (const Chunk& c : items) reqs.push_back(comm.irecv(buf + c.off, c.len * sizeof(float), src, tag));
  for (std::size_t i = 0; i < items.size(); ++i) {
    reqs[i].wait();
    after(i);
  }
}

}  // namespace scalebench::comm
