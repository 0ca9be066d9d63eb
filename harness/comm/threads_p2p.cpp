// threads_p2p.cpp — point-to-point for the threads transport: matching posted sends and receives,
// the single copy, deadlines and abort. Collectives are in threads_coll.cpp.
// Matching is by (source, tag) in posting order, which gives MPI's non-overtaking rule. The copy runs
// outside the lock so that a 100 MB message does not stall the other ranks' bookkeeping.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "harness/comm/threads_state.h"
#include "kernels/common/check.h"

namespace scalebench::comm::threads_detail {

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

void World::wait(std::unique_lock<std::mutex>& lk, int me, const std::function<bool()>& ready,
                 const std::function<std::vector<int>()>& peers, const std::function<std::string()>& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opts.timeout_s);
  while (!ready()) {
    if (aborted)
      throw Error(fmt::format("threads transport: rank {} {}: abandoned because rank {} failed: {}", me, what(),
                              abort_rank, abort_reason));
    for (int p : peers())
      if (done[static_cast<std::size_t>(p)])
        throw Error(fmt::format("threads transport: rank {} {}: rank {} has already returned", me, what(), p));
    if (cv.wait_until(lk, deadline) == std::cv_status::timeout && !ready() && !aborted)
      throw Error(fmt::format("threads transport: rank {} {}: no progress from rank(s) {} within the {} s timeout "
                              "(missing, stalled or deadlocked peer)",
                              me, what(), rank_list(peers()), opts.timeout_s));
  }
}

void World::abort(int rank, const std::string& reason) {
  if (!aborted) {
    aborted = true;
    abort_rank = rank;
    abort_reason = reason;
  }
  cv.notify_all();
}

namespace {

std::string describe(const Op& op) {
  return op.is_send ? fmt::format("sending {} bytes to rank {} (tag {})", op.bytes, op.dst, op.tag)
                    : fmt::format("receiving {} bytes from rank {} (tag {})", op.bytes, op.src, op.tag);
}

class OpRequest final : public Request::Impl {
 public:
  OpRequest(std::shared_ptr<World> w, std::shared_ptr<Context> ctx, std::shared_ptr<Op> op, int me)
      : w_(std::move(w)), ctx_(std::move(ctx)), op_(std::move(op)), me_(me) {}

  bool test() override {
    std::lock_guard lk(w_->mu);
    if (op_->state == Op::State::failed) throw Error(op_->error);
    if (op_->state == Op::State::complete) return true;
    if (w_->aborted)
      throw Error(fmt::format("threads transport: rank {} {}: abandoned because rank {} failed: {}", me_,
                              describe(*op_), w_->abort_rank, w_->abort_reason));
    return false;
  }

  void wait() override {
    std::unique_lock lk(w_->mu);
    const int peer = op_->is_send ? op_->dst : op_->src;
    w_->wait(
        lk, me_, [&] { return op_->state == Op::State::complete || op_->state == Op::State::failed; },
        [&] { return std::vector<int>{peer}; }, [&] { return describe(*op_); });
    if (op_->state == Op::State::failed) throw Error(op_->error);
  }

  void abandon() override {
    std::unique_lock lk(w_->mu);
    if (op_->state == Op::State::pending) {
      auto& q = op_->is_send ? ctx_->sends_to[static_cast<std::size_t>(op_->dst)]
                             : ctx_->recvs_at[static_cast<std::size_t>(op_->dst)];
      q.erase(std::remove(q.begin(), q.end(), op_), q.end());
      op_->state = Op::State::failed;
      op_->error = "abandoned";
    }
    // A copy in flight reads or writes our buffer: let it finish (it is a local memcpy, no peer needed).
    w_->cv.wait(lk, [&] { return op_->state != Op::State::copying; });
  }

 private:
  std::shared_ptr<World> w_;
  std::shared_ptr<Context> ctx_;
  std::shared_ptr<Op> op_;
  int me_;
};

}  // namespace

Request ThreadsComm::post(std::shared_ptr<Op> op) {
  const int peer = op->is_send ? op->dst : op->src;
  SB_CHECK(peer >= 0 && peer < w_->n, "threads transport: rank {}: peer {} out of range [0, {})", rank_, peer, w_->n);
  SB_CHECK(op->tag >= 0 && op->tag <= kMaxTag, "threads transport: tag {} out of range", op->tag);
  std::unique_lock lk(w_->mu);
  // Look for the first matching operation the peer posted; otherwise queue ours for the peer to find.
  auto& q = op->is_send ? ctx_->recvs_at[static_cast<std::size_t>(op->dst)]
                        : ctx_->sends_to[static_cast<std::size_t>(op->dst)];
  auto it = std::find_if(q.begin(), q.end(), [&](const std::shared_ptr<Op>& o) {
    return o->src == op->src && o->tag == op->tag;
  });
  if (it == q.end()) {
    auto& mine = op->is_send ? ctx_->sends_to[static_cast<std::size_t>(op->dst)]
                             : ctx_->recvs_at[static_cast<std::size_t>(op->dst)];
    mine.push_back(op);
  } else {
    std::shared_ptr<Op> other = *it;
    q.erase(it);
    Op& s = op->is_send ? *op : *other;
    Op& r = op->is_send ? *other : *op;
    if (s.bytes != r.bytes) {
      s.state = r.state = Op::State::failed;
      s.error = r.error = fmt::format("threads transport: rank {} sent {} bytes to rank {} (tag {}) but rank {} posted "
                                      "a {}-byte receive",
                                      s.src, s.bytes, s.dst, s.tag, r.dst, r.bytes);
      w_->cv.notify_all();
    } else {
      s.state = r.state = Op::State::copying;
      lk.unlock();
      if (s.bytes) std::memcpy(r.rbuf, s.sbuf, s.bytes);
      lk.lock();
      s.state = r.state = Op::State::complete;
      w_->cv.notify_all();
    }
  }
  return Request(std::make_unique<OpRequest>(w_, ctx_, std::move(op), rank_));
}

Request ThreadsComm::isend(const void* buf, std::size_t bytes, int peer, int tag) {
  auto op = std::make_shared<Op>();
  op->is_send = true;
  op->src = rank_;
  op->dst = peer;
  op->tag = tag;
  op->sbuf = buf;
  op->bytes = bytes;
  return post(std::move(op));
}

Request ThreadsComm::irecv(void* buf, std::size_t bytes, int peer, int tag) {
  auto op = std::make_shared<Op>();
  op->src = peer;
  op->dst = rank_;
  op->tag = tag;
  op->rbuf = buf;
  op->bytes = bytes;
  return post(std::move(op));
}

void ThreadsComm::abort(const std::string& reason) {
  {
    std::lock_guard lk(w_->mu);
    w_->abort(rank_, reason);
  }
  throw Error(fmt::format("threads transport: rank {} aborted: {}", rank_, reason));
}

}  // namespace scalebench::comm::threads_detail
