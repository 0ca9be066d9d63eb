// train_result.cpp — the one sentence a result says of itself (see train_result.h).
#include "harness/train/train_result.h"

#include <fmt/format.h>

#include "harness/train/preemption.h"

namespace scalebench {

std::string describe_preemption(const TrainResult& r) {
  return fmt::format("{} at epoch {} step {} of {}{}", signal_name(r.preempted_signal), r.preempted_epoch, r.preempted_step, r.epoch_steps,
                     r.preempted_step == r.epoch_steps ? " (epoch complete)" : "");
}

}  // namespace scalebench
