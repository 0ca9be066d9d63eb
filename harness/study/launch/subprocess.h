// subprocess.h — run one child process and stream its stdout and stderr line by line as they
// arrive (poll on two pipes), for the local launcher's prefixed progress lines.
// Deliberately minimal: no stdin, no timeout, no environment changes; the child inherits this
// process's environment, working directory and process group (so Ctrl-C reaches it too). One child
// at a time per process (forward_signal_to_child passes a signal to the current one).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace scalebench::study {

struct ChildExit {
  int code = -1;    // exit status when it exited, else -1
  int signal = 0;   // the signal that ended it, else 0
  bool ok() const { return code == 0 && signal == 0; }
  std::string describe() const;  // "exit status 1", "killed by signal 9 (Killed)"
};

// Runs argv[0] (searched on PATH) with argv. on_line(line, from_stderr) gets every complete line
// (without the newline; a final unterminated line too). If the program cannot be started, the
// child reports it on its stderr and exits with status 127.
ChildExit run_child(const std::vector<std::string>& argv,
                    const std::function<void(const std::string& line, bool from_stderr)>& on_line);

// From now on, `sig` sent to this process is passed on to the child run_child is running (and
// ignored between children): a Slurm job script's USR1 reaches srun, and through it the ranks.
void forward_signal_to_child(int sig);

}  // namespace scalebench::study
