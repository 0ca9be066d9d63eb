// train_observer.h — TrainObserver, the trainer's only call out to whoever watches a run.
// What it deliberately does not do: store anything itself (harness/record does).
#pragma once

#include <string>
#include <vector>

#include "harness/train/train_result.h"

namespace scalebench {

// Watches a run as it goes without the trainer knowing how results are stored (harness/record
// implements it with HDF5). Called on the training thread; an exception thrown here ends the run.
class TrainObserver {
 public:
  virtual ~TrainObserver() = default;
  // After set-up (model built, FLOPs and steps/epoch known), before the first step; meta.epochs is empty.
  virtual void on_start(const TrainResult& meta) {}
  // After each epoch's validation, with that epoch's steps.
  virtual void on_epoch(const EpochResult& epoch, const std::vector<StepRow>& steps) {}
  // Once it is known whether this launch resumed (before its first step): the launches so far.
  virtual void on_segments(const std::vector<RunSegment>& segments) {}
  // A multi-process run failed mid-run and is about to end the whole job (MPI_Abort): the last
  // chance to record the error, since no exception will reach the caller.
  virtual void on_fail(const std::string& error) noexcept {}
};

}  // namespace scalebench
