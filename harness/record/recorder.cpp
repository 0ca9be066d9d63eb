// recorder.cpp — the run file as the run goes (see recorder.h).
#include "harness/record/recorder.h"

#include <filesystem>

#include "harness/record/context.h"
#include "harness/record/gpu_peak.h"
#include "harness/record/h5io.h"
#include "harness/record/summary.h"
#include "harness/train/cpu_warnings.h"
#include "harness/train/cuda_graph_note.h"
#include "harness/train/thread_budget.h"
#include "kernels/common/check.h"
#include "kernels/cpu/blas_threads.h"
#include "kernels/cpu/blas_vendor.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/runtime_env.h"
#include "kernels/cuda/device.h"  // CUDA builds: kernels/cuda; others: kernels/nocuda (no device)

namespace scalebench::record {

const char* const Recorder::kStopMarkError =
    "preempted by a stop signal (SIGUSR1, SIGTERM or SIGINT), and killed before it could stop after a step and "
    "record where (mpirun SIGKILLs its ranks about 1 s after passing a signal on): the epochs here are complete; "
    "a rerun continues from the newest checkpoint, if one was written";

void Recorder::save() {
  if (marked_ && file_.status == "running") file_.status = "preempted", file_.error = kStopMarkError;
  write_run_file(path_, file_);
  stopped_image_.clear();
  if (file_.status != "running") return;
  RunFile marked = file_;
  marked.status = "preempted";
  marked.error = kStopMarkError;
  stopped_image_ = run_file_image(path_, marked);
}

void Recorder::mark_stopped() noexcept {
  std::lock_guard lock(mu_);
  if (marked_ || stopped_image_.empty() || file_.status != "running") return;
  try {
    // Without fsync: it must land within mpirun's second; the run's next write is durable again.
    h5::write_image_atomically(path_, stopped_image_, /*durable=*/false);
    marked_ = true;
  } catch (...) {  // the run goes on and records as before
  }
}

Recorder::Recorder(const RunConfig& cfg, const std::string& runs_dir, const std::vector<std::string>& argv)
    : cfg_(cfg), id_(run_id(cfg)), file_(make_run_file()) {
  cfg.validate();
  std::error_code ec;
  std::filesystem::create_directories(runs_dir, ec);
  SB_REQUIRE(!ec, "-o {}: cannot create the folder: {}", runs_dir, ec.message());
  path_ = (std::filesystem::path(runs_dir) / (id_ + ".h5")).string();
  file_.config = config_attrs(cfg);
  file_.context = capture_context(argv);
  noise_start_ = sample_noise();
  file_.owner = this_process();
  {
    std::lock_guard lock(mu_);
    save();
  }
  heartbeat_.start(path_, int(file_.owner.heartbeat_s));
  stop_mark_.start([this](int) { mark_stopped(); });
  // Ranks of an MPI launcher can be ended by their MPI library without a signal (run_guard.h).
  if (launcher_world_size() > 0) guard_.start(path_);
}

Recorder::~Recorder() {
  stop_mark_.stop();
  guard_.stop();
}

void Recorder::note_noise() noexcept {
  try {
    record_noise(file_.context, noise_start_, sample_noise());
  } catch (...) {  // the noise is context: a run is recorded without it rather than not at all
  }
}

void Recorder::on_start(const TrainResult& meta) {
  segmentation_ = meta.task == "segmentation";
  const std::int64_t steps = cfg_.train.max_steps ? std::min(cfg_.train.max_steps, meta.steps_per_epoch)
                                                  : meta.steps_per_epoch;
  if (cfg_.train.backend == Backend::cpu) {
    // Each device of a CPU run is a process (or a thread group) with the same BLAS set-up.
    const std::string times = cfg_.world_size > 1 ? fmt::format(", x{} devices", cfg_.world_size) : "";
    sgemm_ = measure_cpu_peak();
    sgemm_.flops *= cfg_.world_size;
    sgemm_.method += times;
    peak_ = nominal_cpu_peak();
    peak_.flops *= cfg_.world_size;
    peak_.method += times;
  }
  if (cfg_.train.peak_tflops > 0) {
    peak_ = {cfg_.train.peak_tflops * 1e12 * cfg_.world_size,
             fmt::format("given: --peak-tflops {} per device, x{} devices", cfg_.train.peak_tflops, cfg_.world_size)};
  } else if (cfg_.train.backend != Backend::cpu) {
    peak_ = {kNaN, "no CUDA device to name"};
    if (cuda::device_availability().count > 0)
      peak_ = gpu_datasheet_peak(cuda::device_description(0), cfg_.train.precision);
    peak_.flops *= cfg_.world_size;  // the same GPU model on every device of the run
    peak_.method += cfg_.world_size > 1 ? fmt::format(", x{} devices", cfg_.world_size) : "";
  }
  std::lock_guard lock(mu_);
  if (cfg_.train.backend == Backend::cpu) {
    // The rank's thread budget as train() set it (kernels/cpu/blas_threads.h), rank 0's.
    const int t = cpu::blas_threads(), cpus = cpu::usable_cpus();
    // Whose threads they are: a BLAS without a thread call (blas_vendor.h "generic") keeps its own.
    const std::string owner = cpu::blas_thread_owner();
    const std::string blas = owner.empty() ? "" : owner + ", ";
    const std::string layers =
        cpu::layer_threads_available() ? " and the memory-bound layers" : " (the layers run serially: no OpenMP)";
    const std::string generic = blas.empty() ? " (the generic BLAS keeps its own thread count)" : "";
    file_.context.set("thread_budget", fmt::format("{} thread{} per rank for {}oneDNN{}{}; this process may use "
                                                   "{} CPU{} ({}); {}",
                                                   t, t == 1 ? "" : "s", blas, layers, generic, cpus,
                                                   cpus == 1 ? "" : "s", cpu::usable_cpu_list(),
                                                   cpu::thread_wait_origin()));
    // Every rank's threads when each is a process (harness/train/thread_budget.h), "" otherwise.
    file_.context.set("rank_threads", rank_threads_note());
    // What train warned about the CPU set-up (harness/train/cpu_warnings.h), one per line.
    file_.context.set("cpu_warnings", cpu_warnings());
  }
  // What moved the gradients, and whether ranks shared a GPU: such a run checks correctness, its
  // timings measure contention for one device (report and plots mark it, compare leaves it out).
  file_.context.set("transport_used", meta.transport);  // not `transport`: that is the option (/config)
  file_.context.set("gpu_shared", meta.gpu_shared);
  Attrs& c = file_.config;
  c.set("task", meta.task);
  c.set("canonical_model", meta.canonical_model);
  c.set("params", std::int64_t(meta.params));
  c.set("train_flops_per_image", meta.train_flops_per_image);
  c.set("steps_per_epoch", std::int64_t(steps));
  c.set("lr_effective", meta.peak_lr);
  file_.class_names = meta.class_names;
  save();
}

void Recorder::on_epoch(const EpochResult& epoch, const std::vector<StepRow>& steps) {
  std::lock_guard lock(mu_);
  append_epoch(file_, epoch, steps, segmentation_);
  // Whether the steps were replayed CUDA graphs, or why not (harness/train/cuda_graph_note.h).
  if (cfg_.train.backend != Backend::cpu) file_.context.set("cuda_graph", cuda_graph_note());
  save();
}

void Recorder::on_segments(const std::vector<RunSegment>& segments) {
  std::lock_guard lock(mu_);
  set_segments(file_, segments);
  save();
}

void Recorder::finish(const TrainResult& result) {
  stop_mark_.stop();  // the run ends ok: a signal now changes nothing
  SummaryInputs in;
  in.train_flops_per_image = result.train_flops_per_image;
  in.peak_flops = peak_.flops > 0 ? peak_.flops : kNaN;
  in.peak_method = peak_.method;
  in.sgemm_flops = sgemm_.flops > 0 ? sgemm_.flops : kNaN;
  in.sgemm_method = sgemm_.method;
  in.comm_bytes_per_step = result.comm_bytes_per_step;
  in.peak_mem_bytes = peak_rss_bytes();
  std::lock_guard lock(mu_);
  file_.summary = summarize(file_.epochs, file_.steps, in);
  summarize_target(result.target, file_.summary);
  // What the strategy saw that the tables cannot hold (ps-async: the staleness of its updates).
  if (!result.strategy_summary.empty()) file_.summary.set("strategy_note", result.strategy_summary);
  // Why b_simple is NaN when the run could not measure it (a parameter server, one batch size).
  if (!result.noise_scale_note.empty()) file_.summary.set("b_simple_note", result.noise_scale_note);
  // scalebench ab --interleave slice: the run computed in turns with another; its waits are not in its times.
  if (!result.turn_note.empty()) file_.summary.set("turn_note", result.turn_note);
  heartbeat_.stop();
  note_noise();
  file_.status = "ok";
  file_.error.clear();
  save();
}

void Recorder::preempt(const TrainResult& result) {
  SB_CHECK(result.preempted, "Recorder::preempt: the run was not preempted");
  stop_mark_.stop();
  std::lock_guard lock(mu_);
  append_steps(file_, result.partial_steps);
  heartbeat_.stop();
  note_noise();
  file_.status = "preempted";
  file_.error = "preempted by " + describe_preemption(result);
  save();
}

bool Recorder::fail(const std::string& error) noexcept {
  stop_mark_.stop();
  heartbeat_.stop();
  try {
    std::lock_guard lock(mu_);
    note_noise();
    file_.status = "failed";
    file_.error = error;
    save();
    return true;
  } catch (...) {
    return false;
  }
}

void mark_failed(const std::string& path, const RunConfig& cfg, const std::string& error,
                 const std::vector<std::string>& argv) {
  RunFile f;
  bool have = false;
  try {
    f = read_run_file(path);
    have = true;
  } catch (const Error&) {
  }
  if (have && f.status == "failed" && !f.error.empty()) return;
  if (!have) {
    f = make_run_file();
    f.config = config_attrs(cfg);
    f.context = capture_context(argv);
  }
  f.status = "failed";
  f.error = error;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  write_run_file(path, f);
}

}  // namespace scalebench::record
