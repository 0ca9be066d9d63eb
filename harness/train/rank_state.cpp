// rank_state.cpp — the set-up of one rank (see rank_state.h).
#include "harness/train/rank_state.h"

#include <algorithm>
#include <cmath>

#include "harness/train/evaluate.h"
#include "harness/train/late_steps.h"
#include "harness/train/model_check.h"

namespace scalebench {
namespace {

// Sizes the model's buffers for the batch; returns its parameter count (what the strategy's
// buckets and the optimizer's state are sized by).
std::int64_t set_up_model(Model& m, const TrainConfig& cfg, const data::DatasetInfo& info) {
  m.setup({cfg.batch, info.channels, info.height, info.width});
  return m.param_count();
}

// A target names its task's metric: --target-miou for segmentation, --target-accuracy for
// classification. (Pixel accuracy on segmentation data is dominated by the background, so a run
// "reached" it long before its mIoU meant anything; it was accepted without a word.)
void check_target_fits(const TrainConfig& cfg, const data::DatasetInfo& info) {
  const bool seg = info.task == data::Task::segmentation;
  SB_REQUIRE(cfg.target_miou == 0 || seg, "--target-miou {}: {} holds {} data, which has no mIoU; use --target-accuracy",
             cfg.target_miou, cfg.data, to_string(info.task));
  SB_REQUIRE(cfg.target_accuracy == 0 || !seg,
             "--target-accuracy {}: {} holds {} data, whose target is its mIoU; use --target-miou",
             cfg.target_accuracy, cfg.data, to_string(info.task));
}

// The model spec, checked against the dataset's task and shapes before anything is built from it
// (a VGG on segmentation labels, a U-Net on class labels would read out of bounds), and the
// target option against the task.
ModelSpec fitted_spec(const TrainConfig& cfg, const data::DatasetInfo& info) {
  check_target_fits(cfg, info);
  ModelSpec spec = parse_model_spec(cfg.model);
  check_model_fits(spec, info, cfg.data);
  return spec;
}

std::int64_t steps_per_epoch(const TrainConfig& cfg, const data::SamplerConfig& shard) {
  const std::int64_t full = data::ShardedSampler(shard).per_rank() / (std::int64_t(cfg.batch) * cfg.accumulate);
  return cfg.max_steps ? std::min(cfg.max_steps, full) : full;
}

// The arena's tensors for LARS / LAMB: biases and batch-norm parameters (rank 1) keep trust 1.
std::vector<ParamTensor> param_tensors(const Model& m) {
  std::vector<ParamTensor> out;
  for (const auto& p : m.param_info()) out.push_back({p.offset, numel(p.shape), p.shape.size() > 1});
  return out;
}

}  // namespace

std::int64_t held_out_samples(const TrainConfig& cfg, std::int64_t n) {
  return std::max<std::int64_t>(1, std::llround(double(n) * cfg.val_fraction));
}

void require_one_global_batch(const TrainConfig& cfg, std::int64_t n, int workers) {
  const std::int64_t n_val = held_out_samples(cfg, n), n_train = n - n_val;
  SB_REQUIRE(n_train >= std::int64_t(cfg.batch) * cfg.accumulate * workers,
             "{}: {} training samples (after holding out {}) are fewer than one global batch ({} x {}{})", cfg.data,
             n_train, n_val, workers, cfg.batch, cfg.accumulate > 1 ? fmt::format(" x {}", cfg.accumulate) : "");
}

int workers_of_rank(const TrainConfig& cfg, const comm::Communicator* comm) {
  const int ranks = comm ? comm->size() : 1;
  return workers_of(cfg.strategy, ranks, ranks);  // mirrored: its threads are the devices
}

void check_rank_inputs(const TrainConfig& cfg, int workers) {
  const data::Dataset ds(cfg.data);
  // Before anything is sized for the batch: a batch beyond the data used to allocate activations
  // for it first (--batch 100000 on 58 images: 24 GB, then the OOM killer, nothing printed).
  require_one_global_batch(cfg, ds.info().n, workers);
  fitted_spec(cfg, ds.info());
}

RankState::RankState(const TrainConfig& c, comm::Communicator* comm, const trace::Provenance* provenance)
    : cfg(c),
      rank(comm ? comm->rank() : 0),
      trace(c.trace.empty() ? nullptr
                            : std::make_unique<trace::Trace>(
                                  trace::trace_path_for_rank(c.trace, rank, comm ? comm->size() : 1), rank,
                                  provenance ? *provenance : trace::Provenance{})),
      ds(c.data),
      info(ds.info()),
      n_val(held_out_samples(c, info.n)),
      n_train(info.n - n_val),
      spec((require_one_global_batch(c, info.n, workers_of_rank(c, comm)), fitted_spec(c, info))),
      placement(place_rank(c, comm)),
      io(c, placement.gpu),
      model(build_model_graph(spec, {info.channels, info.height, info.width, info.classes}), io.device(), c.seed),
      staged(placement.staged ? stage(*comm, io.device(), c) : nullptr),
      strategy(make_strategy({.kind = c.strategy, .bucket_mb = c.bucket_mb, .overlap = !c.no_overlap,
                              .ranks_per_node = c.ranks_per_node, .staleness = c.staleness,
                              .compression = c.compression,
                              .skip_nonfinite = c.on_nonfinite == NonFinitePolicy::skip,
                              .max_nonfinite_skips = c.nonfinite_skips, .sync_bn = c.sync_bn,
                              .scan_late = late_steps_apply(c), .on_bucket = trace::bucket_observer(trace.get())},
                             staged ? staged.get() : comm, set_up_model(model, c, info))),
      workers(strategy->workers()),
      worker(strategy->worker_index()),
      shard{.begin = 0, .end = n_train, .world = workers, .rank = std::max(worker, 0), .seed = c.seed},
      steps(steps_per_epoch(c, shard)),
      sched{.base_lr = c.lr, .scaling = c.lr_scaling, .world = workers, .warmup_epochs = c.warmup_epochs,
            .decay = c.lr_decay, .steps_per_epoch = steps, .epochs = c.epochs},
      opt({.kind = c.optimizer, .momentum = float(c.momentum), .weight_decay = float(c.weight_decay),
           .tensors = param_tensors(model)},
          model.param_count(), &io.device()),
      class_weights(resolve_class_weights(c.class_weights, ds, n_train)) {
  SB_CHECK(workers == workers_of_rank(c, comm), "the strategy has {} workers, its traits say {}", workers,
           workers_of_rank(c, comm));  // the batch was checked for the traits' count, before any allocation
  sched.validate();
  result.task = data::to_string(info.task);
  result.class_names = info.class_names;
  result.canonical_model = canonical_spec(spec, {info.channels, info.height, info.width, info.classes});
  result.params = model.param_count();
  result.train_flops_per_image = model.train_flops_per_image();
  result.world = comm ? comm->size() : 1;
  result.transport = describe_transport(comm, placement);
  result.gpu_shared = placement.shared;
  result.workers = workers;
  result.global_batch = std::int64_t(cfg.batch) * cfg.accumulate * workers;
  result.comm_bytes_per_step = strategy->bytes_per_step();
  result.steps_per_epoch = data::ShardedSampler(shard).per_rank() / (std::int64_t(cfg.batch) * cfg.accumulate);
  result.epoch_steps = steps;
  result.peak_lr = sched.peak_lr();
}

}  // namespace scalebench
