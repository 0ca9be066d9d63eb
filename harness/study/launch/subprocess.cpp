// subprocess.cpp — fork/exec with line-streamed stdout and stderr (see subprocess.h).
#include "harness/study/launch/subprocess.h"

#include <poll.h>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

// The child run_child is waiting for (0: none), for forward_signal_to_child's handler.
volatile std::sig_atomic_t g_child = 0;

void forward(int sig) {
  const pid_t child = pid_t(g_child);
  if (child > 0) ::kill(child, sig);
}

}  // namespace

void forward_signal_to_child(int sig) {
  struct sigaction sa {};
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  SB_REQUIRE(::sigaction(sig, &sa, nullptr) == 0, "cannot install a handler for signal {}: {}", sig,
             std::strerror(errno));
}

std::string ChildExit::describe() const {
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", code);
}

ChildExit run_child(const std::vector<std::string>& argv,
                    const std::function<void(const std::string& line, bool from_stderr)>& on_line) {
  SB_CHECK(!argv.empty(), "run_child: empty command");
  int out[2], err[2];
  SB_REQUIRE(::pipe(out) == 0 && ::pipe(err) == 0, "cannot create a pipe: {}", std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  SB_REQUIRE(pid >= 0, "cannot fork: {}", std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::close(out[0]), ::close(out[1]), ::close(err[0]), ::close(err[1]);
    ::execvp(args[0], args.data());
    const char* msg = "scalebench: error: cannot run the command (execvp failed; is it installed and on PATH?)\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, std::strlen(msg));
    ::_exit(127);
  }
  g_child = pid;
  ::close(out[1]);
  ::close(err[1]);
  std::array<std::string, 2> pending;
  std::array<pollfd, 2> fds{{{out[0], POLLIN, 0}, {err[0], POLLIN, 0}}};
  int open_fds = 2;
  std::array<char, 4096> buf{};
  while (open_fds > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[k].fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (!pending[k].empty()) on_line(pending[k], k == 1);
        pending[k].clear();
        ::close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
        continue;
      }
      pending[k].append(buf.data(), std::size_t(n));
      for (std::size_t nl; (nl = pending[k].find('\n')) != std::string::npos;) {
        on_line(pending[k].substr(0, nl), k == 1);
        pending[k].erase(0, nl + 1);
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  ChildExit e;
  if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

}  // namespace scalebench::study
