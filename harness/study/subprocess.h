// subprocess.h — run one child process and stream its stdout and stderr line by line as they
// arrive (poll on two pipes), for the local launcher's prefixed progress lines.
// Deliberately minimal: no stdin, no timeout, no environment changes; the child inherits this
// process's environment, working directory and process group (so Ctrl-C reaches it too).
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

}  // namespace scalebench::study
