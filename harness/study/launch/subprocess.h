// subprocess.h — run one child process and stream its stdout and stderr line by line as they
// arrive (poll on two pipes), for the local launcher's prefixed progress lines.
// Deliberately minimal: stdin is /dev/null, no timeout, no environment changes; the child inherits
// this process's environment and working directory. One child at a time per process
// (forward_signal_to_child passes a signal to the current one).
// Process group: the child shares this process's group — so a Slurm job's process tracking
// (proctrack/pgid) sees it — unless stop_children_on_signals() was called: then every child gets
// its own group, so that a stop reaches everything it started (mpirun and its ranks) and nothing
// is left behind.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace scalebench::study {

struct ChildExit {
  int code = -1;    // exit status when it exited, else -1
  int signal = 0;   // the signal that ended it, else 0
  int stopped_by = 0;  // the stop signal this process got while the child ran (and passed on), else 0
  bool ok() const { return code == 0 && signal == 0; }
  std::string describe() const;  // "exit status 1", "killed by signal 9 (Killed)"
};

// Runs argv[0] (searched on PATH) with argv. on_line(line, from_stderr) gets every complete line
// (without the newline; a final unterminated line too). If the program cannot be started, the
// child reports it on its stderr and exits with status 127.
// The child gets SIGTERM when this process dies, however it dies (PR_SET_PDEATHSIG), so a
// SIGKILLed sweep does not leave its point running.
ChildExit run_child(const std::vector<std::string>& argv,
                    const std::function<void(const std::string& line, bool from_stderr)>& on_line);

// A second child beside run_child's (ab's other side of a slice pair): argv with stdout and stderr
// written to `log_path`, stdin /dev/null, SIGTERM when this process dies, its own process group when
// stop_children_on_signals() was called. Not streamed and not passed signals: the caller stops it
// (stop_logged_child) and reaps it (wait_child).
int start_logged_child(const std::vector<std::string>& argv, const std::string& log_path);
// Waits for it to end; `stopped_by` is recorded as ChildExit::stopped_by.
ChildExit wait_child(int pid, int stopped_by);
// SIGTERM to it (and its group), SIGKILL to its group after grace_s if it has not ended; reaps it.
ChildExit stop_logged_child(int pid, int sig, double grace_s);

// From now on, `sig` sent to this process is passed on to the child run_child is running (and
// ignored between children): a Slurm job script's USR1 reaches srun, and through it the ranks.
void forward_signal_to_child(int sig);

// From now on SIGTERM, SIGINT and SIGHUP no longer end this process: the first one is noted
// (stop_signal()) and passed on (SIGHUP as SIGTERM) to the processes that do the work — the
// running child's descendants when it has any (an MPI launcher's ranks, which then record the stop
// themselves; mpirun, signalled, would kill them within a second), else the child. When the child
// has not ended `grace_s` seconds later, its process group and every descendant get SIGKILL; once
// it has ended, whatever it left running is killed too (this process becomes a child subreaper,
// so orphans of a child are reparented here). Between children the signal is only noted: the
// caller checks stop_signal() before starting the next. A signal that was ignored when this is
// called (nohup, a background job's SIGINT) stays ignored.
void stop_children_on_signals(double grace_s);
// The first stop signal received (SIGTERM, SIGINT, SIGHUP), or 0.
int stop_signal();

}  // namespace scalebench::study
