// threads_state.h — internal to the threads transport: the shared rendezvous state (one mutex and
// condition variable per world), posted operations, and the ThreadsComm class.
// Not for use outside harness/comm/threads_*.cpp.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "harness/comm/communicator.h"

namespace scalebench::comm::threads_detail {

// One posted send or receive. Guarded by World::mu.
struct Op {
  enum class State { pending, copying, complete, failed };
  int src = 0, dst = 0, tag = 0;
  const void* sbuf = nullptr;  // send side
  void* rbuf = nullptr;        // receive side
  std::size_t bytes = 0;
  bool is_send = false;
  State state = State::pending;
  std::string error;
};

// What a rank posted for the current collective (validated across ranks before use).
struct CollEntry {
  std::string kind;  // "allreduce", "broadcast", "barrier", "allgather", "dup"
  std::size_t count = 0;
  int root = -1;
  void* ptr = nullptr;                // allreduce/broadcast buffer; typed collectives: the receive buffer
  const void* send = nullptr;         // typed collectives: the send buffer
  const std::string* text = nullptr;  // allgather payload
};

// A message space: dup() creates a new one over the same ranks.
struct Context {
  explicit Context(int n)
      : sends_to(static_cast<std::size_t>(n)), recvs_at(static_cast<std::size_t>(n)),
        arrived(static_cast<std::size_t>(n), 0), entries(static_cast<std::size_t>(n)),
        calls(static_cast<std::size_t>(n), 0), dups(static_cast<std::size_t>(n), 0) {}
  int id = 0;
  std::vector<std::deque<std::shared_ptr<Op>>> sends_to;  // unmatched sends, by destination
  std::vector<std::deque<std::shared_ptr<Op>>> recvs_at;  // unmatched receives, by receiver
  std::uint64_t generation = 0;  // bumps each time all ranks meet in sync()
  int n_arrived = 0;
  std::vector<char> arrived;
  std::vector<CollEntry> entries;
  std::vector<std::uint64_t> calls;  // collectives entered, per rank (for messages)
  std::vector<std::uint64_t> dups;   // dup() calls, per rank
  std::map<std::uint64_t, std::shared_ptr<Context>> children;
};

struct World {
  World(int n_, CommOptions o) : n(n_), opts(o), done(static_cast<std::size_t>(n_), 0) {}
  int n;
  CommOptions opts;
  std::mutex mu;
  std::condition_variable cv;
  bool aborted = false;
  int abort_rank = -1;
  std::string abort_reason;
  std::vector<char> done;  // the rank's thread has returned
  int next_context_id = 1;

  // Blocks (lock held) until ready(), failing with an Error on abort, on a peer in `peers()` that
  // has returned, or at the deadline. `what()` describes the wait for the messages.
  void wait(std::unique_lock<std::mutex>& lk, int me, const std::function<bool()>& ready,
            const std::function<std::vector<int>()>& peers, const std::function<std::string()>& what);
  void abort(int rank, const std::string& reason);  // lock held
};

class ThreadsComm final : public Communicator {
 public:
  ThreadsComm(std::shared_ptr<World> w, std::shared_ptr<Context> ctx, int rank)
      : w_(std::move(w)), ctx_(std::move(ctx)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return w_->n; }
  const char* transport() const override { return "threads"; }
  Caps caps() const override { return Caps{true, true, true, false}; }
  double timeout_s() const override { return w_->opts.timeout_s; }

  void allreduce_sum(float* buf, std::size_t count) override;
  void broadcast(float* buf, std::size_t count, int root) override;
  void barrier() override;
  std::vector<std::string> allgather(std::string_view mine) override;
  void collective(const CollArgs& a) override;  // threads_typed.cpp
  std::unique_ptr<Communicator> dup() override;

  Request isend(const void* buf, std::size_t bytes, int peer, int tag) override;
  Request irecv(void* buf, std::size_t bytes, int peer, int tag) override;
  [[noreturn]] void abort(const std::string& reason) override;

 private:
  Request post(std::shared_ptr<Op> op);
  // Collective helpers (threads_coll.cpp): publish this rank's entry, meet all ranks, and check that
  // every rank entered the same collective with the same arguments.
  void enter(CollEntry e);
  void sync(const char* what);
  void validate();

  std::shared_ptr<World> w_;
  std::shared_ptr<Context> ctx_;
  int rank_;
};

std::string rank_list(const std::vector<int>& ranks);  // "2" / "2, 3"

}  // namespace scalebench::comm::threads_detail
