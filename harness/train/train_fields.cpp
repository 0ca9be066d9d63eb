// train_fields.cpp — the one table of `train` options (see train_fields.h and field.h).
// Run ids: the keys that joined ids before 2026-11 join always, in their historical order-free
// form; every later key joins only when it differs from its default, so adding an option never
// changes an existing id (tests/record/test_fields.cpp holds both).
#include "harness/train/train_fields.h"

#include <vector>

#include "harness/train/backend_traits.h"

namespace scalebench {

template <>
struct Codec<ClassWeights> {
  static constexpr ValueKind kind = ValueKind::string;
  static std::optional<ClassWeights> from_text(std::string_view s) {
    try {
      return ClassWeights::parse(s);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  static std::string to_text(const ClassWeights& v) { return v.text; }
  static FieldValue to_value(const ClassWeights& v) { return v.text; }
  static std::optional<ClassWeights> from_value(const FieldValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return from_text(*s);
    return std::nullopt;
  }
  static std::string expected() { return "auto, none or w0,w1,..."; }
};

namespace {

using T = TrainConfig;

template <NamedEnum E>
std::string choices() {
  return " (" + enum_choices<E>("|") + ")";
}

// Per-point fields: a sweep sets them from [sweep] and [dataset], not from [train].
const FieldTraits kPerPoint{.in_spec = false};
// Added after the first results: joins ids only when set, so older ids stay what they were.
const FieldTraits kLater{.id = IdRule::unless_default, .launch = LaunchRule::unless_default};
// Where a run happens, not what it computes: no id, may differ between ranks.
const FieldTraits kLocal{.agree = false, .id = IdRule::never};

std::vector<Field<T>> make_table() {
  std::vector<Field<T>> f;
  f.push_back(make_field("model", &T::model, "Model spec, e.g. unet:depth=4,base=16 or vgg11:width=0.25,bn=1", kPerPoint));
  f.push_back(make_field("data", &T::data, "HDF5 dataset from `scalebench datagen` (required)", kPerPoint));
  f.push_back(make_field("strategy", &T::strategy, "Data-parallel strategy" + choices<StrategyKind>() + ": " +
                                                       strategy_help(), kPerPoint));
  f.push_back(make_field("backend", &T::backend, "Compute backend" + choices<Backend>() + "; " + backend_help()));
  f.push_back(make_field("precision", &T::precision, "GPU math" + choices<Precision>() + "; tf32/bf16: cuda"));
  f.push_back(make_field("layout", &T::layout, "Activation layout" + choices<Layout>() + "; NHWC: cuda", kLater));
  f.push_back(make_field("deterministic", &T::deterministic, "cuda: deterministic cuDNN algorithms only", kLater));
  f.push_back(make_field("cudnn_workspace_mib", &T::cudnn_workspace_mib,
                         "cuda: cuDNN workspace cap in MiB (algorithms needing more are not chosen); -1 "
                         "(default): half of the GPU's free memory beyond 1 GiB", kLater,
                         in_range(T::kCudnnWorkspaceFromFree, T::kMaxCudnnWorkspaceMib)));
  f.push_back(make_field("cuda_graph", &T::cuda_graph,
                         "cuda: capture the training step as a CUDA graph after warm-up and replay it" +
                             choices<CudaGraph>() + "; auto and on fall back to eager steps where the step "
                             "cannot be captured, saying why (the run file's context: cuda_graph)",
                         kLater));
  f.push_back(make_field("gpu_kernels", &T::gpu_kernels,
                         "cuda: batch norm and 2x2 max pooling kernels" + choices<GpuKernels>() +
                             ": cuDNN's, or our own (batch norm with the ReLU after it fused, pooling keeping the "
                             "argmax; convolution + bias + ReLU through cuDNN's fused call where it allows); the "
                             "default stays cudnn until a GPU run has measured own (docs/gpu.md)",
                         kLater));
  f.push_back(make_field("epochs", &T::epochs, "Passes over the training split", {}, in_range(1, 100000)));
  f.push_back(make_field("batch", &T::batch, "Batch size per device", kPerPoint, in_range(1, 1 << 20)));
  f.push_back(make_field("accumulate", &T::accumulate,
                         "Gradient accumulation: micro-batches of --batch summed per optimizer step (a step trains "
                         "accumulate x batch per device)", kLater, in_range(1, 1 << 16)));
  f.push_back(make_field("lr", &T::lr, "Base learning rate", {}, above(0.0)));
  f.push_back(make_field("lr_scaling", &T::lr_scaling, "LR rule in the device count" + choices<LrScaling>()));
  f.push_back(make_field("warmup_epochs", &T::warmup_epochs, "Linear warm-up length (may be fractional)", {},
                         at_least(0.0)));
  f.push_back(make_field("lr_decay", &T::lr_decay, "After warm-up" + choices<LrDecay>()));
  f.push_back(make_field("optimizer", &T::optimizer, "Optimizer" + choices<OptimizerKind>() +
                                                         "; lars, lamb: layer-wise trust ratio"));
  f.push_back(make_field("momentum", &T::momentum, "SGD and LARS momentum, in [0, 1)", {}, Check<double>([](const double& v) -> Problem {
                           if (v >= 0 && v < 1) return std::nullopt;
                           return fmt::format("{} must be in [0, 1)", v);
                         })));
  f.push_back(make_field("weight_decay", &T::weight_decay, "Weight decay: L2 (sgd), decoupled (adamw), in the trust-ratio direction (lars, lamb)", {},
                         at_least(0.0)));
  f.push_back(make_field("val_fraction", &T::val_fraction, "Fraction held out (the end of the file), in (0, 1)", {},
                         Check<double>([](const double& v) -> Problem {
                           if (v > 0 && v < 1) return std::nullopt;
                           return fmt::format("{} must be in (0, 1)", v);
                         })));
  f.push_back(make_field("class_weights", &T::class_weights, "Loss weights: auto|none|w0,w1,...", {}, {},
                         std::function<ClassWeights(std::string_view)>(&ClassWeights::parse)));
  f.push_back(make_field("seed", &T::seed, "Run seed (weights, shuffling, dropout)", {},
                         Check<std::uint64_t>([](const std::uint64_t& v) -> Problem {
                           if (v <= std::uint64_t(INT64_MAX)) return std::nullopt;  // stored as int64
                           return fmt::format("{} is out of range [0, {}]", v, INT64_MAX);
                         })));
  f.push_back(make_field("reference_kernels", &T::reference_kernels,
                         "Use the slow double-accumulating reference kernels"));
  f.push_back(make_field("cpu_kernels", &T::cpu_kernels,
                         "CPU convolutions" + choices<CpuKernels>() +
                             ": auto is oneDNN where it measured faster (when built with oneDNN), else im2col + OpenBLAS",
                         kLater));
  f.push_back(make_field("threads", &T::threads, "BLAS threads (0: all cores)", {.agree = false}, in_range(0, 4096)));
  f.push_back(make_field("max_steps", &T::max_steps, "Stop each epoch after this many steps (0: full epoch)", {},
                         at_least(std::int64_t{0})));
  const auto fraction = Check<double>([](const double& v) -> Problem {
    if (v >= 0 && v <= 1) return std::nullopt;
    return fmt::format("{} must be in [0, 1] (0: no target)", v);
  });
  f.push_back(make_field("target_miou", &T::target_miou,
                         "Stop once the held-out mean non-background IoU reaches this (segmentation; 0: no target; "
                         "checked after every epoch and every --eval-every-steps steps)",
                         kLater, fraction));
  f.push_back(make_field("target_accuracy", &T::target_accuracy,
                         "Stop once the held-out accuracy reaches this (classification; 0: no target)", kLater,
                         fraction));
  f.push_back(make_field("eval_every_steps", &T::eval_every_steps,
                         "With a target: also evaluate the held-out data every K optimizer steps (0: after each epoch "
                         "only)",
                         kLater, at_least(std::int64_t{0})));
  f.push_back(make_field("progress_seconds", &T::progress_seconds, "Step progress line interval", kLocal,
                         above(0.0)));
  f.push_back(make_field("devices", &T::devices,
                         "Devices in this process for --strategy mirrored (threads on cpu, GPUs on cuda)",
                         {.id = IdRule::never, .launch = LaunchRule::unless_default, .in_spec = false},
                         in_range(1, 4096)));
  f.push_back(make_field("bucket_mb", &T::bucket_mb, "Tensor-fusion bucket size in MiB (synchronous strategies)", {},
                         above(0.0)));
  f.push_back(make_field("no_overlap", &T::no_overlap, "Exchange gradients after backward instead of during it"));
  f.push_back(make_field("ranks_per_node", &T::ranks_per_node, "hierarchical: ranks per node (0: group by host name)",
                         {}, in_range(0, 65536)));
  f.push_back(make_field("staleness", &T::staleness, "ps-async: max pushes a worker may run ahead of the slowest",
                         {}, in_range(0, 1 << 20)));
  f.push_back(make_field("compression", &T::compression,
                         "ring/hierarchical: gradients on the wire" + choices<comm::WireType>() + " (fp32 sums)",
                         kLater));
  f.push_back(make_field("sync_bn", &T::sync_bn,
                         "Synchronised batch norm: statistics of the global batch, summed over the workers each step "
                         "(allreduce strategies; no-op on single)",
                         kLater));
  f.push_back(make_field("transport", &T::transport,
                         "What moves gradients between devices" + choices<Transport>() +
                             ": auto is NCCL where each rank has its own GPU, staged (through host memory over "
                             "threads or MPI) where ranks share one, threads/MPI on the CPU",
                         kLater));
  f.push_back(make_field("comm_timeout", &T::comm_timeout_s, "Seconds a rank waits for a peer before the job ends",
                         kLocal, above(0.0)));
  f.push_back(make_field("on_nonfinite", &T::on_nonfinite,
                         "A step whose loss, input or gradient is not finite" + choices<NonFinitePolicy>() +
                             ": fail (every rank stops, naming rank, step and where) or skip (no worker updates)",
                         kLater));
  f.push_back(make_field("nonfinite_skips", &T::nonfinite_skips,
                         "--on-nonfinite skip: fail after this many skipped steps in a row", kLater, in_range(1, 1000000)));
  f.push_back(make_field("max_loss", &T::max_loss, "A training loss above this counts as diverged (non-finite)", kLater,
                         above(0.0)));
  f.push_back(make_field("peak_tflops", &T::peak_tflops,
                         "Peak TFLOP/s per device that MFU divides by (0: the GPU datasheet table, docs/results-schema.md, "
                         "or the CPU's sgemm measured at start-up)",
                         {.agree = false, .id = IdRule::never, .launch = LaunchRule::unless_default}, at_least(0.0)));
  f.push_back(make_field("check_inputs", &T::check_inputs,
                         "Also check every input batch for NaN/Inf (one pass over the batch per step)", kLater));
  // Where and when a run keeps its state: not what it computes (no id; ranks need not agree on
  // the text, the checkpoint itself checks what matters).
  const FieldTraits ckpt{.agree = false, .id = IdRule::never, .launch = LaunchRule::unless_default};
  f.push_back(make_field("checkpoint_every", &T::checkpoint_every,
                         "Write a checkpoint every N optimizer steps (0: only when stopped by a signal)", ckpt,
                         at_least(std::int64_t{0})));
  f.push_back(make_field("checkpoint_minutes", &T::checkpoint_minutes,
                         "Also write a checkpoint once this many minutes have passed since the last one (0: off); "
                         "rank 0's clock (the server's for ps-*) decides, and every rank writes after the same step",
                         ckpt, at_least(0.0)));
  f.push_back(make_field("checkpoint_dir", &T::checkpoint_dir,
                         "Where the run's checkpoint folder goes: DIR/<run_id>.ckpt (default with -o: the runs folder)",
                         {.agree = false, .id = IdRule::never, .launch = LaunchRule::unless_default, .in_spec = false}));
  f.push_back(make_field("resume", &T::resume,
                         "auto: continue from the newest complete checkpoint in the checkpoint folder, if any; "
                         "none: start over; or a checkpoint folder",
                         {.agree = false, .id = IdRule::never, .launch = LaunchRule::unless_default, .in_spec = false},
                         Check<std::string>([](const std::string& v) -> Problem {
                           if (!v.empty()) return std::nullopt;
                           return std::string("must be auto, none or a folder");
                         })));
  // Set from the file itself (harness/data/identity.h), never given: no flag, not on launch lines.
  // It joins the run id and the ranks' agreement text, which is also what a checkpoint must match.
  f.push_back(make_field("data_identity", &T::data_identity,
                         "The dataset's samples, shape, classes and content checksum, read from the file by "
                         "scalebench (a file regenerated at the same path is another run)",
                         {.id = IdRule::unless_default, .launch = LaunchRule::never, .in_spec = false}));
  f.back().flag.clear();
  f.push_back(make_field("dump_weights", &T::dump_weights,
                         "Write the final weights (raw f32) to PATH.rank<r>, batch-norm statistics to PATH.buffers.rank<r> (tests)",
                         {.agree = false, .id = IdRule::never, .launch = LaunchRule::never, .attr = false,
                          .in_spec = false}));
  f.push_back(make_field("trace", &T::trace,
                         "Write the step timeline as Chrome trace-event JSON to FILE (FILE.rank<r>.json per rank "
                         "when there are several; merge with `scalebench trace merge`)",
                         {.agree = false, .id = IdRule::never, .launch = LaunchRule::never, .attr = false,
                          .in_spec = false}));
  return f;
}

}  // namespace

std::span<const Field<TrainConfig>> train_fields() {
  static const std::vector<Field<TrainConfig>> table = make_table();
  return table;
}

const Field<TrainConfig>* find_train_field(std::string_view key) {
  for (const auto& f : train_fields())
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace scalebench
