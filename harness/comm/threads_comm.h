// threads_comm.h — the `threads` transport: N ranks as N threads of one process (the `mirrored`
// strategy on CPU, and the in-process test bed for every algorithm).
// Messages are copied once, by whichever side arrives second, straight from the sender's buffer into
// the receiver's (MPI-like rendezvous; nothing is buffered). Every wait has a deadline, so a missing
// or deadlocked peer ends in an Error naming the ranks instead of a hang.
// It deliberately has no "any source" receive and no cross-process reach.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/comm/communicator.h"

namespace scalebench::comm {

namespace threads_detail {
struct World;
}

// N communicators sharing one rendezvous state. Either use run(), or create a world, hand comm(r)
// to the thread of rank r, and report each thread's end with finished(r) / failed(r, why) so that
// the others stop waiting for it at once instead of at the deadline.
class ThreadsWorld {
 public:
  explicit ThreadsWorld(int n, CommOptions opts = {});
  ~ThreadsWorld();
  ThreadsWorld(const ThreadsWorld&) = delete;
  ThreadsWorld& operator=(const ThreadsWorld&) = delete;

  int size() const;
  Communicator& comm(int rank);
  void finished(int rank);
  void failed(int rank, const std::string& why);

  // Runs fn(comm(r)) on n new threads and joins them. If any rank throws, the others' waits fail
  // promptly and run() rethrows the first failure (the cause, not the follow-on errors).
  static void run(int n, const std::function<void(Communicator&)>& fn, CommOptions opts = {});

 private:
  std::shared_ptr<threads_detail::World> world_;
  std::vector<std::unique_ptr<Communicator>> comms_;
};

}  // namespace scalebench::comm
