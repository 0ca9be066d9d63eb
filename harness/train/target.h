// target.h — training to a target (--target-miou, --target-accuracy): the held-out checks of one
// run, in order, and what they say — whether and where the target was first reached, and the best
// value seen and where. Pure bookkeeping on rank 0 (the reporting rank evaluates); the checks
// travel in checkpoints, so a resumed run continues the best-so-far and the target itself.
// What it deliberately does not do: evaluate, time, or make the workers agree (epoch.cpp does: the
// verdict is rank 0's, shared through the strategy's max over workers), or write run files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace scalebench {

// One held-out evaluation of a run with a target: where it was taken and what it measured.
// Trivially copyable (checkpoints store the list as raw bytes).
struct TargetCheck {
  int epoch = 0;                  // 1-based epoch it was taken in
  std::int64_t step = 0;          // steps of that epoch done (its last step at an epoch's close)
  std::int64_t global_step = 0;   // optimizer steps so far: the steps to target
  double epochs = 0;              // epochs so far, fractional: epoch - 1 + step / steps per epoch
  std::int64_t images = 0;        // images trained on so far, all workers: global_step x global batch
  double seconds = 0;             // training wall time so far (validation and checkpoint writes left out)
  double value = 0;               // the metric (val_miou or val_accuracy)
};

static_assert(std::is_trivially_copyable_v<TargetCheck>);

class TargetTracker {
 public:
  TargetTracker() = default;  // no target: active() is false
  TargetTracker(std::string metric, double target) : metric_(std::move(metric)), target_(target) {}

  bool active() const { return target_ > 0; }
  const std::string& metric() const { return metric_; }  // "val_miou" | "val_accuracy"
  double target() const { return target_; }

  // Records a check; returns true when this check reaches the target and none before it had. A
  // check at the global step of the previous one (an epoch closed right after a mid-epoch check)
  // is the same evaluation: not recorded twice.
  bool observe(const TargetCheck& c);
  bool reached() const { return reached_index_.has_value(); }
  const TargetCheck* first_reached() const { return reached() ? &checks_[*reached_index_] : nullptr; }
  const TargetCheck* best() const;  // the highest value (the earliest of equals); null before any check
  const std::vector<TargetCheck>& checks() const { return checks_; }
  // A resumed run: the checks its checkpoint carried, replayed (so reached() and best() continue).
  void restore(const std::vector<TargetCheck>& checks);

 private:
  std::string metric_;
  double target_ = 0;
  std::vector<TargetCheck> checks_;
  std::optional<std::size_t> reached_index_;
};

// "val_miou 0.512 >= 0.5 at step 120 (epoch 2 step 40, 960 images, 33.1 s)" or
// "val_miou not reached (0.5): best 0.431 at step 96 (epoch 2 step 16)". For the log.
std::string describe_target(const TargetTracker& t);

}  // namespace scalebench
