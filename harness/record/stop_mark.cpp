// stop_mark.cpp — the stop-signal thread (see stop_mark.h): poll() on the preemption self-pipe
// and on its own quit pipe, so it neither spins nor delays the end of a run.
#include "harness/record/stop_mark.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "harness/train/preemption.h"

namespace scalebench::record {

void StopMark::start(std::function<void(int)> on_signal) {
  stop();
  const int wake = preemption_wakeup_fd();
  if (wake < 0 || ::pipe2(quit_, O_CLOEXEC) != 0) {  // no pipes: no early mark (the run records as before)
    quit_[0] = quit_[1] = -1;
    return;
  }
  thread_ = std::thread([wake, q = quit_[0], on_signal = std::move(on_signal)] {
    pollfd fds[2] = {{.fd = wake, .events = POLLIN, .revents = 0}, {.fd = q, .events = POLLIN, .revents = 0}};
    for (;;) {
      if (preemption_signal() != 0) {  // also one that came before the thread started
        on_signal(preemption_signal());
        return;
      }
      const int n = ::poll(fds, 2, -1);
      if (n < 0 && errno != EINTR) return;
      if (fds[1].revents != 0) return;  // stop()
    }
  });
}

void StopMark::stop() noexcept {
  if (thread_.joinable()) {
    [[maybe_unused]] const ssize_t n = ::write(quit_[1], "q", 1);
    thread_.join();
  }
  for (int& fd : quit_)
    if (fd >= 0) ::close(fd), fd = -1;
}

}  // namespace scalebench::record
