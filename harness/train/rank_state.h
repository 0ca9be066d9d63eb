// rank_state.h — everything one rank holds while it trains, built once from the configuration:
// the dataset and its split, the backend's step I/O, the model, the strategy, the LR schedule,
// the optimizer, the loss's class weights, this rank's data shard, and the result so far.
// Building it is the set-up half of train_rank(); the epochs (epoch.h) and the strategy's
// exchange read and update it. What it deliberately does not do: run steps or log.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/comm/communicator.h"
#include "harness/train/gpu_placement.h"
#include "harness/data/dataset.h"
#include "harness/data/sampler.h"
#include "harness/strategy/strategy.h"
#include "harness/train/step_io.h"
#include "harness/train/trace.h"
#include "harness/train/train_config.h"
#include "harness/train/train_result.h"
#include "models/model.h"
#include "models/spec.h"

namespace scalebench {

// Samples held out for validation (the last ones of the file), and the check that the rest holds
// one global batch of `workers` workers — run before any thread or rank is started for them.
std::int64_t held_out_samples(const TrainConfig& cfg, std::int64_t n);
void require_one_global_batch(const TrainConfig& cfg, std::int64_t n, int workers);
// The inputs a rank checks on its own before it builds anything: the data file opens and the model
// fits its task and shapes. Throws the Error RankState's constructor would (train_rank runs it
// collectively first, so a missing file is one line for the job).
void check_rank_inputs(const TrainConfig& cfg, int workers);
// The data-parallel workers a rank's job has (mirrored: its threads; parameter servers: less the server).
int workers_of_rank(const TrainConfig& cfg, const comm::Communicator* comm);

struct RankState {
  // Throws scalebench::Error naming the option or file when the data cannot train this model with
  // this many workers (fewer samples than one global batch, say).
  // `provenance` (null: none) goes into the --trace file (trace.h).
  RankState(const TrainConfig& cfg, comm::Communicator* comm, const trace::Provenance* provenance = nullptr);

  bool is_server() const { return worker < 0; }    // a parameter-server rank serves instead of training
  bool reports() const { return rank == 0; }       // logs, evaluates, observes

  const TrainConfig& cfg;
  const int rank;
  std::unique_ptr<trace::Trace> trace;     // --trace, else null
  data::Dataset ds;
  const data::DatasetInfo& info;
  const std::int64_t n_val, n_train;       // held out: the last n_val samples
  const ModelSpec spec;
  const RankPlacement placement;           // the GPU, and whether the exchange is staged (gpu_placement.h)
  StepIO io;
  Model model;
  std::unique_ptr<comm::Communicator> staged;  // placement.staged: the transport the strategy uses, else null
  std::unique_ptr<Strategy> strategy;
  const int workers, worker;               // worker: this rank's replica index, -1 on a server
  const data::SamplerConfig shard;
  const std::int64_t steps;                // per epoch: the shard's batches, capped by --max-steps
  const LrSchedule sched;
  Optimizer opt;
  const std::vector<float> class_weights;
  TrainResult result;                      // the set-up fields are filled here; epochs append
};

}  // namespace scalebench
