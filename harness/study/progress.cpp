// progress.cpp — study-level progress and the time-left estimate (see progress.h).
#include "harness/study/progress.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace scalebench::study {

void StudyProgress::point_done(bool ran, double took_s) {
  ++done_;
  if (ran) ++ran_, ran_s_ += std::max(0.0, took_s);
}

std::string StudyProgress::line(double now_s) const {
  std::string s = fmt::format("study {}/{} done, {} elapsed", done_, total_, short_duration(now_s - start_s_));
  const std::size_t left = total_ > done_ ? total_ - done_ : 0;
  if (left == 0) return s;
  if (ran_ == 0) return s + ", ETA after the first point";
  return s + fmt::format(", ~{} left", short_duration(ran_s_ / double(ran_) * double(left)));
}

std::string short_duration(double seconds) {
  const long t = std::lround(std::max(0.0, seconds));
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
}

}  // namespace scalebench::study
