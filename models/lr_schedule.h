// lr_schedule.h — learning rate per step: the base LR scaled by the device count (rule
// none|linear|sqrt, Goyal et al. 2017 for linear), a linear warm-up, then constant or cosine decay.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/common/enum_names.h"

namespace scalebench {

enum class LrScaling { none, linear, sqrt };
enum class LrDecay { cosine, constant };  // after warm-up
template <>
struct EnumNames<LrScaling> {
  static constexpr std::array<EnumEntry<LrScaling>, 3> entries{
      {{LrScaling::none, "none"}, {LrScaling::linear, "linear"}, {LrScaling::sqrt, "sqrt"}}};
};
template <>
struct EnumNames<LrDecay> {
  static constexpr std::array<EnumEntry<LrDecay>, 2> entries{{{LrDecay::cosine, "cosine"}, {LrDecay::constant, "constant"}}};
};

struct LrSchedule {
  double base_lr = 0.01;
  LrScaling scaling = LrScaling::none;
  int world = 1;                  // data-parallel replicas the scaling rule counts
  double warmup_epochs = 0;
  LrDecay decay = LrDecay::cosine;
  std::int64_t steps_per_epoch = 1;
  int epochs = 1;

  void validate() const;
  double peak_lr() const;               // base_lr after the scaling rule
  double at(std::int64_t step) const;   // step is 0-based over the whole run
};

}  // namespace scalebench
