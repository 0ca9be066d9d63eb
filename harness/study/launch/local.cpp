// local.cpp — the local launcher: every point of the spec, one after another, each as its own
// process on this host (launch/command.h), output prefixed "[3/12] unet ring N=4 " (see sweep.h
// for what a sweep promises: skip ok points, leave live ones alone, record failures, stop on
// preemption or a stop signal). The loop, run_points_here, takes each point's command from its
// caller: `scalebench slurm-sweep` runs it inside a Slurm allocation with srun steps (slurm/alloc.h).
// What it deliberately does not do: run points concurrently (they would share this host's cores
// and distort each other's throughput).
#include "harness/study/launch/launcher.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>

#include "harness/record/context.h"
#include "harness/record/recorder.h"
#include "harness/study/launch/command.h"
#include "harness/study/launch/dataset_prep.h"
#include "harness/study/launch/run_point.h"
#include "harness/study/launch/subprocess.h"
#include "harness/study/progress.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

namespace fs = std::filesystem;

// How long a point may take to stop after the sweep got SIGTERM/SIGINT (the ranks finish their
// step and record the run) before its process group gets SIGKILL.
constexpr double kStopGraceSeconds = 20;

std::string family(const std::string& model) { return model.substr(0, model.find(':')); }

// "[3/12] unet ring N=4" (+ the swept axes, " compression=bf16", + " rep 2/3"); the full model spec when two models share a family.
std::string prefix(const SweepSpec& spec, const record::RunConfig& c, std::size_t i, std::size_t n) {
  std::set<std::string> families;
  for (const auto& m : spec.models) families.insert(family(m));
  const std::string model = families.size() == spec.models.size() ? family(c.train.model) : c.train.model;
  std::string p = fmt::format("[{}/{}] {} {} N={}{}", i, n, model, name_of(c.train.strategy), c.world_size,
                              axes_label(spec, c));
  if (spec.repetitions > 1) p += fmt::format(" rep {}/{}", c.repetition, spec.repetitions);
  return p;
}

class LocalLauncher final : public Launcher {
 public:
  SweepOutcome run(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) override {
    const std::string exe = opt.exe.empty() ? record::self_executable() : opt.exe;
    return run_points_here(
        spec, opt, [&](const record::RunConfig& c, const std::string& runs) { return launch_command(c, exe, runs); },
        out);
  }
};

}  // namespace

std::unique_ptr<Launcher> make_local_launcher() { return std::make_unique<LocalLauncher>(); }

SweepOutcome run_points_here(const SweepSpec& spec, const SweepOptions& opt, const PointCommand& command,
                             std::ostream& out) {
  auto points = expand(spec);
  const std::string runs = (fs::path(spec.output) / "runs").string();
  // Each point's run id holds what its dataset file holds, as its train will compute it (a dry run
  // before the file exists names the points without it).
  for (auto& p : points) record::identify_data(p);
  // A point still running on this machine — a SIGKILLed sweep's orphan from before subprocess.h
  // took points down with their sweep, a `train -o` by hand into this study — would share the
  // cores with every point started now and distort both timings: nothing starts until it ends.
  // (One running on another host is left alone below: it does not touch this machine's timing.)
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string path = (fs::path(runs) / (record::run_id(points[i]) + ".h5")).string();
    if (const PriorRun prior = prior_run(path); prior.kind == PriorRun::Kind::live && prior.here)
      fail_input(fmt::format("{}: {} is still running on this machine ({}; {}): a point started beside it would "
                             "distort both timings; wait for it to end or stop it, then run the sweep again",
                             spec.source, prefix(spec, points[i], i + 1, points.size()), prior.why, path));
  }
  out << fmt::format("sweep: {}: {} -> {}\n", spec.name, points_summary(spec, points.size()), runs) << std::flush;
  prepare_dataset(spec, opt.dry_run, out);
  for (auto& p : points) record::identify_data(p);  // again: the file may have been generated just now
  if (!opt.dry_run) {
    std::error_code ec;
    fs::create_directories(runs, ec);
    SB_REQUIRE(!ec, "{}: cannot create the folder: {}", runs, ec.message());
    std::ofstream(fs::path(spec.output) / "study.toml", std::ios::binary) << spec.text;
  }

  // SIGUSR1 (the allocation is ending) is passed on to the running point, which stops and is
  // recorded preempted, and the sweep ends after it; one arriving between points is dropped
  // (subprocess.h) rather than ending this process. SIGTERM, SIGINT and SIGHUP are passed on to the
  // running point's whole process group (mpirun and its ranks), SIGKILL after a grace period; the
  // point is recorded (failed, or preempted when it recorded that itself) and the sweep ends.
  if (!opt.dry_run) {
    forward_signal_to_child(SIGUSR1);
    stop_children_on_signals(kStopGraceSeconds);
  }
  SweepOutcome r;
  r.points = int(points.size());
  const auto now_s = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  StudyProgress progress(points.size(), now_s());
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (stop_signal()) break;
    const record::RunConfig& c = points[i];
    const std::string pre = prefix(spec, c, i + 1, points.size());
    const std::string id = record::run_id(c);
    const std::string path = (fs::path(runs) / (id + ".h5")).string();
    const PriorRun prior = prior_run(path);
    const auto cmd = command(c, runs);
    if (prior.kind == PriorRun::Kind::ok) {
      ++r.skipped;
      out << pre << " ok already (" << path << "), skipped\n" << std::flush;
      progress.point_done(false, 0);
      continue;
    }
    if (prior.kind == PriorRun::Kind::live) {
      ++r.busy;
      out << pre << " running elsewhere (" << prior.why << "; " << path << "), left alone\n" << std::flush;
      progress.point_done(false, 0);
      continue;
    }
    if (!prior.why.empty()) out << pre << " " << prior.why << "; running it again\n";
    out << pre << " run " << id << ": " << join_command(cmd) << "\n" << std::flush;
    if (opt.dry_run) continue;

    const double started = now_s();
    const PointResult res = run_point(c, cmd, path, pre, out);
    progress.point_done(true, now_s() - started);
    out << "sweep: " << progress.line(now_s()) << "\n" << std::flush;
    r.ok += res == PointResult::ok;
    r.failed += res == PointResult::failed;
    r.preempted += res == PointResult::preempted;
    if (const int sig = stop_signal()) {
      r.stopped = sig;
      out << fmt::format("sweep: stopped by {} during point {}: the {} point(s) after it are not launched; rerun "
                         "the sweep to finish the study\n", signal_name(sig), i + 1, points.size() - i - 1);
      break;
    }
    if (res == PointResult::preempted) {
      out << fmt::format("sweep: point {} was preempted: the allocation is ending, so the {} point(s) after it are "
                         "not launched; rerun the sweep to finish the study\n", i + 1, points.size() - i - 1);
      break;
    }
  }
  if (const int sig = stop_signal(); sig && !r.stopped) {  // between points
    r.stopped = sig;
    out << fmt::format("sweep: stopped by {} between points: the points not yet run are not launched; rerun the "
                       "sweep to finish the study\n", signal_name(sig));
  }
  if (!opt.dry_run) {
    const bool again = r.preempted || r.stopped || r.busy;
    out << fmt::format("sweep: {} points: {} ok, {} skipped (ok before), {} failed{}{}; next: {} {}\n", r.points, r.ok,
                       r.skipped, r.failed, r.preempted ? fmt::format(", {} preempted", r.preempted) : "",
                       r.busy ? fmt::format(", {} running elsewhere", r.busy) : "",
                       again ? "scalebench sweep" : "scalebench collect", again ? spec.source : spec.output)
        << std::flush;
  }
  return r;
}

}  // namespace scalebench::study
