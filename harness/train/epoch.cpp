// epoch.cpp — one epoch's steps and its close (see epoch.h); the --cuda-graph step is epoch_graph.cpp.
#include "harness/train/epoch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>

#include "harness/train/evaluate.h"
#include "harness/train/preemption.h"
#include "harness/train/trace.h"
#include "harness/train/turn_gate.h"
#include "kernels/cpu/nonfinite.h"

namespace scalebench {
namespace {

std::string format_iou(const std::vector<double>& iou, const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t c = 1; c < iou.size(); ++c)
    s += fmt::format("{} {:.3f}  ", c < names.size() ? names[c] : std::to_string(c), iou[c]);
  return s;
}

// "ETA 1m05s": what is left at the rate so far (validation passes are not in a step's rate).
std::string eta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "ETA -";
  const auto s = std::int64_t(std::llround(seconds));
  if (s >= 3600) return fmt::format("ETA {}h{:02}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("ETA {}m{:02}s", s / 60, s % 60);
  return fmt::format("ETA {}s", s);
}

}  // namespace

std::string format_quality(const EpochResult& er, const data::DatasetInfo& info) {
  return info.task == data::Task::segmentation
             ? fmt::format("IoU {}mIoU {:.3f}", format_iou(er.val_iou, info.class_names), er.val_miou)
             : fmt::format("accuracy {:.3f}", er.val_accuracy);
}

std::string format_final(const EpochResult& last, const data::DatasetInfo& info) {
  return info.task == data::Task::segmentation
             ? fmt::format("final: held-out mean non-background IoU {:.3f} ({})", last.val_miou,
                           format_iou(last.val_iou, info.class_names))
             : fmt::format("final: held-out accuracy {:.3f}", last.val_accuracy);
}

EpochRunner::EpochRunner(RankState& st, std::ostream& log)
    : st_(st),
      log_(log),
      loader_(st.cfg.data, st.shard, st.cfg.batch * st.cfg.accumulate),  // K micro-batches at once
      ctx_{.backend = st.io.backend(), .reference = st.cfg.reference_kernels, .cpu_kernels = st.cfg.cpu_kernels, .seed = st.cfg.seed, .step = 0,
           .sample_offset = st.worker, .sample_stride = st.workers, .replica_sum = st.strategy->replica_sum()} {
  if (late_steps_apply(st.cfg)) {
    late_reads_ = make_late_reads(st.io.device(), LateSteps::kMarks);
    SB_CHECK(late_reads_ != nullptr, "this device reads nothing late, yet the strategy was told to scan late");
    late_.emplace(*late_reads_);
  }
  if (st.cfg.has_target()) {
    st.result.target = st.cfg.target_miou > 0 ? TargetTracker("val_miou", st.cfg.target_miou)
                                              : TargetTracker("val_accuracy", st.cfg.target_accuracy);
  }
  if (!st.trace) return;
  // Backward per layer: the model's hook fires as each layer with parameters has its gradient; the
  // span since the previous one is that layer's (and any parameter-free layers' after it in
  // backward order). The strategy's own hook (its buckets) still runs, after the span is taken.
  std::map<int, std::string> names;
  for (const auto& p : st.model.param_info()) names.emplace(p.node, p.name.substr(0, p.name.rfind('.')));
  // Forward per node (every node, parameters or not), named as the graph names it.
  st.model.set_forward_hook([this](int node) {
    const auto now = trace::Clock::now();
    st_.trace->add(trace::SpanCat::forward, st_.model.graph().nodes[std::size_t(node)].name, layer_mark_, now);
    layer_mark_ = now;
  });
  st.model.set_backward_hook([this, names = std::move(names), next = st.model.backward_hook()](
                                 int node, std::int64_t b, std::int64_t e) {
    const auto now = trace::Clock::now();
    const auto it = names.find(node);
    st_.trace->add(trace::SpanCat::layer, it == names.end() ? std::to_string(node) : it->second, layer_mark_, now,
                   trace::kTrainRow, {{"begin", b}, {"end", e}});
    layer_mark_ = now;
    if (next) next(node, b, e);
  });
}

// The step's phases as spans laid end to end from the step's start, with exactly the durations
// the run file records (so the timeline's per-phase sums are the run file's).
void EpochRunner::trace_step(trace::Clock::time_point t0, const StepTimes& t, std::int64_t step) const {
  auto at = t0;
  const auto span = [&](trace::Phase p, double s) {
    const auto end = at + std::chrono::duration_cast<trace::Clock::duration>(std::chrono::duration<double>(s));
    st_.trace->add(trace::SpanCat::phase, trace::kPhaseNames[std::size_t(p)], at, end);
    at = end;
  };
  st_.trace->add(trace::SpanCat::step, std::to_string(step), t0,
                 t0 + std::chrono::duration_cast<trace::Clock::duration>(std::chrono::duration<double>(t.total())));
  span(trace::Phase::data, t.data);
  span(trace::Phase::forward, t.fwd);
  span(trace::Phase::backward, t.bwd);
  span(trace::Phase::exchange, t.comm_exposed);
  span(trace::Phase::optimizer, t.update);
}

StepHealth EpochRunner::check_step(double loss, const Tensor& x) const {
  using I = StepHealth::Issue;
  if (!std::isfinite(loss)) return {.bad = true, .issue = I::loss_not_finite, .where = fmt::format("loss {}", loss)};
  if (loss > st_.cfg.max_loss)
    return {.bad = true, .issue = I::loss_diverged, .where = fmt::format("loss {:.4g} above --max-loss {}", loss, st_.cfg.max_loss)};
  if (st_.cfg.check_inputs)
    if (const NonFinite nf = cpu::first_nonfinite(x.f32(), x.numel()); nf.index >= 0)
      return {.bad = true, .issue = I::input_not_finite,
              .where = fmt::format("input batch element {} is {}", nf.index, nf.value)};
  return {};
}

void EpochRunner::save_buffers() {
  ComputeDevice& dev = st_.model.device();
  const auto bufs = st_.model.buffers();
  if (saved_buffers_.size() != bufs.size()) {
    saved_buffers_.clear();
    for (const auto& [name, t] : bufs) saved_buffers_.push_back(dev.zeros(t->shape(), t->dtype(), t->layout()));
  }
  for (std::size_t i = 0; i < bufs.size(); ++i) dev.copy(*bufs[i].second, saved_buffers_[i]);
}

void EpochRunner::restore_buffers() {
  ComputeDevice& dev = st_.model.device();
  const auto bufs = st_.model.buffers();
  for (std::size_t i = 0; i < saved_buffers_.size() && i < bufs.size(); ++i) dev.copy(saved_buffers_[i], *bufs[i].second);
}

void EpochRunner::on_nonfinite(const StepExchange& x, int epoch, std::int64_t step) {
  const std::string what = fmt::format(
      "non-finite training at epoch {} step {}: {}{}", epoch, step,
      x.bad_rank >= 0 ? fmt::format("rank {}", x.bad_rank) : std::string("the exchanged gradient"),
      x.where.empty() ? "" : ": " + x.where);
  ++st_.result.nonfinite_skipped;
  if (!x.skipped) {  // the parameter server skips (or fails) on its own; the others decide here
    SB_REQUIRE(st_.cfg.on_nonfinite == NonFinitePolicy::skip, "{} (--on-nonfinite fail; skip to skip such steps)",
               what);
    SB_REQUIRE(++consecutive_skips_ <= st_.cfg.nonfinite_skips,
               "{}: {} skipped steps in a row (--nonfinite-skips {})", what, consecutive_skips_, st_.cfg.nonfinite_skips);
  }
  if (st_.reports()) log_ << "  skipped: " << what << "\n" << std::flush;
}

// The epoch's clocks: its training time leaves out the checkpoint writes and the mid-epoch target
// checks of this launch, and a resumed epoch adds the time it had before its checkpoint.
struct EpochRunner::EpochTime {
  EpochTime(double before, std::int64_t first_step) : before(before), first_step(first_step) {}
  double training() const { return before + clock.elapsed() - checkpoint_s - eval_s - turn_s; }
  double computing() const { return clock.elapsed() - turn_s; }  // this launch's, for the progress line
  const double before;              // a resumed epoch's time before its checkpoint
  const std::int64_t first_step;    // a resumed epoch's rate counts the steps run here
  Stopwatch clock, progress;
  double checkpoint_s = 0;          // this launch's checkpoint writes in the epoch: not training time
  double eval_s = 0;                // nor are its mid-epoch target checks (--eval-every-steps)
  double turn_s = 0;                // nor its waits for the other side of an A/B pair (turn_gate.h)
};

EpochProgress EpochRunner::run_steps(int epoch) {
  double wall_before = 0;
  EpochProgress o = start_epoch(epoch, wall_before);
  EpochTime time(wall_before, o.steps_done);
  for (std::int64_t s = o.steps_done; s < st_.steps; ++s) {
    if (TurnGate* gate = turn_gate()) time.turn_s += gate->wait();
    signal_in_step_for_tests(ctx_.step + 1);
    sleep_in_step_for_tests();
    const StepExchange xch = train_step(o, s);
    log_progress(o, time);
    agree_stop(o);
    const std::int64_t evaluated_before = eval_step_;
    check_target_if_due(o, time);
    if (eval_step_ != evaluated_before) reset_graph();  // evaluation may have re-sized the model's buffers
    checkpoint_if_due(o, xch.checkpoint, time);
    if (st_.reports()) kill_after_step_for_tests(ctx_.step);
    if (o.stop) break;
  }
  settle_late_steps(o);  // the epoch's last step's phases and scan
  if (late_row_ >= 0) settle_late_loss(o, st_.io.device().softmax_xent_last());  // the epoch's last step
  o.epoch.wall_s = time.training();
  return o;
}

EpochProgress EpochRunner::start_epoch(int epoch, double& wall_before) {
  EpochProgress o;
  o.epoch.epoch = epoch;
  o.epoch.warmup = epoch == 1;
  loader_.start_epoch(epoch - 1);
  reset_graph();  // the previous epoch's close evaluated: the model's buffers may have been re-sized
  late_row_ = -1;
  if (resumed_ && resumed_->epoch.epoch == epoch) {
    o = std::move(*resumed_);
    wall_before = resumed_wall_s_;
    for (std::int64_t s = 0; s < o.steps_done; ++s)  // the sampler is a pure function of (seed, epoch)
      SB_CHECK(loader_.next(batch_), "loader ended after {} of {} batches", s, st_.steps);
  }
  resumed_.reset();
  return o;
}

void EpochRunner::split_replay(double both, StepTimes& t) const {
  const double fwd = graph_->split_seconds();  // NaN where the events cannot be read
  t.fwd = std::isfinite(fwd) ? std::min(fwd, both) : both;
  t.bwd = both - t.fwd;
}

// One optimizer step, in the order it runs: the batch, then for each micro-batch its forward, loss
// and backward, then the exchange with the optimizer's update, then its record.
// Phases on the device's timeline (CUDA events on GPUs): each lap waits for the work its phase
// queued, so a phase's device time is not counted in the next one. The phases add up to the
// step's time from the clock's start, where its trace span starts too.
StepExchange EpochRunner::train_step(EpochProgress& o, std::int64_t s) {
  if (late_) return late_step(o, s);  // the same order, no wait for the device (epoch_late.cpp)
  DeviceClock sw(st_.io.device());
  const auto step_t0 = sw.started();
  StepTimes t;
  next_batch(s);
  t.data = sw.lap();
  if (st_.cfg.on_nonfinite == NonFinitePolicy::skip) save_buffers();
  StepLoss loss;
  if (!graph_decided_) decide_graph();
  if (graph_) {
    const bool replayed = graph_step(micro_batch(0), loss, [&] { t.fwd = sw.lap(); }, [&] { t.bwd = sw.lap(); });
    if (replayed) split_replay(t.bwd, t);  // forward and backward were one launch, timed by the last lap
    settle_late_loss(o, loss.value);  // the previous step's
    loss.value = std::numeric_limits<double>::quiet_NaN();  // this step's, read at the next
  }
  for (int m = 0; !graph_ && m < st_.cfg.accumulate; ++m) {
    const MicroBatch mb = micro_batch(m);
    const Tensor& logits = forward(mb);
    add_loss(logits, mb, loss);
    t.fwd += sw.lap();
    backward(m);
    t.bwd += sw.lap();
  }
  const StepExchange xch = exchange_and_update(o, loss.health);
  time_update(sw.lap(), xch, t);
  ++ctx_.step;  // the optimizer's step count, which the schedule, dropout and checkpoints follow
  record_step(o, s, loss.value, t, xch, step_t0);
  return xch;
}

void EpochRunner::next_batch(std::int64_t s) {
  SB_CHECK(loader_.next(batch_), "loader ended after {} of {} batches", s, st_.steps);
}

// --accumulate K: the loader dealt K micro-batches of --batch; each loss is scaled by 1/K and the
// gradients summed (Model::backward), so the step trains the mean over all K·b samples.
EpochRunner::MicroBatch EpochRunner::micro_batch(int m) {
  const auto& info = st_.info;
  const int mb = batch_.size / st_.cfg.accumulate;
  const std::int64_t image_floats = std::int64_t(info.channels) * info.height * info.width;
  const std::size_t label_values = batch_.labels.size() / std::size_t(batch_.size);
  const auto first = batch_.labels.begin() + std::ptrdiff_t(std::size_t(m * mb) * label_values);
  return {.index = m,
          .size = mb,
          .x = Tensor::view(batch_.images.data() + m * mb * image_floats,
                            {mb, info.channels, info.height, info.width}),
          .labels = std::vector<std::int32_t>(first, first + std::ptrdiff_t(mb * label_values))};
}

const Tensor& EpochRunner::forward(const MicroBatch& mb) {
  // Dropout draws at the global position: local sample m·b + i of this worker's K·b.
  ctx_.sample_offset = std::int64_t(st_.worker) + std::int64_t(st_.workers) * mb.index * mb.size;
  layer_mark_ = trace::Clock::now();  // --trace: the first node's forward span starts here
  return st_.model.forward(ctx_, st_.io.input(mb.x), /*training=*/true);
}

// The micro-batch's loss (its mean over the step's, 1/K of it) and its gradient in dlogits_, and
// this worker's check of it before the exchange.
void EpochRunner::add_loss(const Tensor& logits, const MicroBatch& mb, StepLoss& step) {
  const int micro = st_.cfg.accumulate;
  const auto y = labels_for_logits(mb.labels, mb.x.shape(), logits.shape(), st_.info);
  const double micro_loss = st_.io.loss(logits, y, st_.class_weights, &dlogits_);  // cuda: waits for the forward
  if (!step.health.bad) step.health = check_step(micro_loss, mb.x);
  step.value += micro_loss / micro;
  if (micro > 1) st_.io.device().scale(dlogits_, 1.0f / float(micro));
}

void EpochRunner::backward(int m) {
  const bool last = m + 1 == st_.cfg.accumulate;
  if (last) st_.strategy->before_backward(st_.model);
  layer_mark_ = trace::Clock::now();
  st_.model.backward(ctx_, dlogits_, /*last_micro_batch=*/last);
  if (!last) st_.strategy->after_micro_batch(st_.model);  // reads this micro-batch's gradient
}

// The strategy exchanges the gradients and applies the optimizer (on a parameter server, the
// server applies it inside the exchange), unless some worker's step was not finite. The step's
// health carries this rank's stop and checkpoint requests to the other workers.
StepExchange EpochRunner::exchange_and_update(EpochProgress& o, StepHealth& health) {
  health.stop_wanted = preemption_signal();
  health.checkpoint_wanted = st_.rank == 0 && st_.cfg.checkpoint_minutes > 0 &&
                             since_checkpoint_.elapsed() >= st_.cfg.checkpoint_minutes * 60;
  o.epoch.lr = st_.sched.at(ctx_.step);
  return st_.strategy->after_backward(st_.model, st_.opt, float(o.epoch.lr), health);
}

// Everything after backward that is not the exposed exchange is the update phase: the optimizer
// and the strategy's own bookkeeping, and also the checks between backward and the strategy
// (a thread descheduled there under load). Taking the strategy's update timer alone left that
// time out of every phase, so the step span ended before a late bucket's allreduce did.
void EpochRunner::time_update(double after_backward, const StepExchange& xch, StepTimes& t) {
  t.comm_exposed = xch.comm_exposed;
  // On the CPU both timers ran inside this lap, so this is >= xch.update; on a GPU the lap is device
  // time and the exposed wait host time, hence the floor.
  t.update = std::max(0.0, after_backward - xch.comm_exposed);
}

// The step into the epoch's sums and rows (and the trace); a non-finite step is skipped or fails.
void EpochRunner::record_step(EpochProgress& o, std::int64_t s, double loss, const StepTimes& t, const StepExchange& xch,
                              trace::Clock::time_point step_t0) {
  if (st_.trace) trace_step(step_t0, t, ctx_.step);
  o.epoch.time += t;
  o.rows.push_back({.epoch = o.epoch.epoch, .step = s + 1, .loss = loss, .time = t, .segment = segment_});
  if (xch.nonfinite) {
    on_nonfinite(xch, o.epoch.epoch, s + 1);  // throws under --on-nonfinite fail
    restore_buffers();
  } else {
    consecutive_skips_ = 0;
    o.noise.add(xch.norms);
    if (!late_loss()) {
      o.loss_sum += loss;
      ++o.loss_steps;
    }
  }
  if (late_loss()) {  // the loss arrives with the next step (settle_late_loss)
    late_row_ = std::int64_t(o.rows.size()) - 1;
    late_row_skipped_ = xch.nonfinite;
  }
  o.epoch.images += batch_.size;
  o.steps_done = s + 1;
}

// A step line at most every --progress-seconds (none after the epoch's last step).
void EpochRunner::log_progress(const EpochProgress& o, EpochTime& time) {
  const TrainConfig& cfg = st_.cfg;
  if (time.progress.elapsed() < cfg.progress_seconds || o.steps_done >= st_.steps) return;
  const double per_step = time.computing() / double(o.steps_done - time.first_step);
  const double left = double(st_.steps - o.steps_done + st_.steps * std::int64_t(cfg.epochs - o.epoch.epoch)) * per_step;
  log_ << fmt::format("  epoch {}/{} step {}/{}  loss {:.4f}  {:.1f} images/s  {}\n", o.epoch.epoch, cfg.epochs,
                      o.steps_done, st_.steps, o.loss_sum / double(o.steps_done),
                      double(o.epoch.images * st_.workers) / time.computing(), eta(left))
       << std::flush;
  time.progress.lap();
}

// All workers stop after the same step or none does (the exchange carried the requests).
void EpochRunner::agree_stop(EpochProgress& o) {
  o.stop_signal = st_.strategy->agree_stop(preemption_signal());
  o.stop = o.stop_signal != 0;
}

// A target check between epochs' closes (the last step's is the close's); the same step on
// every worker, as ctx_.step is. Also when the workers just agreed to stop for a signal: the step
// completed, and a check skipped here is lost for good (the resumed run starts at the next step),
// so a preemption landing on a check step would move steps_to_target. A check reaching the target
// then ends the run ok; one that does not travels in the stop's checkpoint.
void EpochRunner::check_target_if_due(EpochProgress& o, EpochTime& time) {
  const std::int64_t every = st_.cfg.eval_every_steps;
  if (every <= 0 || ctx_.step % every != 0 || o.steps_done >= st_.steps) return;
  settle_late_steps(o);  // before the evaluation re-captures the graph (a replayed step's split)
  Stopwatch eval_clock;
  if (check_target_mid_epoch(o, closed_seconds() + time.training())) end_at_target(o, /*run_ends=*/false);
  time.eval_s += eval_clock.elapsed();
}

// Every worker, after the same step: the target is reached, the run ends here. Short of the run's
// last step a parameter server still waits for the next push (unless a signal's stop, agreed at
// this step, already ended its serving): the strategy tells it in that push's place, so no worker
// trains a step past the check.
void EpochRunner::end_at_target(EpochProgress& o, bool run_ends) {
  if (!run_ends && !o.stop) st_.strategy->end_early(st_.model);
  o.target = o.stop = true;
}

// A periodic checkpoint (--checkpoint-every), or a time-based one the exchange agreed on
// (`agreed`: the same on every worker). None at the target: the run ends here (a crash before
// its record replays to it).
void EpochRunner::checkpoint_if_due(EpochProgress& o, bool agreed, EpochTime& time) {
  const bool periodic = st_.cfg.checkpoint_every > 0 && ctx_.step % st_.cfg.checkpoint_every == 0;
  if (!checkpointing() || !(periodic || agreed) || o.target) return;
  // A step's phases, scan and loss still on their way (late_steps.h, --cuda-graph) into the
  // checkpoint's rows and mean first.
  settle_late_steps(o);
  if (late_row_ >= 0) settle_late_loss(o, st_.io.device().softmax_xent_last());
  o.epoch.wall_s = time.training();
  const double dt = save_checkpoint(o, false);
  time.checkpoint_s += dt;
  o.epoch.checkpoint_s += dt;
  o.rows.back().checkpoint_s = dt;
}

double EpochRunner::epochs_so_far(int epoch, std::int64_t steps_done) const {
  return double(epoch - 1) + double(steps_done) / double(st_.steps);
}

double EpochRunner::closed_seconds() const {
  double t = 0;
  for (const auto& e : st_.result.epochs) t += e.wall_s;
  return t;
}

const EvalResult& EpochRunner::evaluate_now(int epoch) {
  if (eval_step_ != ctx_.step || !eval_) {
    if (TurnGate* gate = turn_gate()) gate->wait();  // not beside the other side's steps (its time is not training's)
    const auto t0 = trace::Clock::now();
    eval_ = evaluate(st_.model, ctx_, st_.io, st_.ds, st_.n_train, st_.info.n, st_.cfg.batch, st_.class_weights);
    eval_step_ = ctx_.step;
    if (st_.trace) st_.trace->add(trace::SpanCat::evaluation, std::to_string(epoch), t0, trace::Clock::now());
  }
  return *eval_;
}

bool EpochRunner::check_target_mid_epoch(const EpochProgress& o, double seconds) {
  bool reached = false;
  if (st_.reports()) {
    const EvalResult& ev = evaluate_now(o.epoch.epoch);
    const double value = st_.result.target.metric() == "val_miou" ? ev.confusion.mean_iou_non_background()
                                                                  : ev.confusion.accuracy();
    reached = st_.result.target.observe({.epoch = o.epoch.epoch, .step = o.steps_done, .global_step = ctx_.step,
                                         .epochs = epochs_so_far(o.epoch.epoch, o.steps_done),
                                         .images = ctx_.step * st_.result.global_batch, .seconds = seconds,
                                         .value = value});
    log_ << fmt::format("  check at step {} (epoch {} step {}): {} {:.4f}{}\n", ctx_.step, o.epoch.epoch,
                        o.steps_done, st_.result.target.metric(), value,
                        !reached ? std::string()
                                  : fmt::format(" >= {}: target reached, every worker stops here",
                                                st_.result.target.target()))
         << std::flush;
  }
  // The reporting rank's verdict, shared: every worker stops after this same step or none does.
  return st_.strategy->max_over_workers(reached ? 1.0 : 0.0) > 0;
}

void EpochRunner::close(EpochProgress& o, TrainObserver* observer) {
  EpochResult& er = o.epoch;
  // The epoch ends when the slowest worker ends; the loss is the mean over every worker's steps.
  er.wall_s = st_.strategy->max_over_workers(er.wall_s);
  // Skipped (non-finite) steps have no loss to average.
  er.train_loss = st_.strategy->sum_over_workers(o.loss_sum) / st_.strategy->sum_over_workers(double(o.loss_steps));
  er.images *= st_.workers;
  er.images_per_s = double(er.images) / er.wall_s;
  // Every worker measured the same norms (the strategies reduce them), so no reduction here.
  const NoiseScale ns = o.noise.estimate(st_.result.global_batch);
  er.grad_noise_trace = ns.trace, er.grad_sq_norm = ns.sq_norm, er.b_simple = ns.b_simple;
  if (st_.reports()) evaluate_and_record(o, observer);
  // Every worker starts the next epoch's clock after the evaluation. Otherwise the others' first
  // exchange of the next epoch waits for rank 0's evaluation, and the max over workers above counts
  // it as training time, which N = 1 never does: measured 117 ms of a 1.9 s epoch at N = 2 (-0.04
  // of scaling efficiency; docs/projection.md). The same scalar carries rank 0's target verdict.
  const bool reached = st_.reports() && st_.result.target.reached();
  const bool agreed = st_.strategy->max_over_workers(reached ? 1.0 : 0.0) > 0;
  const bool run_ends = o.epoch.epoch == st_.cfg.epochs && o.steps_done == st_.steps;
  if (agreed && !o.target) end_at_target(o, run_ends);
}

void EpochRunner::evaluate_and_record(EpochProgress& o, TrainObserver* observer) {
  EpochResult& er = o.epoch;
  Stopwatch eval_clock;
  const EvalResult& ev = evaluate_now(o.epoch.epoch);
  er.val_loss = ev.loss;
  er.val_iou = ev.confusion.iou_all();
  er.val_miou = ev.confusion.mean_iou_non_background();
  er.val_accuracy = ev.confusion.accuracy();
  TargetTracker& target = st_.result.target;
  if (target.active() && target.observe({.epoch = er.epoch, .step = o.steps_done, .global_step = ctx_.step,
                                         .epochs = epochs_so_far(o.epoch.epoch, o.steps_done),
                                         .images = ctx_.step * st_.result.global_batch,
                                         .seconds = closed_seconds() + er.wall_s,
                                         .value = target.metric() == "val_miou" ? er.val_miou : er.val_accuracy}))
    log_ << fmt::format("  target reached at the close of epoch {}: {}\n", er.epoch, describe_target(target));
  // The epochs left at this epoch's pace, its validation pass included.
  const double left = double(st_.cfg.epochs - er.epoch) * (er.wall_s + eval_clock.elapsed());
  log_ << fmt::format("epoch {}/{}  loss {:.4f}  val_loss {:.4f}  {}  {:.1f} images/s  lr {:.4g}  ({:.1f} s){}\n",
                      er.epoch, st_.cfg.epochs, er.train_loss, er.val_loss, format_quality(er, st_.info),
                      er.images_per_s, er.lr, er.wall_s, er.epoch < st_.cfg.epochs ? "  " + eta(left) : "")
       << std::flush;
  er.segment = o.rows.empty() ? segment_ : o.rows.back().segment;
  if (observer) observer->on_epoch(er, o.rows);
  finished_rows_.push_back(o.rows);
  st_.result.epochs.push_back(std::move(er));
}

double EpochRunner::save_checkpoint(const EpochProgress& o, bool closed) {
  Stopwatch clock;
  RankCheckpoint c;
  c.config_text = st_.cfg.canonical_text();
  c.workers = st_.workers, c.rank = st_.rank;
  c.global_step = ctx_.step;
  c.segment = segment_;
  c.consecutive_skips = consecutive_skips_;
  c.nonfinite_skipped = st_.result.nonfinite_skipped;
  capture_model_state(st_.model, st_.opt, /*buffers=*/true, c);
  capture_epoch(o, closed, st_.reports(), c);
  if (st_.reports()) capture_record(st_.result, finished_rows_, c);
  write_rank_checkpoint(st_.cfg.checkpoint_dir, c);
  since_checkpoint_.lap();
  st_.strategy->max_over_workers(0);  // every worker's file is in place before `latest` moves
  if (st_.rank == 0) commit_checkpoint(st_.cfg.checkpoint_dir, c.global_step);
  return clock.elapsed();
}

void EpochRunner::resume(const RankCheckpoint& c) {
  restore_model_state(c, st_.model, st_.opt, /*buffers=*/true);
  ctx_.step = c.global_step;
  st_.strategy->resume_at(c.global_step);
  consecutive_skips_ = c.consecutive_skips;
  st_.result.nonfinite_skipped = c.nonfinite_skipped;
  restore_record(c, st_.result, finished_rows_);
  segment_ = c.segment + 1;
  resumed_wall_s_ = c.wall_s;
  resumed_ = unfinished_epoch(c);
}

}  // namespace scalebench
