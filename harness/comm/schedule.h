// schedule.h — ring and hierarchical allreduce written as ROUNDS of point-to-point transfers, for
// transports whose sends and receives cannot be driven chunk by chunk from the host: on nccl a round
// is one ncclGroupStart/End of ncclSend/ncclRecv and its additions are GPU kernels queued behind it on
// the same stream, so a whole allreduce is queued at once and waited for once (nccl_run_schedule,
// below). ring.cpp and hierarchical.cpp stay the host algorithms: their receive slots are
// refilled as chunks arrive, a pattern NCCL cannot run (nccl/comm.h, "Point-to-point").
//
// A schedule performs exactly the float32 additions of ring_allreduce / hierarchical_allreduce, in
// the same order, with the same wire rounding, so its result is bit-identical to theirs on every
// rank (tests/comm/test_schedule.cpp checks this on the threads transport; the GPU tests check the
// nccl executor against run_schedule_on_host). What it deliberately does not do: choose chunk sizes
// by itself, overlap a round's additions with the next round's transfers, or reorder anything.
#pragma once

#include <cstddef>
#include <vector>

#include "harness/comm/allreduce.h"
#include "harness/comm/communicator.h"
#include "harness/comm/pipeline.h"

namespace scalebench::comm {

struct Transfer {
  enum class Kind { send, recv_add, recv_store };
  Kind kind = Kind::send;
  int peer = 0;
  Chunk range;  // elements of the user buffer: read (send), added into (recv_add) or overwritten (recv_store)
};

// One round: first `round_to_wire` (local: those ranges take the values the wire type carries),
// then every transfer posted together; the round ends when all of them completed and the received
// data was added or stored. Between two ranks the k-th send meets the k-th receive (rounds are not
// matched to rounds), and every send is as long as its receive.
struct Round {
  std::vector<Chunk> round_to_wire;
  std::vector<Transfer> transfers;
};

struct Schedule {
  std::vector<Round> rounds;
  // Most elements one round receives (the receive scratch an executor needs).
  std::size_t max_round_recv_elems() const;
  std::size_t max_round_send_elems() const;
};

// Ring over `group` (rank order = ring order) as seen by `rank`, which must be in it: n-1
// reduce-scatter rounds (send segment p-s, receive and add segment p-s-1), then n-1 allgather rounds.
// Whole segments per round: the library chunks and pipelines inside one transfer.
Schedule ring_schedule(int rank, const std::vector<int>& group, std::size_t count);

// Hierarchical over `nodes` as seen by `rank`: a chain reduce toward each node's leader, pipelined
// in chunks of `chunk_elems` (round j receives chunk j from below and forwards chunk j-1 upward),
// the ring among leaders, the leader's rounding to wire values, then the chain broadcast.
Schedule hierarchical_schedule(int rank, const NodeMap& nodes, std::size_t count, std::size_t chunk_elems);

// The reference executor over any host-memory transport: per round, post the sends (packed to the
// wire type), then receive, add or store each transfer in order, then wait for the sends. Uses tag
// `tag` only. Every rank of the schedule must run its own.
void run_schedule_on_host(Communicator& comm, const Schedule& s, float* buf, WireType wire, int tag);

// Runs a round schedule (schedule.h: ring or hierarchical) on the device buffer `buf` over
// ncclSend/ncclRecv, with the additions as GPU kernels between the groups, and waits for it against
// the deadline; bit-identical to run_schedule_on_host on the same inputs. Every rank of the schedule
// calls it (collective in effect). Defined in nccl/schedule.cpp; a build without CUDA links
// nonccl/gpu_world.cpp's, which says no GPU executor is built. Allreducer dispatches here when the communicator has
// device_buffers and the algorithm is ring or hierarchical.
void nccl_run_schedule(Communicator& c, const Schedule& s, float* buf, WireType wire);

}  // namespace scalebench::comm
