// run_guard.cpp — the process that records a run whose rank 0 died unrecorded (see run_guard.h).
#include "harness/record/run_guard.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "harness/record/context.h"
#include "kernels/common/check.h"

extern char** environ;

namespace scalebench::record {
namespace {

constexpr int kGuardFd = 3;           // the pipe's read end in the guard
constexpr int kWaitForDeathTenths = 100;  // after EOF, how long the kernel may take to finish rank 0's exit

}  // namespace

bool RunGuard::start(const std::string& path) {
  stop();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  // dup2 onto the same number would keep close-on-exec: move the read end above the target first.
  const int read_end = ::fcntl(fds[0], F_DUPFD_CLOEXEC, kGuardFd + 1);
  ::close(fds[0]);
  if (read_end < 0) {
    ::close(fds[1]);
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawnattr_init(&at);
  ::posix_spawn_file_actions_adddup2(&fa, read_end, kGuardFd);
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  ::posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  ::posix_spawnattr_setpgroup(&at, 0);
  ::posix_spawnattr_setsigmask(&at, &none);
  ::posix_spawnattr_setsigdefault(&at, &all);
  const std::string exe = self_executable(), pid = std::to_string(::getpid());
  std::vector<char*> argv = {const_cast<char*>(exe.c_str()), const_cast<char*>("run-guard"),
                             const_cast<char*>(path.c_str()), const_cast<char*>(pid.c_str()), nullptr};
  const int rc = ::posix_spawn(&child_, exe.c_str(), &fa, &at, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&fa);
  ::posix_spawnattr_destroy(&at);
  ::close(read_end);
  if (rc != 0) {
    ::close(fds[1]);
    child_ = -1;
    return false;
  }
  fd_ = fds[1];
  return true;
}

void RunGuard::stop() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  // The guard reads the file (no longer running) and exits within milliseconds; reap it when it
  // has, so a long-lived process does not keep a zombie (else init reaps it after we exit).
  for (int i = 0; i < 20 && ::waitpid(child_, nullptr, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  child_ = -1;
}

bool mark_writer_gone(RunFile& f, std::int64_t pid, const LivenessCheck& lv) {
  if (f.status != "running" || f.owner.pid != pid || lv.state != Liveness::dead) return false;
  f.status = "failed";
  f.error = fmt::format("dead: {}: rank 0 ended without recording how (killed by SIGKILL or the OOM killer, crashed, "
                        "or ended by its MPI library when the launcher went away, e.g. mpirun interrupted twice); "
                        "recorded by its guard process; the epochs here are complete, and a rerun continues from the "
                        "newest checkpoint, if one was written",
                        lv.why);
  return true;
}

int run_guard_main(const std::string& path, std::int64_t pid) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGPIPE}) ::signal(sig, SIG_IGN);
#ifdef SYS_close_range
  ::syscall(SYS_close_range, kGuardFd + 1, ~0U, 0);  // nothing of rank 0's but the pipe (best effort)
#endif
  char byte = 0;
  for (;;) {  // rank 0 never writes: this returns at EOF, when rank 0's end is closed
    const ssize_t n = ::read(kGuardFd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  for (int i = 0; i < kWaitForDeathTenths; ++i) {
    RunFile f;
    try {
      f = read_run_file(path);
    } catch (const Error&) {
      return 0;  // gone or replaced by something unreadable: not ours to repair
    }
    if (f.status != "running" || f.owner.pid != pid) return 0;  // recorded, or a rerun owns it now
    if (mark_writer_gone(f, pid, check_liveness(f.owner, path))) {
      try {
        write_run_file(path, f);
      } catch (const Error&) {
        return 1;
      }
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;  // rank 0 lives on after closing its end: it records for itself
}

}  // namespace scalebench::record
