// allreduce.h — AllreduceAlgo (DESIGN §3): `native` (the transport's own collective), `ring`
// (reduce-scatter + allgather over send/recv, chunked and pipelined) and `hierarchical` (reduce inside
// each node to its leader, ring among leaders, broadcast inside each node). Ring and hierarchical use
// only Communicator::isend/irecv, so they run over every transport.
// All three are in-place sums over float32 buffers: in host memory, or in device memory on the nccl
// transport, where Allreducer runs ring and hierarchical as round schedules (schedule.h) with the
// same additions, or on the staged transport (staged.h), which copies the buffer to the host once
// and runs the host algorithm over its host transport. Ring and hierarchical give every rank bit-identical results (each element is
// summed once, in a fixed order, then copied).
// Ring and hierarchical can carry 16-bit floats on the wire (bf16 or f16: half the bytes) while every
// addition still happens in float32; the owner of each reduced segment rounds it to the wire type, so
// all ranks still end bit-identical. Native collectives are float32 only. The only code that touches
// wire data is pipeline.cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "harness/comm/communicator.h"
#include "kernels/common/enum_names.h"

namespace scalebench::comm {

enum class AllreduceAlgo { native, ring, hierarchical };
enum class WireType { f32, bf16, f16 };  // what travels between ranks (ring, hierarchical)

}  // namespace scalebench::comm

namespace scalebench {
template <>
struct EnumNames<comm::AllreduceAlgo> {
  using A = comm::AllreduceAlgo;
  static constexpr std::array<EnumEntry<A>, 3> entries{
      {{A::native, "native"}, {A::ring, "ring"}, {A::hierarchical, "hierarchical"}}};
};
// Named as `--compression` names them: float32 on the wire is no compression.
template <>
struct EnumNames<comm::WireType> {
  using W = comm::WireType;
  static constexpr std::array<EnumEntry<W>, 3> entries{{{W::f32, "none"}, {W::bf16, "bf16"}, {W::f16, "fp16"}}};
};
}  // namespace scalebench

namespace scalebench::comm {

const char* to_string(AllreduceAlgo a);
AllreduceAlgo parse_allreduce_algo(std::string_view s);  // Error naming the value on anything else
const char* to_string(WireType w);                       // none | bf16 | fp16

struct AllreduceOptions {
  AllreduceAlgo algo = AllreduceAlgo::native;
  // Pipeline unit of ring/hierarchical: each ring segment is cut into chunks of this size so that
  // the send of chunk k+1 overlaps the reduction of chunk k. Measured in docs/comm.md.
  std::size_t chunk_bytes = std::size_t{128} << 10;
  int depth = 4;           // receive slots in flight (scratch = depth x chunk_bytes)
  int ranks_per_node = 0;  // hierarchical: 0 groups by host name; k > 0 makes nodes of k consecutive ranks
  WireType wire = WireType::f32;
  int tag = Communicator::kAlgoTagBase;  // uses tag .. tag+3; run on a dup() if others use these tags
  // commbench's probe (host ring only, and the leaders' ring of hierarchical): when set, the ring
  // appends the time at which each of its 2(n-1) steps ended on this rank —
  // the last chunk of the step's segment received (and, in reduce-scatter, added). Steps with an
  // empty segment (count < n) append nothing. What `scalebench project` reads the ring's per-step
  // spread from (docs/projection.md, "Stragglers and noise").
  std::vector<std::chrono::steady_clock::time_point>* step_ends = nullptr;
};

class StagedComm;  // staged.h

// A reusable allreduce bound to one communicator: holds the scratch slots and, for hierarchical,
// the node map (built once, collectively, in the constructor). Not thread-safe: like the communicator
// it belongs to one communication thread.
class Allreducer {
 public:
  Allreducer(Communicator& comm, AllreduceOptions opts);
  // In-place sum over all ranks; every rank calls it with the same count.
  void operator()(float* buf, std::size_t count);
  const AllreduceOptions& options() const { return opts_; }
  const NodeMap& node_map() const { return nodes_; }  // filled for hierarchical only

 private:
  void on_host(float* buf, std::size_t count);  // the host algorithms (ring.cpp, hierarchical.cpp)

  Communicator& comm_;
  AllreduceOptions opts_;
  StagedComm* staged_;  // comm_ when it is a staged transport (staged.h), else null
  NodeMap nodes_;
  std::vector<float> scratch_;
  std::vector<int> everyone_;
};

// The algorithms themselves (ring.cpp, hierarchical.cpp). `group` lists the participating ranks in
// ring order; ranks outside it must not call. `scratch` holds at least depth x chunk elements.
void ring_allreduce(Communicator& comm, const std::vector<int>& group, float* buf, std::size_t count,
                    const AllreduceOptions& opts, float* scratch);
void hierarchical_allreduce(Communicator& comm, const NodeMap& nodes, float* buf, std::size_t count,
                            const AllreduceOptions& opts, float* scratch);

}  // namespace scalebench::comm
