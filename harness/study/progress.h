// progress.h — a sweep's study-level progress: how many points are done, the time since the sweep
// started, and an estimate of the time left ("study 4/18 done, 2m05s elapsed, ~7m20s left"), meant
// for a line after each point the local launcher runs (harness/study/launch/local.cpp prints it after
// every point it ran).
// The estimate is the mean wall time of the points this sweep ran (points skipped as ok before
// take none) times the points left; before the first point ends there is none ("ETA after the
// first point"). What it does not do: weigh points by N or model (a rough mean, said as "~"), read
// a clock of its own (the caller passes seconds, so tests need no sleeping), or print anything.
#pragma once

#include <cstddef>
#include <string>

namespace scalebench::study {

class StudyProgress {
 public:
  StudyProgress(std::size_t total, double start_s) : total_(total), start_s_(start_s) {}
  // A point has ended at `now_s`: `ran` when this sweep ran it (else it was skipped: ok before,
  // or running elsewhere), and how long it took.
  void point_done(bool ran, double took_s);
  // "study 4/18 done, 2m05s elapsed, ~7m20s left" at `now_s`.
  std::string line(double now_s) const;

 private:
  std::size_t total_;
  double start_s_;
  std::size_t done_ = 0, ran_ = 0;
  double ran_s_ = 0;
};

// "45s", "2m05s", "1h02m".
std::string short_duration(double seconds);

}  // namespace scalebench::study
