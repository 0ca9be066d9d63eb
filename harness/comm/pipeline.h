// pipeline.h — the chunked, pipelined transfer loops shared by ring and hierarchical allreduce.
// A transfer is a list of chunks (element ranges of the user buffer) that a peer sends in order on
// one tag. recv_reduce lands them in rotating scratch slots and adds them into the buffer;
// recv_into lands them in the buffer directly. After each chunk a callback may forward it (isend),
// which is what makes the ring pipelined: a chunk moves on while the next one is still arriving.
// Wire encoding lives only here (pack_for_wire / accumulate_from_wire), so a compressed WireType
// changes this file and nothing in the algorithms. Not a general-purpose scheduler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "harness/comm/allreduce.h"
#include "harness/comm/communicator.h"

namespace scalebench::comm {

struct Chunk {
  std::size_t off = 0;  // elements from the start of the user buffer
  std::size_t len = 0;  // elements
};

// [off, off + len) cut into chunks of at most `chunk_elems` (an empty range gives no chunks).
void append_chunks(std::vector<Chunk>& out, std::size_t off, std::size_t len, std::size_t chunk_elems);
// Segment k of n over `count` elements: [k*count/n, (k+1)*count/n). Sizes differ by at most one.
Chunk segment(std::size_t count, int n, int k);
std::size_t chunk_elems(const AllreduceOptions& opts);

// Outstanding chunk sends of one phase, with the packed copies 16-bit wire types send from (kept
// alive until wait()).
class Sender {
 public:
  Sender(Communicator& comm, WireType wire) : comm_(comm), wire_(wire) {}
  void send(const float* buf, const Chunk& c, int peer, int tag);
  void wait();  // every send complete; staging freed

 private:
  Communicator& comm_;
  WireType wire_;
  std::vector<Request> reqs_;
  std::deque<std::vector<std::uint16_t>> staging_;
};

// Rounds buf[0, n) to the values the wire type can carry (no-op for f32): the owner of a reduced
// segment does this before sending it, so it holds exactly what every receiver decodes.
void round_to_wire(float* buf, std::size_t n, WireType wire);

// The 16-bit wire forms themselves (bf16 or f16; not f32): what Sender packs and the receive loops
// widen, for executors that stage wire data on their own (schedule_executor.h bound to host memory).
void pack_to_wire(const float* src, std::uint16_t* dst, std::size_t n, WireType wire);
void widen_from_wire(const std::uint16_t* src, float* dst, std::size_t n, WireType wire);

// Receives items[i] from `src` (tag) for i in order into `depth` scratch slots of `slot_elems`, adds
// each into buf at its offset (widened to float32 first), then calls after(i).
void recv_reduce(Communicator& comm, int src, int tag, float* buf, const std::vector<Chunk>& items, float* scratch,
                 std::size_t slot_elems, int depth, WireType wire, const std::function<void(std::size_t)>& after);

// Receives items[i] from `src` (tag) into buf (f32: directly; 16-bit: staged and widened), all
// posted at once; after(i) as each lands.
void recv_into(Communicator& comm, int src, int tag, float* buf, const std::vector<Chunk>& items, WireType wire,
               const std::function<void(std::size_t)>& after);

}  // namespace scalebench::comm
