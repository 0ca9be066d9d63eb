// train_rank.h — the per-rank training loop (one call per rank; comm null for single; provenance
// null or what its --trace file records beside the spans, trace.h).
#pragma once

#include <iosfwd>

#include "harness/comm/communicator.h"
#include "harness/train/train_config.h"
#include "harness/train/train_observer.h"
#include "harness/train/train_result.h"

namespace scalebench {
namespace trace { struct Provenance; }

TrainResult train_rank(const TrainConfig& cfg, comm::Communicator* comm, std::ostream& log, TrainObserver* observer,
                       const trace::Provenance* provenance = nullptr);

}  // namespace scalebench
