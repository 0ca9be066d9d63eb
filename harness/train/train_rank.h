// train_rank.h — the per-rank training loop (one call per rank; comm null for single).
#pragma once

#include <iosfwd>

#include "harness/comm/communicator.h"
#include "harness/train/trainer.h"

namespace scalebench {

TrainResult train_rank(const TrainConfig& cfg, comm::Communicator* comm, std::ostream& log, TrainObserver* observer);

}  // namespace scalebench
