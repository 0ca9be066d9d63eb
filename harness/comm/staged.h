// staged.h — the `staged` transport: a Communicator whose buffers live on a compute device and
// travel through host memory over a host transport (threads or mpi). Each operation copies the
// device buffer into a page-locked host block (DeviceStager, kernels/common/device.h: ordered after
// the compute stream's queued work), runs the host transport's own operation on the block, and copies
// the result back; so its results are the host transport's, bit for bit, on every wire type and
// algorithm. It is what ranks (or mirrored replicas) that share one GPU use, where NCCL refuses two
// ranks on a device; with the CPU device (plain copies) the same code runs in every CPU test.
//
// Written once over the device interface: nothing here names CUDA. Allreducer (allreduce.h) runs
// ring and hierarchical on a staged communicator as one copy in, the host algorithm over host(), and
// one copy out (through_host). Point-to-point: isend copies the buffer to a host block before the
// host send is posted; irecv lands in a host block and copies it to the buffer when the Request
// completes (test/wait). Like every Communicator, one thread at a time; dup() gives the other thread
// its own host communicator and its own copy queue. allgather/allgather_fixed/barrier take host memory
// and pass straight through.
// What it deliberately does not do: overlap the copies with the host exchange inside one call, or
// reduce on the device (the host transport adds, so the bits are the host transport's).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/comm/communicator.h"
#include "kernels/common/device.h"

namespace scalebench::comm {

class StagedComm final : public Communicator {
 public:
  // Makes the copy queue of each communicator (this one, and every dup()), on the thread that will use it.
  using StagerFactory = std::function<std::unique_ptr<DeviceStager>()>;
  StagedComm(std::unique_ptr<Communicator> host, StagerFactory stagers);  // owns the host transport
  StagedComm(Communicator& host, StagerFactory stagers);                  // borrows it (outlives this)
  ~StagedComm() override;

  int rank() const override { return host_->rank(); }
  int size() const override { return host_->size(); }
  const char* transport() const override { return "staged"; }
  Caps caps() const override;
  double timeout_s() const override { return host_->timeout_s(); }

  void allreduce_sum(float* buf, std::size_t count) override;
  void broadcast(float* buf, std::size_t count, int root) override;
  void barrier() override { host_->barrier(); }
  std::vector<std::string> allgather(std::string_view mine) override { return host_->allgather(mine); }
  void allgather_fixed(const void* mine, std::size_t bytes, void* all) override {
    host_->allgather_fixed(mine, bytes, all);
  }
  std::unique_ptr<Communicator> dup() override;
  Request isend(const void* buf, std::size_t bytes, int peer, int tag) override;
  Request irecv(void* buf, std::size_t bytes, int peer, int tag) override;
  [[noreturn]] void abort(const std::string& reason) override { host_->abort(reason); }

  // The host transport the exchanges run over (the same ranks; for the host algorithms).
  Communicator& host() { return *host_; }
  const char* host_transport() const { return host_->transport(); }
  // Copies buf[0, count) to a host block when `in`, runs fn on the block, copies it back when `out`.
  void through_host(float* buf, std::size_t count, bool in, bool out, const std::function<void(float*)>& fn);

  struct Pool;  // page-locked host blocks, shared with the pending Requests that hold one

 private:
  void init();

  std::unique_ptr<Communicator> owned_;
  Communicator* host_;
  StagerFactory stagers_;
  std::shared_ptr<Pool> pool_;
};

}  // namespace scalebench::comm
