// staged.cpp — StagedComm (staged.h): the host-block pool, the staged collectives and the staged
// point-to-point Requests. No device API here: every copy goes through the DeviceStager.
#include "harness/comm/staged.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "kernels/common/check.h"

namespace scalebench::comm {

namespace {
struct Block {
  void* p = nullptr;
  std::size_t cap = 0;
};
}  // namespace

// Page-locked blocks are costly to allocate (cudaHostAlloc maps them for the GPU), so they are kept
// and reused: the smallest free block that fits. A block whose Request was abandoned is never
// reused (the host transport may still read or write it on the error path): it waits for the end.
struct StagedComm::Pool {
  explicit Pool(std::unique_ptr<DeviceStager> s) : stager(std::move(s)) {
    SB_CHECK(stager != nullptr, "staged transport: no copy queue for the device");
  }
  ~Pool() {
    for (const Block& b : free) stager->host_free(b.p);
    for (const Block& b : held_back) stager->host_free(b.p);
  }
  Block acquire(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lk(mu);
      auto best = free.end();
      for (auto it = free.begin(); it != free.end(); ++it)
        if (it->cap >= bytes && (best == free.end() || it->cap < best->cap)) best = it;
      if (best != free.end()) {
        const Block b = *best;
        free.erase(best);
        return b;
      }
    }
    const std::size_t cap = std::max<std::size_t>(4096, (bytes + 4095) / 4096 * 4096);
    return {stager->host_alloc(cap), cap};
  }
  void release(Block b) noexcept {
    std::lock_guard<std::mutex> lk(mu);
    free.push_back(b);
  }
  void hold_back(Block b) noexcept {
    std::lock_guard<std::mutex> lk(mu);
    held_back.push_back(b);
  }

  std::unique_ptr<DeviceStager> stager;
  std::mutex mu;
  std::vector<Block> free, held_back;
};

namespace {

using Pool = StagedComm::Pool;

// A block for the scope of one collective, back in the pool however the scope ends (a failed host
// collective has withdrawn its operations before it throws).
class ScopedBlock {
 public:
  ScopedBlock(Pool& pool, std::size_t bytes) : pool_(pool), b_(pool.acquire(bytes)) {}
  ~ScopedBlock() { pool_.release(b_); }
  ScopedBlock(const ScopedBlock&) = delete;
  ScopedBlock& operator=(const ScopedBlock&) = delete;
  void* get() const { return b_.p; }

 private:
  Pool& pool_;
  Block b_;
};

// A staged send or receive: the host transport's Request on a host block; a receive's completion
// copies the block to its destination on the device.
class StagedRequest final : public Request::Impl {
 public:
  StagedRequest(std::shared_ptr<Pool> pool, Block b, void* land, std::size_t bytes)
      : pool_(std::move(pool)), block_(b), land_(land), bytes_(bytes) {}
  ~StagedRequest() override {
    if (abandoned_)
      pool_->hold_back(block_);
    else
      pool_->release(block_);
  }
  void post(Request inner) { inner_ = std::move(inner); }

  bool test() override {
    if (!inner_.test()) return false;
    land();
    return true;
  }
  void wait() override {
    inner_.wait();
    land();
  }
  void abandon() override {
    abandoned_ = true;
    inner_ = Request();  // the host transport withdraws (or frees) its operation
  }

 private:
  void land() {
    if (land_ == nullptr) return;
    pool_->stager->from_host(land_, block_.p, bytes_);
    pool_->stager->wait();
    land_ = nullptr;
  }

  std::shared_ptr<Pool> pool_;
  Block block_;
  void* land_;  // a receive's destination (null: a send, or already copied)
  std::size_t bytes_;
  Request inner_;
  bool abandoned_ = false;
};

}  // namespace

StagedComm::StagedComm(std::unique_ptr<Communicator> host, StagerFactory stagers)
    : owned_(std::move(host)), host_(owned_.get()), stagers_(std::move(stagers)) {
  init();
}

StagedComm::StagedComm(Communicator& host, StagerFactory stagers) : host_(&host), stagers_(std::move(stagers)) {
  init();
}

void StagedComm::init() {
  SB_CHECK(host_ != nullptr, "staged transport: no host transport");
  SB_CHECK(!host_->caps().device_buffers, "staged transport: the host transport '{}' must take host memory",
           host_->transport());
  SB_CHECK(stagers_ != nullptr, "staged transport: no copy queue maker");
  pool_ = std::make_shared<Pool>(stagers_());
}

StagedComm::~StagedComm() = default;

Caps StagedComm::caps() const {
  Caps c = host_->caps();
  c.device_buffers = true;
  c.staged = true;
  return c;
}

void StagedComm::through_host(float* buf, std::size_t count, bool in, bool out,
                              const std::function<void(float*)>& fn) {
  const std::size_t bytes = count * sizeof(float);
  ScopedBlock block(*pool_, bytes);
  auto* host = static_cast<float*>(block.get());
  DeviceStager& st = *pool_->stager;
  if (in && bytes) {
    st.to_host(host, buf, bytes);
    st.wait();
  }
  fn(host);
  if (out && bytes) {
    st.from_host(buf, host, bytes);
    st.wait();
  }
}

void StagedComm::allreduce_sum(float* buf, std::size_t count) {
  through_host(buf, count, true, true, [&](float* h) { host_->allreduce_sum(h, count); });
}

void StagedComm::broadcast(float* buf, std::size_t count, int root) {
  const bool mine = rank() == root;
  through_host(buf, count, mine, !mine, [&](float* h) { host_->broadcast(h, count, root); });
}

std::unique_ptr<Communicator> StagedComm::dup() { return std::make_unique<StagedComm>(host_->dup(), stagers_); }

Request StagedComm::isend(const void* buf, std::size_t bytes, int peer, int tag) {
  const Block b = pool_->acquire(bytes);
  auto req = std::make_unique<StagedRequest>(pool_, b, nullptr, bytes);  // owns the block from here
  if (bytes) {
    pool_->stager->to_host(b.p, buf, bytes);
    pool_->stager->wait();  // the host send reads the block as soon as it is posted
  }
  req->post(host_->isend(b.p, bytes, peer, tag));
  return Request(std::move(req));
}

Request StagedComm::irecv(void* buf, std::size_t bytes, int peer, int tag) {
  const Block b = pool_->acquire(bytes);
  auto req = std::make_unique<StagedRequest>(pool_, b, bytes ? buf : nullptr, bytes);
  req->post(host_->irecv(b.p, bytes, peer, tag));
  return Request(std::move(req));
}

}  // namespace scalebench::comm
