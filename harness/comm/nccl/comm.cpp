// comm.cpp — NcclComm, the Communicator of the nccl transport (comm.h), and its
// Request: thin wrappers over the Core (state.h), which does the waiting and the failing.
// Not here: the waiting, deadlines and aborts (core.cpp), point-to-point queuing (p2p.cpp).
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "harness/comm/mpi_check.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/comm.h"
#include "harness/comm/nccl/state.h"

namespace scalebench::comm {

namespace nccl_detail {

namespace {

class NcclRequest final : public Request::Impl {
 public:
  NcclRequest(std::shared_ptr<Core> core, std::shared_ptr<P2pOp> op) : core_(std::move(core)), op_(std::move(op)) {}
  bool test() override { return core_->test_op(op_); }
  void wait() override { core_->wait_op(op_); }
  void abandon() override { core_->abandon_op(op_); }

 private:
  std::shared_ptr<Core> core_;
  std::shared_ptr<P2pOp> op_;
};

}  // namespace

NcclComm::~NcclComm() {
  if (owns_) core_->release(std::uncaught_exceptions() == 0);
}

void NcclComm::allreduce_sum(float* buf, std::size_t count) {
  const What what = [&] { return fmt::format("allreduce_sum of {} floats", count); };
  core_->check_live(what);
  if (count == 0) return;  // every rank passes the same count, so every rank skips
  core_->check_buffer(buf, "allreduce_sum");
  Core& c = *core_;
  c.run_collective([&] { return ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, c.handle(), c.stream()); }, what);
}

void NcclComm::broadcast(float* buf, std::size_t count, int root) {
  const What what = [&] { return fmt::format("broadcast of {} floats from rank {}", count, root); };
  SB_REQUIRE(root >= 0 && root < size(), "{}: broadcast root {} is not a rank of this {}-rank communicator",
             core_->prefix(), root, size());
  core_->check_live(what);
  if (count == 0) return;
  core_->check_buffer(buf, "broadcast");
  Core& c = *core_;
  c.run_collective([&] { return ncclBroadcast(buf, buf, count, ncclFloat32, root, c.handle(), c.stream()); }, what);
}

void NcclComm::barrier() { core_->barrier(); }

std::vector<std::string> NcclComm::allgather(std::string_view mine) { return core_->allgather(std::string(mine)); }

// ncclCommSplit(color 0, key rank): same ranks and devices, a new NCCL communicator with its own
// channels, and (through the new Core) its own stream. Non-blocking: the child handle is written by
// NCCL when the split finishes, so it lives in a heap slot that is deliberately leaked if the split
// is abandoned at the deadline (NCCL may still write it).
std::unique_ptr<Communicator> NcclComm::dup() {
  Core& c = *core_;
  const What what = [] { return std::string("dup (ncclCommSplit)"); };
  const char* hint = "a peer rank is dead, stalled or deadlocked, or did not call dup() too";
  c.check_live(what);
  cuda::DeviceGuard g(c.device());
  const auto start = Clock::now();
  auto* slot = new ncclComm_t(nullptr);
  ncclConfig_t cfg = nonblocking_config();
  c.enqueue([&] { return ncclCommSplit(c.handle(), 0, c.rank(), slot, &cfg); }, what, start, hint);
  std::atomic_ref<ncclComm_t> child(*slot);
  c.poll([&](ncclResult_t st) { return st == ncclSuccess && child.load(std::memory_order_acquire) != nullptr; }, what,
         start, hint);
  ncclComm_t handle = child.load(std::memory_order_acquire);
  delete slot;
  auto core = std::make_shared<Core>(handle, c.device(), c.rank(), c.size(), c.opts(), c.group());
  core->wait_ready(what, start, hint);
  return std::make_unique<NcclComm>(std::move(core), true);
}

Request NcclComm::isend(const void* buf, std::size_t bytes, int peer, int tag) {
  core_->check_peer(peer, tag, "isend");
  core_->check_live([&] { return fmt::format("send of {} bytes to rank {} (tag {})", bytes, peer, tag); });
  if (bytes == 0) return Request();  // the matching zero-byte receive completes at once too
  core_->check_buffer(buf, "isend");
  return Request(std::make_unique<NcclRequest>(core_, core_->queue(true, const_cast<void*>(buf), bytes, peer, tag)));
}

Request NcclComm::irecv(void* buf, std::size_t bytes, int peer, int tag) {
  core_->check_peer(peer, tag, "irecv");
  core_->check_live([&] { return fmt::format("recv of {} bytes from rank {} (tag {})", bytes, peer, tag); });
  if (bytes == 0) return Request();
  core_->check_buffer(buf, "irecv");
  return Request(std::make_unique<NcclRequest>(core_, core_->queue(false, buf, bytes, peer, tag)));
}

void NcclComm::abort(const std::string& reason) {
  if (core_->group()) {
    // Device group: the other rank threads stop at their next poll; the caller gets an Error.
    core_->group()->raise(rank(), reason);
    core_->abort_comm(reason);
    throw Error(fmt::format("nccl transport: rank {} aborted: {}", rank(), reason));
  }
  std::fflush(stdout);
  std::fprintf(stderr, "scalebench: error: rank %d on %s: %s\n", rank(), hostname().c_str(), reason.c_str());
  std::fflush(stderr);
  core_->abort_comm(reason);
  if (mpi_active()) MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // no MPI (file bootstrap): the peers end at their deadlines
}

ncclConfig_t nonblocking_config() {
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  cfg.blocking = 0;
  return cfg;
}

}  // namespace nccl_detail

int nccl_device(const Communicator& c) {
  const auto* n = dynamic_cast<const nccl_detail::NcclComm*>(&c);
  SB_REQUIRE(n != nullptr, "nccl_device: the communicator is a '{}' one, not nccl", c.transport());
  return n->core()->device();
}

}  // namespace scalebench::comm
