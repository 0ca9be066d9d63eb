// epoch_graph.cpp — the epoch's --cuda-graph step (see epoch.h): whether a step may be captured,
// the eager warm-up, the capture and its replay, and the loss read one step late. Not here: the step's
// order and its record (epoch.cpp), the graph itself (models/cuda/step_graph.cpp).
#include <ostream>

#include "harness/train/cuda_graph_note.h"
#include "harness/train/epoch.h"

namespace scalebench {

// --cuda-graph's conditions, in the order a user can change them. Each names what keeps the step
// eager; the exchange and the optimizer stay eager even in a graph step (their kernels take the
// step's learning rate and count as arguments, and a parameter server's exchange is host-driven).
std::string EpochRunner::why_no_graph() const {
  const TrainConfig& c = st_.cfg;
  if (c.cuda_graph == CudaGraph::off) return "--cuda-graph off";
  if (c.accumulate > 1) return "--accumulate > 1 (the micro-batches' scaling and norms run between them)";
  if (st_.trace) return "--trace (it times each layer from the host)";
  if (c.sync_bn) return "--sync-bn (batch norm's backward exchanges from the host)";
  for (const auto& n : st_.model.graph().nodes)
    if (n.desc.kind == LayerKind::dropout)
      return fmt::format("the model's dropout ({}: its mask seed is a kernel argument a graph would fix)", n.name);
  if (st_.model.backward_hook())
    return fmt::format("--strategy {} exchanges gradient buckets from backward's per-layer hook (host-driven)",
                       st_.strategy->name());
  return "";
}

// Decided at the first step, once the strategy has set its hooks. The outcome is one line on the
// log (a warning where --cuda-graph on asked for it) and the run file's context (cuda_graph).
void EpochRunner::decide_graph() {
  graph_decided_ = true;
  if (st_.cfg.backend != Backend::cuda) return;
  std::string why = why_no_graph();
  if (why.empty()) {
    graph_ = st_.io.device().step_graph();
    if (!graph_) why = "this build's device has no step graph";
  }
  if (!why.empty()) {
    set_cuda_graph_note("eager: " + why);
    if (st_.reports())
      log_ << (st_.cfg.cuda_graph == CudaGraph::on ? "train: warning: " : "train: ")
           << "--cuda-graph: steps run eagerly: " << why << "\n" << std::flush;
    return;
  }
  set_cuda_graph_note("pending: eager warm-up steps, then a captured step");
}

void EpochRunner::reset_graph() {
  if (graph_warm_ < 0) return;  // a capture failed: eager for the rest of the run
  graph_warm_ = 0;
  if (graph_ && graph_->ready()) graph_ = st_.io.device().step_graph();  // captured anew when warm again
}

// One micro-batch's forward, loss and backward: eager for the first kGraphWarmup steps after a
// reset (the algorithm searches and every buffer's allocation happen there), then captured once and
// replayed. The loss is staged, computed and published in three parts (ComputeDevice::softmax_xent_*)
// so its labels' upload and its sums' copy back stay outside the graph; publish returns the previous
// step's loss, which loss.value carries out. A capture that fails leaves the run eager for good,
// with one warning line. Without a graph (late_steps_apply, --cuda-graph off or not possible) the
// same eager step with its loss read late.
bool EpochRunner::graph_step(const MicroBatch& mb, StepLoss& loss, const std::function<void()>& forward_done,
                             const std::function<void()>& backward_done) {
  constexpr int kGraphWarmup = 2;
  ComputeDevice& dev = st_.io.device();
  ctx_.sample_offset = std::int64_t(st_.worker);
  const Tensor& x = st_.io.input(mb.x);  // copied into StepIO's buffer, the same address every step
  loss.health = check_step(0.0, mb.x);   // the inputs only: the loss arrives a step late
  const auto stage = [&](const Shape& logits_shape) {
    const auto y = labels_for_logits(mb.labels, mb.x.shape(), logits_shape, st_.info);
    dev.softmax_xent_stage(y.data(), std::int64_t(y.size()));
  };
  st_.strategy->before_backward(st_.model);
  if (graph_ && !graph_->ready() && graph_warm_ >= kGraphWarmup) {
    stage(logits_shape_);
    const std::string why = graph_->capture([&] {
      const Tensor& logits = st_.model.forward(ctx_, x, /*training=*/true);
      graph_->split();
      dev.softmax_xent_compute(logits, st_.class_weights, &dlogits_);
      st_.model.backward(ctx_, dlogits_, /*last_micro_batch=*/true);
    });
    if (why.empty()) {
      if (!cuda_graph_note().starts_with("replayed"))  // captured again after each evaluation
        set_cuda_graph_note(fmt::format("replayed from optimizer step {}", ctx_.step + 1));
    } else {
      set_cuda_graph_note("eager: the capture failed: " + why);
      if (st_.reports()) log_ << "train: warning: --cuda-graph: the capture failed, steps run eagerly: " << why << "\n" << std::flush;
      graph_warm_ = -1;  // never again this run: the step is eager from here (the labels are staged)
    }
  }
  const bool replayed = graph_ && graph_->ready();
  if (replayed) {
    graph_->replay();
    backward_done();
  } else {
    const Tensor& logits = st_.model.forward(ctx_, x, /*training=*/true);
    logits_shape_ = logits.shape();
    stage(logits_shape_);  // after a failed capture a second time: the same labels, harmless
    if (graph_warm_ >= 0) ++graph_warm_;
    dev.softmax_xent_compute(logits, st_.class_weights, &dlogits_);
    forward_done();
    st_.model.backward(ctx_, dlogits_, /*last_micro_batch=*/true);
    backward_done();
  }
  loss.value = dev.softmax_xent_publish();
  return replayed;
}

// The previous step's loss, read one step late: into its row, the epoch's mean, and its checks. Its
// update was applied already (a non-finite gradient is caught before the update by the strategy's
// scan, or, where late_steps_apply, by the scan read one step late: settle_late_steps), so a bad
// loss here fails the run under --on-nonfinite fail and is reported and left out of the mean under
// skip.
void EpochRunner::settle_late_loss(EpochProgress& o, double loss) {
  if (late_row_ < 0 || late_row_ >= std::int64_t(o.rows.size())) return;
  StepRow& row = o.rows[std::size_t(late_row_)];
  row.loss = loss;
  late_row_ = -1;
  if (late_row_skipped_) return;
  const bool bad = !std::isfinite(loss) || loss > st_.cfg.max_loss;
  if (bad) {
    const std::string what = fmt::format("loss {:.4g} at epoch {} step {} (read one step late: its update was applied)",
                                         loss, row.epoch, row.step);
    SB_REQUIRE(st_.cfg.on_nonfinite == NonFinitePolicy::skip, "{} (--on-nonfinite fail; {} checks the loss before "
               "the update)", what, late_ ? "--on-nonfinite skip" : "--cuda-graph off");
    if (st_.reports()) log_ << "  left out of the epoch's loss: " << what << "\n" << std::flush;
    return;
  }
  o.loss_sum += loss;
  ++o.loss_steps;
}

}  // namespace scalebench
