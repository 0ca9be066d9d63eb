// train_rank.cpp — one rank's training: data shard → forward → loss → backward → strategy
// exchange + update, per-epoch aggregation over workers (epoch time = max, loss = mean), and
// validation, logging and observing on rank 0. A parameter-server rank serves instead of training.
// Preemption (preemption.h): after a step, workers agree whether to stop (every step on armed runs
// or where the agreement is free, else after each epoch's last step) and leave together.
#include "harness/train/train_rank.h"

#include <cmath>
#include <fstream>
#include <ostream>

#include "harness/comm/consistency.h"
#include "harness/data/loader.h"
#include "harness/strategy/strategy.h"
#include "harness/train/evaluate.h"
#include "harness/train/preemption.h"
#include "harness/train/step_io.h"
#if SCALEBENCH_HAVE_CUDA
#include "harness/comm/nccl/comm.h"
#endif
#include "kernels/cpu/blas_threads.h"
#include "models/loss.h"
#include "models/spec.h"

namespace scalebench {
namespace {

std::string format_iou(const std::vector<double>& iou, const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t c = 1; c < iou.size(); ++c)
    s += fmt::format("{} {:.3f}  ", c < names.size() ? names[c] : std::to_string(c), iou[c]);
  return s;
}

// --dump-weights: the weights as raw float32, <path>.init.rank<r> after start() and
// <path>.rank<r> at the end (tests compare strategies with them).
void dump_weights(const std::string& path, int rank, Model& m, StepIO& io) {
  const std::string file = fmt::format("{}.rank{}", path, rank);
  const Tensor w = io.host_params(m);
  std::ofstream f(file, std::ios::binary);
  f.write(reinterpret_cast<const char*>(w.f32()), std::streamsize(m.param_count() * sizeof(float)));
  SB_REQUIRE(f.good(), "--dump-weights: cannot write {}", file);
}

}  // namespace

TrainResult train_rank(const TrainConfig& cfg, comm::Communicator* comm, std::ostream& log, TrainObserver* observer) {
  const int rank = comm ? comm->rank() : 0;
  install_preemption_handler();  // after MPI_Init, which may have installed its own handlers
  if (comm) comm::check_same_everywhere(*comm, "configuration", cfg.canonical_text());
  data::Dataset ds(cfg.data);
  const auto& info = ds.info();
  const std::int64_t n_val = std::max<std::int64_t>(1, std::llround(double(info.n) * cfg.val_fraction));
  const std::int64_t n_train = info.n - n_val;

  const ModelSpec spec = parse_model_spec(cfg.model);
  const DataShape shape{info.channels, info.height, info.width, info.classes};
  int device = 0;  // cuda: the rank's GPU is its NCCL communicator's (one process per GPU, or one thread)
#if SCALEBENCH_HAVE_CUDA
  if (comm && std::string(comm->transport()) == "nccl") device = comm::nccl_device(*comm);
#endif
  StepIO io(cfg, device);
  Model model(build_model_graph(spec, shape), io.backend(), cfg.seed, io.gpu());
  model.setup({cfg.batch, info.channels, info.height, info.width});
  auto strategy = make_strategy({.name = cfg.strategy, .bucket_mb = cfg.bucket_mb, .overlap = !cfg.no_overlap,
                                 .ranks_per_node = cfg.ranks_per_node, .staleness = cfg.staleness,
                                 .compression = cfg.compression},
                                comm, model.param_count());
  const int workers = strategy->workers(), worker = strategy->worker_index();
  SB_REQUIRE(n_train >= std::int64_t(cfg.batch) * workers,
             "{}: {} training samples (after holding out {}) are fewer than one global batch ({} x {})", cfg.data,
             n_train, n_val, workers, cfg.batch);

  TrainResult result;
  result.task = data::to_string(info.task);
  result.class_names = info.class_names;
  result.canonical_model = canonical_spec(spec, shape);
  result.params = model.param_count();
  result.train_flops_per_image = model.train_flops_per_image();
  result.world = comm ? comm->size() : 1;
  result.workers = workers;
  result.global_batch = std::int64_t(cfg.batch) * workers;
  result.comm_bytes_per_step = strategy->bytes_per_step();

  const data::SamplerConfig shard{.begin = 0, .end = n_train, .world = workers, .rank = std::max(worker, 0),
                                  .seed = cfg.seed};
  result.steps_per_epoch = data::ShardedSampler(shard).per_rank() / cfg.batch;
  const std::int64_t steps = cfg.max_steps ? std::min(cfg.max_steps, result.steps_per_epoch) : result.steps_per_epoch;
  result.epoch_steps = steps;
  LrSchedule sched{.base_lr = cfg.lr, .scaling = parse_lr_scaling(cfg.lr_scaling), .world = workers,
                   .warmup_epochs = cfg.warmup_epochs, .decay = cfg.lr_decay, .steps_per_epoch = steps,
                   .epochs = cfg.epochs};
  sched.validate();
  result.peak_lr = sched.peak_lr();
  Optimizer opt({.kind = cfg.optimizer, .momentum = float(cfg.momentum), .weight_decay = float(cfg.weight_decay)},
                model.param_count(), io.gpu());
  const std::vector<float> class_weights = resolve_class_weights(cfg.class_weights, ds, n_train);

  log << fmt::format("train: {} ({} params, {:.2f} GFLOP/image/step) on {} [{} x {}x{}x{}, {} classes]\n",
                     result.canonical_model, result.params, result.train_flops_per_image / 1e9, cfg.data, info.n,
                     info.channels, info.height, info.width, info.classes)
      << fmt::format("train: strategy {} with {} worker(s) of {} rank(s), global batch {} ({} per worker), "
                     "{} train / {} held out, {} steps/epoch, lr {} ({}), {} BLAS threads\n",
                     cfg.strategy, workers, result.world, result.global_batch, cfg.batch, n_train, n_val, steps,
                     sched.peak_lr(), cfg.optimizer, cpu::blas_threads())
      << std::flush;
  if (observer) observer->on_start(result);
  strategy->start(model);

  if (worker < 0) {  // a parameter-server rank
    strategy->serve(model, opt, sched, steps * cfg.epochs, [] { return preemption_signalled(); });
    strategy->finish(model);
    return result;
  }

  if (!cfg.dump_weights.empty()) dump_weights(cfg.dump_weights + ".init", rank, model, io);
  data::DataLoader loader(cfg.data, shard, cfg.batch);
  std::vector<StepRow> rows;  // this epoch's steps, for the observer
  Ctx ctx{.backend = io.backend(), .reference = cfg.reference_kernels, .seed = cfg.seed, .step = 0,
          .sample_offset = worker, .sample_stride = workers};
  Tensor dlogits;
  data::Batch batch;
  const bool agree_every_step = preemption_armed() || strategy->agree_stop_is_free();
  bool stop = false;
  for (int epoch = 1; epoch <= cfg.epochs && !stop; ++epoch) {
    EpochResult er;
    er.epoch = epoch;
    er.warmup = epoch == 1;
    loader.start_epoch(epoch - 1);
    Stopwatch epoch_clock, progress_clock;
    double loss_sum = 0;
    rows.clear();
    for (std::int64_t s = 0; s < steps; ++s) {
      Stopwatch sw;
      StepTimes t;
      SB_CHECK(loader.next(batch), "loader ended after {} of {} batches", s, steps);
      t.data = sw.lap();
      const Tensor x = Tensor::view(batch.images.data(), {batch.size, info.channels, info.height, info.width});
      const Tensor& logits = model.forward(ctx, io.input(x), /*training=*/true);
      const auto y = labels_for_logits(batch.labels, x.shape(), logits.shape(), info);
      const double loss = io.loss(logits, y, class_weights, &dlogits);  // cuda: waits for the forward
      SB_REQUIRE(std::isfinite(loss), "training diverged on rank {}: loss is {} at epoch {} step {} (lower --lr?)",
                 rank, loss, epoch, s + 1);
      t.fwd = sw.lap();
      strategy->before_backward(model);
      model.backward(ctx, dlogits);
      t.bwd = sw.lap();
      er.lr = sched.at(ctx.step);
      const StepExchange xch = strategy->after_backward(model, opt, float(er.lr));
      t.comm_exposed = xch.comm_exposed;
      t.update = xch.update;
      ++ctx.step;
      er.time += t;
      rows.push_back({.epoch = epoch, .step = s + 1, .loss = loss, .time = t});
      loss_sum += loss;
      er.images += batch.size;
      if (progress_clock.elapsed() >= cfg.progress_seconds && s + 1 < steps) {
        log << fmt::format("  epoch {}/{} step {}/{}  loss {:.4f}  {:.1f} images/s\n", epoch, cfg.epochs, s + 1,
                           steps, loss_sum / double(s + 1), double(er.images * workers) / epoch_clock.elapsed())
            << std::flush;
        progress_clock.lap();
      }
      // Outside the step's timed phases: all workers stop after the same step or none does.
      if (agree_every_step || s + 1 == steps) stop = strategy->agree_stop(preemption_signalled());
      if (stop) {
        if (epoch < cfg.epochs || s + 1 < steps)  // on the run's very last step a stop is just the end
          result.preempted = true, result.preempted_epoch = epoch, result.preempted_step = s + 1;
        break;
      }
    }
    if (result.preempted && result.preempted_step < steps) {  // mid-epoch: no epoch row, the steps are kept
      if (rank == 0) result.partial_steps = std::move(rows);
      break;
    }
    // The epoch ends when the slowest worker ends; the loss is the mean over every worker's steps.
    er.wall_s = strategy->max_over_workers(epoch_clock.elapsed());
    er.train_loss = strategy->sum_over_workers(loss_sum) / double(steps * workers);
    er.images *= workers;
    er.images_per_s = double(er.images) / er.wall_s;
    if (rank != 0) continue;  // `stop` ends the loop here too

    const EvalResult ev = evaluate(model, ctx, io, ds, n_train, info.n, cfg.batch, class_weights);
    er.val_loss = ev.loss;
    er.val_iou = ev.confusion.iou_all();
    er.val_miou = ev.confusion.mean_iou_non_background();
    er.val_accuracy = ev.confusion.accuracy();
    const std::string quality = info.task == data::Task::segmentation
                                    ? fmt::format("IoU {}mIoU {:.3f}", format_iou(er.val_iou, info.class_names),
                                                  er.val_miou)
                                    : fmt::format("accuracy {:.3f}", er.val_accuracy);
    log << fmt::format("epoch {}/{}  loss {:.4f}  val_loss {:.4f}  {}  {:.1f} images/s  lr {:.4g}  ({:.1f} s)\n",
                       epoch, cfg.epochs, er.train_loss, er.val_loss, quality, er.images_per_s, er.lr, er.wall_s)
        << std::flush;
    if (observer) observer->on_epoch(er, rows);
    result.epochs.push_back(std::move(er));
  }
  strategy->finish(model);
  result.strategy_summary = strategy->summary();
  if (!cfg.dump_weights.empty()) dump_weights(cfg.dump_weights, rank, model, io);
  if (rank != 0 || result.preempted) return result;  // the caller reports a preemption
  if (!result.strategy_summary.empty()) log << result.strategy_summary << "\n";
  const auto& last = result.epochs.back();
  if (info.task == data::Task::segmentation)
    log << fmt::format("final: held-out mean non-background IoU {:.3f} ({})\n", last.val_miou,
                       format_iou(last.val_iou, info.class_names));
  else
    log << fmt::format("final: held-out accuracy {:.3f}\n", last.val_accuracy);
  return result;
}

}  // namespace scalebench
