// trainer.h — the training loop of one run: data → forward → loss → backward → exchange + update
// (harness/strategy), per-epoch validation (IoU per class or accuracy) on rank 0 and one progress
// line per epoch (plus a step line at most every progress_seconds on long epochs). train() picks the
// transport the strategy needs — none (single), threads (mirrored: --devices ranks in this
// process) or MPI (launched under mpirun/srun) — and runs the same per-rank loop on every rank.
// SIGUSR1 stops a run early, every worker after the same step (preemption.h): the result then
// says preempted, where, and carries the unfinished epoch's steps.
// The result types are in train_result.h, the observer in train_observer.h.
#pragma once

#include <iosfwd>

#include "harness/train/preemption.h"  // a preempted result's signal and exit status, for callers
#include "harness/train/train_config.h"
#include "harness/train/train_observer.h"
#include "harness/train/train_result.h"

namespace scalebench {
namespace trace { struct Provenance; }

// Returns rank 0's result on rank 0; other ranks return theirs with empty epochs. The observer and
// the log are used by rank 0 only. `provenance` (trace.h; null: none) goes into every rank's
// --trace file.
TrainResult train(const TrainConfig& cfg, std::ostream& log, TrainObserver* observer = nullptr,
                  const trace::Provenance* provenance = nullptr);

}  // namespace scalebench
