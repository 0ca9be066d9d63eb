// threads_world.cpp — ThreadsWorld: creates the shared state and the N communicators, and run(),
// which drives them on N threads and turns the first rank failure into the caller's exception.
#include <fmt/format.h>

#include <exception>
#include <thread>

#include "harness/comm/threads_comm.h"
#include "harness/comm/threads_state.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

using threads_detail::Context;
using threads_detail::ThreadsComm;
using threads_detail::World;

ThreadsWorld::ThreadsWorld(int n, CommOptions opts) {
  SB_REQUIRE(n >= 1, "threads transport: rank count must be >= 1, got {}", n);
  SB_REQUIRE(opts.timeout_s > 0, "comm timeout must be > 0 s, got {}", opts.timeout_s);
  world_ = std::make_shared<World>(n, opts);
  auto ctx = std::make_shared<Context>(n);
  for (int r = 0; r < n; ++r) comms_.push_back(std::make_unique<ThreadsComm>(world_, ctx, r));
}

ThreadsWorld::~ThreadsWorld() = default;

int ThreadsWorld::size() const { return world_->n; }

Communicator& ThreadsWorld::comm(int rank) {
  SB_CHECK(rank >= 0 && rank < world_->n, "threads transport: rank {} out of range", rank);
  return *comms_[static_cast<std::size_t>(rank)];
}

void ThreadsWorld::finished(int rank) {
  std::lock_guard lk(world_->mu);
  world_->done[static_cast<std::size_t>(rank)] = 1;
  world_->cv.notify_all();
}

void ThreadsWorld::failed(int rank, const std::string& why) {
  std::lock_guard lk(world_->mu);
  world_->done[static_cast<std::size_t>(rank)] = 1;
  world_->abort(rank, why);
}

void ThreadsWorld::run(int n, const std::function<void(Communicator&)>& fn, CommOptions opts) {
  ThreadsWorld world(n, opts);
  std::exception_ptr first;  // the failure that started the collapse; later ones are its echoes
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        fn(world.comm(r));
        world.finished(r);
      } catch (const std::exception& e) {
        // Decide "first" and raise the abort under one lock, so exactly the cause is kept.
        std::lock_guard lk(world.world_->mu);
        if (!world.world_->aborted) first = std::current_exception();
        world.world_->done[static_cast<std::size_t>(r)] = 1;
        world.world_->abort(r, e.what());
      } catch (...) {
        std::lock_guard lk(world.world_->mu);
        if (!world.world_->aborted) first = std::current_exception();
        world.world_->done[static_cast<std::size_t>(r)] = 1;
        world.world_->abort(r, "unknown exception");
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
  // Every rank may have failed only as an echo of an abort() call: report that abort.
  if (world.world_->aborted)
    throw Error(fmt::format("threads transport: rank {} aborted: {}", world.world_->abort_rank,
                            world.world_->abort_reason));
}

}  // namespace scalebench::comm
