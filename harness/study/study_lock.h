// study_lock.h — one writer per study folder: <output>/.lock, flock'ed for the holder's lifetime (a
// sweep for its whole run or submission, an ab for its runs). A second holder fails with one line
// naming the first's pid and host. The kernel drops the lock when the holder dies however it dies,
// so a stale .lock file never blocks.
// What it deliberately does not do: wait for the holder, or lock anything across hosts (flock on a
// shared file system is as good as that file system's locking).
#pragma once

#include <string>

namespace scalebench::study {

// flock(2) on <output>/.lock (the folder created when missing). Close-on-exec: the points'
// processes do not hold it. `what` names the holder's kind in the refusal ("another sweep is running
// into this study folder").
class StudyLock {
 public:
  explicit StudyLock(const std::string& output, const char* what = "sweep");
  ~StudyLock();  // releases the lock; the file stays (removing it would race a new holder)
  StudyLock(const StudyLock&) = delete;
  StudyLock& operator=(const StudyLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace scalebench::study
