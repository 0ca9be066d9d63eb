// subprocess.cpp — fork/exec with line-streamed stdout and stderr (see subprocess.h).
#include "harness/study/launch/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

// The child run_child is waiting for (0: none), for forward_signal_to_child's handler.
volatile std::sig_atomic_t g_child = 0;
// The first stop signal (stop_children_on_signals); run_child passes it on, not the handler, so
// that it reaches a child started a moment after the signal too, and only once.
volatile std::sig_atomic_t g_stop = 0;
bool g_own_group = false;
double g_grace_s = 20;
constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};

void forward(int sig) {
  const pid_t child = pid_t(g_child);
  if (child > 0) ::kill(child, sig);
}

void note_stop(int sig) {
  if (!g_stop) g_stop = sig;
}

void install(int sig, void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  SB_REQUIRE(::sigaction(sig, &sa, nullptr) == 0, "cannot install a handler for signal {}: {}", sig,
             std::strerror(errno));
}

// Every descendant of `root` (children, their children, ...), from /proc.
std::vector<pid_t> descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;  // parent → child
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    const auto paren = line.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(line.substr(paren + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid) children.emplace(pid_t(ppid), pid_t(std::stol(name)));
  }
  std::vector<pid_t> out;
  for (std::vector<pid_t> todo = {root}; !todo.empty();) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(p); it != end; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

// The stop signal goes to the processes that do the work: the child's descendants when it has any
// (an MPI launcher's ranks: mpirun answers SIGTERM by killing its ranks within a second, before
// they could record the stop; told nothing, it sees them end and exits with their status), else
// the child itself.
void pass_on_stop(pid_t child, int sig) {
  const auto below = descendants(child);
  if (below.empty()) ::kill(child, sig);
  for (pid_t p : below) ::kill(p, sig);
}

// SIGKILL to the child's group and to everything it started (an MPI launcher puts each rank in a
// group of its own).
void kill_all(pid_t child, bool own_group) {
  const auto below = descendants(child);
  ::kill(own_group ? -child : child, SIGKILL);
  for (pid_t p : below) ::kill(p, SIGKILL);
}

// The forked child's side, up to exec: only async-signal-safe calls. A stop signal before exec ends
// it at once. When this process dies, however it dies (kill -9 included), the child gets SIGTERM —
// the stop every point handles (mpirun passes it to its ranks, which record the preemption) — so no
// point outlives its sweep and runs beside the next one. The flag survives exec; a parent already
// gone before it was set is caught by the getppid check. stdin is /dev/null; out_fd and err_fd
// become stdout and stderr (and are closed).
[[noreturn]] void exec_child(const std::vector<char*>& args, pid_t parent, bool own_group, int out_fd, int err_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(128 + SIGTERM);
  if (own_group) {
    ::setpgid(0, 0);
    for (int sig : kStopSignals)
      if (::signal(sig, SIG_DFL) == SIG_IGN) ::signal(sig, SIG_IGN);
  }
  const int in = ::open("/dev/null", O_RDONLY);
  if (in >= 0) ::dup2(in, STDIN_FILENO), ::close(in);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  if (out_fd > STDERR_FILENO) ::close(out_fd);
  if (err_fd > STDERR_FILENO && err_fd != out_fd) ::close(err_fd);
  ::execvp(args[0], args.data());
  const char* msg = "scalebench: error: cannot run the command (execvp failed; is it installed and on PATH?)\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, std::strlen(msg));
  ::_exit(127);
}

// Forks argv with out_fd/err_fd as its stdout/stderr (exec_child), closing close_a/close_b (the
// parent's ends of pipes; -1: none) in the child; in its own group when own_group. The child's pid,
// or -1 with errno set when fork failed.
pid_t spawn(const std::vector<std::string>& argv, bool own_group, int out_fd, int err_fd, int close_a, int close_b) {
  std::vector<char*> args;  // built before fork: the child may only make async-signal-safe calls
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (close_a >= 0) ::close(close_a);
    if (close_b >= 0) ::close(close_b);
    exec_child(args, parent, own_group, out_fd, err_fd);
  }
  if (pid > 0 && own_group) ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists
  return pid;
}

// A waitpid status as ChildExit.
ChildExit exit_of(int status, int stopped_by) {
  ChildExit e;
  if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  e.stopped_by = stopped_by;
  return e;
}

}  // namespace

void forward_signal_to_child(int sig) { install(sig, forward); }

void stop_children_on_signals(double grace_s) {
  g_grace_s = grace_s;
  g_own_group = true;
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // orphans of a child reparent here, where a stop can find them
  for (int sig : kStopSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    install(sig, note_stop);
  }
}

int stop_signal() { return int(g_stop); }

std::string ChildExit::describe() const {
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", code);
}

ChildExit run_child(const std::vector<std::string>& argv,
                    const std::function<void(const std::string& line, bool from_stderr)>& on_line) {
  SB_CHECK(!argv.empty(), "run_child: empty command");
  int out[2], err[2];
  SB_REQUIRE(::pipe(out) == 0 && ::pipe(err) == 0, "cannot create a pipe: {}", std::strerror(errno));
  const bool own_group = g_own_group;
  const pid_t pid = spawn(argv, own_group, out[1], err[1], out[0], err[0]);
  SB_REQUIRE(pid >= 0, "cannot fork: {}", std::strerror(errno));
  g_child = pid;
  ::close(out[1]);
  ::close(err[1]);
  std::array<std::string, 2> pending;
  std::array<pollfd, 2> fds{{{out[0], POLLIN, 0}, {err[0], POLLIN, 0}}};
  int open_fds = 2;
  std::array<char, 4096> buf{};
  using clock = std::chrono::steady_clock;
  int stopped_by = 0;
  bool killed = false;
  clock::time_point stop_at;
  while (open_fds > 0) {
    int timeout_ms = -1;
    if (g_stop && !stopped_by) {
      stopped_by = int(g_stop);
      pass_on_stop(pid, stopped_by == SIGHUP ? SIGTERM : stopped_by);
      stop_at = clock::now();
    }
    if (stopped_by) {
      const double waited = std::chrono::duration<double>(clock::now() - stop_at).count();
      if (!killed && waited >= g_grace_s) {
        kill_all(pid, own_group);
        killed = true;
      }
      if (killed && waited >= g_grace_s + 5) break;  // the pipes are held open outside the child's group
      timeout_ms = 100;
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
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
  if (stopped_by) {
    // Nothing the child started may outlive it. This process is a subreaper (stop_children_on_
    // signals), so what the child left running (an mpirun's ranks, had it died first) is now ours.
    if (own_group) ::kill(-pid, SIGKILL);
    for (pid_t p : descendants(::getpid())) {
      ::kill(p, SIGKILL);
      while (::waitpid(p, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  g_child = 0;
  return exit_of(status, stopped_by);
}

int start_logged_child(const std::vector<std::string>& argv, const std::string& log_path) {
  SB_CHECK(!argv.empty(), "start_logged_child: empty command");
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  SB_REQUIRE(log >= 0, "{}: cannot create the log: {}", log_path, std::strerror(errno));
  const pid_t pid = spawn(argv, g_own_group, log, log, -1, -1);
  const int err = errno;
  ::close(log);
  SB_REQUIRE(pid >= 0, "cannot fork: {}", std::strerror(err));
  return int(pid);
}

ChildExit wait_child(int pid, int stopped_by) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return exit_of(status, stopped_by);
}

ChildExit stop_logged_child(int pid, int sig, double grace_s) {
  pass_on_stop(pid, sig);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return ChildExit{.code = -1, .signal = 0, .stopped_by = sig};
    if (std::chrono::duration<double>(clock::now() - t0).count() >= grace_s) {
      kill_all(pid, g_own_group);
      return wait_child(pid, sig);
    }
    ::usleep(20000);
  }
  return exit_of(status, sig);
}

}  // namespace scalebench::study
