// target.cpp — the checks of a run with a target (see target.h).
#include "harness/train/target.h"

#include <fmt/format.h>

namespace scalebench {

bool TargetTracker::observe(const TargetCheck& c) {
  if (!checks_.empty() && checks_.back().global_step == c.global_step) return false;
  checks_.push_back(c);
  if (reached() || !active() || !(c.value >= target_)) return false;  // NaN never reaches
  reached_index_ = checks_.size() - 1;
  return true;
}

const TargetCheck* TargetTracker::best() const {
  const TargetCheck* b = nullptr;
  for (const auto& c : checks_)
    if (!b || c.value > b->value) b = &c;
  return b;
}

void TargetTracker::restore(const std::vector<TargetCheck>& checks) {
  checks_.clear();
  reached_index_.reset();
  for (const auto& c : checks) observe(c);
}

std::string describe_target(const TargetTracker& t) {
  const auto where = [](const TargetCheck& c) {
    return fmt::format("step {} (epoch {} step {}, {} images, {:.1f} s)", c.global_step, c.epoch, c.step, c.images,
                       c.seconds);
  };
  if (const TargetCheck* r = t.first_reached())
    return fmt::format("{} {:.4f} >= {} at {}", t.metric(), r->value, t.target(), where(*r));
  const TargetCheck* b = t.best();
  return fmt::format("{} not reached ({}): best {}", t.metric(), t.target(),
                     b ? fmt::format("{:.4f} at {}", b->value, where(*b)) : std::string("- (no check)"));
}

}  // namespace scalebench
