// allreduce.cpp — algorithm names and the Allreducer, which validates options once, keeps scratch
// and the node map, and dispatches each call. The algorithms are in ring.cpp and hierarchical.cpp
// (host memory); on device buffers the same algorithms run as round schedules (schedule.h) through
// the nccl executor, or, on a staged transport (staged.h), on a host copy of the buffer.
#include "harness/comm/allreduce.h"

#include <fmt/format.h>

#include <numeric>

#include "harness/comm/schedule.h"
#include "harness/comm/staged.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

const char* to_string(AllreduceAlgo a) { return name_of(a).data(); }

AllreduceAlgo parse_allreduce_algo(std::string_view s) { return parse_enum<AllreduceAlgo>(s, "allreduce algorithm"); }

const char* to_string(WireType w) { return name_of(w).data(); }

Allreducer::Allreducer(Communicator& comm, AllreduceOptions opts)
    : comm_(comm), opts_(opts), staged_(comm.caps().staged ? dynamic_cast<StagedComm*>(&comm) : nullptr) {
  SB_CHECK(!comm.caps().staged || staged_ != nullptr, "a staged transport that is not a StagedComm");
  SB_REQUIRE(opts_.chunk_bytes >= sizeof(float), "allreduce chunk size must be at least {} bytes, got {}",
             sizeof(float), opts_.chunk_bytes);
  SB_REQUIRE(opts_.depth >= 1 && opts_.depth <= 64, "allreduce pipeline depth must be in [1, 64], got {}", opts_.depth);
  SB_REQUIRE(opts_.ranks_per_node >= 0, "ranks_per_node must be >= 0 (0: by host name), got {}", opts_.ranks_per_node);
  SB_REQUIRE(opts_.tag >= 0 && opts_.tag + 3 <= Communicator::kMaxTag, "allreduce tag {} out of range", opts_.tag);
  SB_REQUIRE(opts_.wire == WireType::f32 || opts_.algo != AllreduceAlgo::native,
             "{} compression needs the ring or hierarchical algorithm (native collectives are float32)",
             to_string(opts_.wire));
  if (opts_.algo == AllreduceAlgo::native) return;
  scratch_.resize(static_cast<std::size_t>(opts_.depth) * std::max<std::size_t>(1, opts_.chunk_bytes / sizeof(float)));
  everyone_.resize(static_cast<std::size_t>(comm.size()));
  std::iota(everyone_.begin(), everyone_.end(), 0);
  if (opts_.algo == AllreduceAlgo::hierarchical) nodes_ = make_node_map(comm, opts_.ranks_per_node);
}

void Allreducer::operator()(float* buf, std::size_t count) {
  if (staged_ != nullptr) {
    // Device buffers through host memory (staged.h): one copy in, the host algorithm, one copy out.
    return staged_->through_host(buf, count, true, true, [&](float* host) { on_host(host, count); });
  }
  if (opts_.algo != AllreduceAlgo::native && comm_.caps().device_buffers) {
    // Device buffers (nccl): the same algorithm as rounds of grouped send/recv with GPU additions.
    const Schedule s = opts_.algo == AllreduceAlgo::ring
                           ? ring_schedule(comm_.rank(), everyone_, count)
                           : hierarchical_schedule(comm_.rank(), nodes_, count, chunk_elems(opts_));
    return nccl_run_schedule(comm_, s, buf, opts_.wire);
  }
  on_host(buf, count);
}

void Allreducer::on_host(float* buf, std::size_t count) {
  Communicator& c = staged_ != nullptr ? staged_->host() : comm_;
  switch (opts_.algo) {
    case AllreduceAlgo::native: c.allreduce_sum(buf, count); return;
    case AllreduceAlgo::ring: ring_allreduce(c, everyone_, buf, count, opts_, scratch_.data()); return;
    case AllreduceAlgo::hierarchical:
      hierarchical_allreduce(c, nodes_, buf, count, opts_, scratch_.data());
      return;
  }
}

}  // namespace scalebench::comm
