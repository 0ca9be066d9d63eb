// phase_timer.h — wall-clock phases of a training step (data, forward, backward, exposed
// communication, update), accumulated per epoch. steady_clock; no CUDA events here.
#pragma once

#include <chrono>

namespace scalebench {

struct StepTimes {
  double data = 0, fwd = 0, bwd = 0, comm_exposed = 0, update = 0;
  double total() const { return data + fwd + bwd + comm_exposed + update; }
  StepTimes& operator+=(const StepTimes& o) {
    data += o.data, fwd += o.fwd, bwd += o.bwd, comm_exposed += o.comm_exposed, update += o.update;
    return *this;
  }
};

class Stopwatch {
 public:
  Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
  // Seconds since the last lap (or construction), and restart.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - t0_).count();
    t0_ = now;
    return s;
  }
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace scalebench
