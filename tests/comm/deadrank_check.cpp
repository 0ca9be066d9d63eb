// deadrank_check.cpp — ctest driver for the dead-rank guarantee: launches
// `MPIEXEC NUMPROC_FLAG 4 --oversubscribe deadrank_prog MODE`, and passes only if the job ends
// non-zero within 60 s (else it kills the job: a hang is the failure we guard against) and its
// output names the silent rank. Prints the elapsed time and the job's output for the record.
// It deliberately makes no other timing assertion.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s MPIEXEC NUMPROC_FLAG PROGRAM kill|stall|stall-native\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[4];
  const double deadline_s = 60.0;
  int fds[2];
  if (pipe(fds) != 0) return 2;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group, so a hang can be killed as a whole
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    execlp(argv[1], argv[1], argv[2], "4", "--oversubscribe", argv[3], argv[4], static_cast<char*>(nullptr));
    std::perror("exec");
    _exit(127);
  }
  close(fds[1]);
  std::string output;
  bool hung = false;
  for (;;) {
    const double left = deadline_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (left <= 0) {
      hung = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
    char buf[4096];
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got <= 0) break;  // every writer closed: the job is over
    output.append(buf, static_cast<std::size_t>(got));
  }
  if (hung) kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("---- job output ----\n%s--------------------\n", output.c_str());
  std::printf("mode %s: job ended after %.2f s, %s %d\n", mode.c_str(), s,
              WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  int fails = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAIL: %s\n", what);
      ++fails;
    }
  };
  expect(!hung, "the job did not end within 60 s (hang)");
  expect(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "mpirun exited 0 although a rank died");
  expect(output.find("finished") == std::string::npos, "a rank finished its loop although rank 2 was gone");
  if (mode == "kill") {
    // Open MPI: "mpirun noticed that process rank 2 with PID ... exited on signal 9 (Killed)."
    expect(output.find("rank 2") != std::string::npos, "the output does not name rank 2");
  } else {
    // Ring: "... no progress receiving ... from rank K ...; rank K is dead, stalled or deadlocked".
    // Native: "... native allreduce of N elements did not complete ...; a peer rank is dead, stalled ...".
    // (Open MPI's own MPI_ABORT banner is not asserted: concurrent aborts from several ranks garble it.)
    expect(output.find("is dead, stalled or deadlocked") != std::string::npos, "the watchdog message is missing");
  }
  std::printf(fails ? "dead-rank check FAILED\n" : "dead-rank check passed\n");
  return fails ? 1 : 0;
}
