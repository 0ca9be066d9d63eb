// main.cpp — the `scalebench` command line (CLI11 subcommands, DESIGN §7). Parses and validates
// options, hands them to the rooms, and turns any scalebench::Error into one line on stderr and a
// non-zero exit. Holds no training or data logic of its own.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>
#include <cstdio>
#include <iostream>
#include <new>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/comm/commbench.h"
#include "harness/comm/consistency.h"
#include "harness/comm/mpi_comm.h"
#include "harness/data/particle_gen.h"
#include "harness/study/spec/config_toml.h"
#include "harness/record/context.h"
#include "harness/record/recorded_run.h"
#include "harness/study/ab/ab.h"
#include "harness/record/run_guard.h"
#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/compare.h"
#include "harness/study/analysis/report.h"
#include "harness/study/project/project_cli.h"
#include "harness/study/spec/overrides.h"
#include "harness/study/sweep.h"
#include "harness/study/launch/slurm/alloc.h"
#include "harness/study/launch/slurm/point.h"
#include "harness/study/status.h"
#include "harness/train/field_cli.h"
#include "harness/train/trace.h"
#include "harness/train/trainer.h"
#include "kernels/common/check.h"
#include "kernels/common/build_info.h"
#include "kernels/common/exit_codes.h"
#include "kernels/common/printable.h"
#include "kernels/cpu/runtime_env.h"

namespace {

using scalebench::TrainConfig;

void add_datagen(CLI::App& app, scalebench::data::GenConfig& g, std::string& out, std::string& task) {
  auto* cmd = app.add_subcommand("datagen", "Generate a synthetic particle-image dataset (HDF5)");
  cmd->add_option("--task", task, "segmentation (background/shower/track per pixel) or classification (5 particles)")
      ->check(CLI::IsMember({"segmentation", "classification"}));
  cmd->add_option("--n", g.n, "Number of images")->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd->add_option("--size", g.size, "Image side in pixels")->check(CLI::Range(16, 4096));
  cmd->add_option("--seed", g.seed, "Generator seed (sample i depends only on seed and i)");
  cmd->add_option("-o,--output", out, "Output .h5 file (written atomically)")->required();
}

// `train`: every option is a row of the field tables (harness/train/train_fields.cpp for the run's
// options, record::run_fields() for how it is recorded); harness/train/field_cli.h turns each row
// into its option.
struct TrainCli {
  TrainConfig cfg;
  scalebench::record::RunConfig run;  // repetition, scaling, study (world size: from the launcher)
  std::string output, config;
  CLI::App* cmd = nullptr;
};

void add_train(CLI::App& app, TrainCli& t) {
  t.cmd = app.add_subcommand("train", "Train one model on one configuration and report loss, IoU/accuracy, images/s");
  scalebench::add_field_options(t.cmd, t.cfg, scalebench::train_fields());
  scalebench::add_field_options(t.cmd, t.run, scalebench::record::run_fields());
  t.cmd->add_option("--config", t.config,
                    "TOML file of these options (keys as the long names with '_', flat or under [train]); "
                    "flags given on the command line win");
  t.cmd->add_option("-o,--output", t.output,
                    "Runs folder: record the run to <dir>/<run_id>.h5 (docs/results-schema.md); without it "
                    "nothing is recorded");
}

// --config: the file's options, except those the command line gave (they win).
void apply_train_config(TrainCli& t) {
  if (t.config.empty()) return;
  std::set<std::string> given;
  for (const auto& f : scalebench::train_fields())
    if (!f.flag.empty() && t.cmd->get_option(f.flag)->count() > 0) given.insert(std::string(f.key));
  for (const auto& f : scalebench::record::run_fields())
    if (!f.flag.empty() && t.cmd->get_option(f.flag)->count() > 0) given.insert(std::string(f.key));
  scalebench::study::apply_config_file(t.config, t.cfg, t.run, given);
}

// Results harness options (harness/record, harness/study).
struct StudyOptions {
  std::optional<scalebench::study::LauncherKind> launcher;
  std::string spec, profile, dir, out, file, format = "text", base, now;
  bool dry_run = false, full = false, skip_unreadable = false, only_regressions = false, include_shared_gpu = false,
       across_hosts = false;
  int group = 0, repetition = 1;  // slurm-point
  std::int64_t guard_pid = 0;     // run-guard
  int repetitions = 0;            // sweep --repetitions (0: the spec's)
  int array_throttle = 0;         // sweep --array-throttle (0: none)
  std::vector<std::string> sets;  // sweep/ab --set section.key=value
  std::string name, output;       // sweep --name, --output
  std::vector<std::string> match_ignore;
  std::vector<std::string> thresholds;
  double alpha = 0.01;
  std::string inconclusive = "code";
  scalebench::study::AbOptions ab;  // `ab`: the sides, pairs, output
};

// --set, the same for sweep and ab: a variant of the spec without copying it (overrides.h).
void add_set_option(CLI::App* cmd, std::vector<std::string>& sets) {
  cmd->add_option("--set", sets, "section.key=value: a variant of the spec without copying it, e.g. --set "
                  "train.lr=0.1 --set sweep.devices=[1,2]; repeatable; recorded in <output>/study.toml")
      ->take_all()
      ->allow_extra_args(false);
}

// `ab`: harness/study/ab/ab.h. The sides' options are the same four for A and B.
void add_ab(CLI::App& app, StudyOptions& o) {
  auto* ab = app.add_subcommand("ab", "A/B: run every point of a spec on two sides (options, binaries or "
                                "environments), alternating run by run, and decide each timing metric from the pairs");
  ab->add_option("spec", o.spec, "Sweep spec, e.g. studies/smoke.toml (its [study] repetitions are replaced by --pairs)")
      ->required();
  for (auto [side, name] : {std::pair{&o.ab.a, std::string("a")}, std::pair{&o.ab.b, std::string("b")}}) {
    const std::string up = name == "a" ? "A" : "B";
    ab->add_option("--" + name, side->set, "Side " + up + "'s train options, 'key=value key=value' (keys as train's "
                   "long names with '_', e.g. 'threads=2 bucket_mb=4')");
    ab->add_option("--" + name + "-binary", side->binary, "Side " + up + "'s scalebench binary (default: this one)");
    ab->add_option("--" + name + "-env", side->env, "Side " + up + "'s environment, KEY=VALUE (repeat the option for more)")
        ->allow_extra_args(false);
    ab->add_option("--" + name + "-wrap", side->wrap, "A command to run side " + up + "'s runs under, split at spaces "
                   "(no quoting), e.g. 'taskset -c 1'");
  }
  ab->add_option("--pairs", o.ab.pairs, "Runs a side per point, taken in pairs A,B then B,A (1-200)")
      ->check(CLI::Range(1, 200))
      ->capture_default_str();
  ab->add_option("--interleave", o.ab.interleave, "run: the sides alternate run by run (any point); slice: the "
                 "two runs of a pair start together on one CPU and take turns at step boundaries every --slice-ms, "
                 "so both see the host within a slice of each other (single-device points only)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, scalebench::study::AbInterleave>{
          {"run", scalebench::study::AbInterleave::run}, {"slice", scalebench::study::AbInterleave::slice}}))
      ->default_str("run");
  ab->add_option("--slice-ms", o.ab.slice_ms, "--interleave slice: how long a side computes before it hands the "
                 "turn over (at its next step boundary)")
      ->check(CLI::Range(10.0, 60000.0))
      ->capture_default_str();
  ab->add_option("--cpus", o.ab.cpus, "--interleave slice: the CPU list both sides run on (taskset -c; default: the "
                 "last CPU this process may use)");
  ab->add_option("-o,--output", o.ab.output, "Folder for a/runs, b/runs, a.h5, b.h5, ab.toml, verdicts.json "
                 "(default: the spec's [study] output + '-ab')");
  ab->add_option("--alpha", o.ab.alpha, "Significance level of the signed-rank tests, after the Benjamini-Hochberg "
                 "correction over all of this run's timing tests")
      ->check(CLI::Range(1e-6, 0.5))
      ->capture_default_str();
  ab->add_option("--threshold", o.ab.thresholds, "metric=tolerance as compare's: the band inside which the 95% "
                 "interval means 'no change'; off leaves the metric out")
      ->take_all();
  ab->add_option("--format", o.format, "text|markdown (the verdicts as JSON are always written to "
                 "<output>/verdicts.json)")
      ->check(CLI::IsMember({"text", "markdown"}))
      ->capture_default_str();
  add_set_option(ab, o.sets);
  ab->add_flag("--dry-run", o.ab.dry_run, "Print the runs in their order with their commands; run nothing");
}

void add_study_commands(CLI::App& app, StudyOptions& o) {
  const auto formats = CLI::IsMember({"text", "markdown", "json"});
  auto* sweep = app.add_subcommand("sweep", "Run every point of a sweep spec (TOML), one process per point");
  sweep->add_option("spec", o.spec, "Sweep spec, e.g. studies/cpu-demo.toml (docs/sweep-spec.md)")->required();
  sweep->add_option_function<std::string>(
      "--launcher",
      [&o](const std::string& v) {
        const auto k = scalebench::find_enum<scalebench::study::LauncherKind>(v);
        if (!k) throw CLI::ValidationError("--launcher", scalebench::enum_problem<scalebench::study::LauncherKind>(v));
        o.launcher = *k;
      },
      scalebench::enum_choices<scalebench::study::LauncherKind>("|") + " (default: the spec's)");
  sweep->add_option("--repetitions", o.repetitions, "Run each point K times (1-1000), overriding the spec's "
                    "[study] repetitions; recorded in <output>/study.toml")
      ->check(CLI::Range(1, 1000));
  add_set_option(sweep, o.sets);
  sweep->add_option("--name", o.name, "The study's name ([study] name; the default output is results/<name>)");
  sweep->add_option("--output", o.output, "The results folder ([study] output)");
  sweep->add_option("--profile", o.profile, "slurm: cluster profile, e.g. slurm/profiles/local-test.toml (docs/slurm.md)");
  sweep->add_flag("--dry-run", o.dry_run, "local: print the points and their commands; slurm: write the job scripts "
                  "into <study>/slurm/ for review; run or submit nothing");
  sweep->add_option("--array-throttle", o.array_throttle, "slurm: at most K repetitions of a point run at once "
                    "(#SBATCH --array=1-6%K; docs/slurm.md)")
      ->check(CLI::Range(1, 100000));
  auto* status = app.add_subcommand("status", "State of every point of a study: pending, running, ok, failed, preempted");
  status->add_option("dir", o.dir, "Study folder, e.g. results/cpu-demo/")->required();
  // Run by the generated sbatch scripts inside their allocation; not meant to be typed.
  auto* point = app.add_subcommand("slurm-point", "");
  point->group("");
  point->add_option("dir", o.dir, "Study folder")->required();
  point->add_option("--group", o.group, "Point group (the script's number)")->required();
  point->add_option("--repetition", o.repetition, "Repetition")->required();
  // Run by the sweep.sbatch of --launcher slurm-alloc inside its allocation; not meant to be typed.
  auto* in_alloc = app.add_subcommand("slurm-sweep", "");
  in_alloc->group("");
  in_alloc->add_option("dir", o.dir, "Study folder")->required();
  // Started by rank 0 of an MPI-launched run (harness/record/run_guard.h); not meant to be typed.
  auto* guard = app.add_subcommand("run-guard", "");
  guard->group("");
  guard->add_option("file", o.file, "Run file")->required();
  guard->add_option("pid", o.guard_pid, "Rank 0's pid")->required();
  auto* collect = app.add_subcommand("collect", "Gather a study's run files into <dir>/study.h5 with speedup/efficiency");
  collect->add_option("dir", o.dir, "Study folder, e.g. results/cpu-demo/")->required();
  collect->add_option("-o,--output", o.out, "Study file to write (default <dir>/study.h5)");
  collect->add_flag("--skip-unreadable", o.skip_unreadable,
                    "Collect the readable run files and warn about the others (default: an unreadable run file is an "
                    "error and nothing is written)");
  auto* report = app.add_subcommand("report", "Tables per model x strategy from a study file");
  report->add_option("study", o.file, "Study file from `scalebench collect`")->required();
  report->add_option("--format", o.format, "text|markdown|json")->check(formats)->capture_default_str();
  report->add_flag("--full", o.full, "A swept study: one table per model x strategy x swept values with every column, "
                   "instead of one row per point (json is always complete)");
  auto* compare = app.add_subcommand("compare", "Compare two study files per point and metric; exit 1 on a regression "
                                     "or when no point matched, 3 when only INCONCLUSIVE timing stands in the way");
  compare->add_option("base", o.base, "Baseline study file")->required();
  compare->add_option("new", o.now, "New study file")->required();
  compare->add_option("--threshold", o.thresholds, "metric=tolerance, e.g. images_per_s=-10%, epoch_time_s=+5%, mfu=off")
      ->take_all();
  compare->add_option("--alpha", o.alpha, "Significance level of the timing tests, after the Benjamini-Hochberg "
                      "correction over all of this compare's timing comparisons (docs/metrics.md)")
      ->check(CLI::Range(1e-6, 0.5))
      ->capture_default_str();
  compare->add_option("--inconclusive", o.inconclusive, "Exit status when nothing regressed but some timing is "
                      "INCONCLUSIVE: code (exit 3), pass (exit 0) or fail (exit 1)")
      ->check(CLI::IsMember({"code", "pass", "fail"}))
      ->capture_default_str();
  compare->add_option("--format", o.format, "text|markdown|json")->check(formats)->capture_default_str();
  compare->add_flag("--only-regressions", o.only_regressions, "List only FAILED, MISSING and REGRESSION rows (the summary stays)");
  compare->add_option("--match-ignore", o.match_ignore,
                      "Configuration fields to leave out of matching (comma-separated): points that differ only in "
                      "them are compared, e.g. --match-ignore threads")
      ->delimiter(',');
  compare->add_flag("--include-shared-gpu", o.include_shared_gpu,
                    "Also compare the timing of points whose ranks shared a GPU (flag shared-gpu; left out by default)");
  compare->add_flag("--across-hosts", o.across_hosts,
                    "Also compare timing between runs of different machine types (host fingerprints; left out by "
                    "default: the speed change would be the machine's)");
  add_ab(app, o);
}

// train: the run policy (recording, checkpoints beside the run file, a preempted run's exit code)
// is harness/record/recorded_run.h's; a preempted run exits 75 with nothing left to unwind.
void run_train(const TrainCli& t, int argc, char** argv) {
  scalebench::record::RunConfig rc = t.run;
  rc.train = t.cfg;
  const int code = scalebench::record::run_recorded(rc, t.output, std::vector<std::string>(argv, argv + argc), std::cout);
  if (code != 0) std::exit(code);
}

// The spec as sweep or ab runs it: the file with --name, --output and each --set applied to its text
// (overrides.h), each change printed once as "<cmd>: <spec> with <change>".
scalebench::study::SweepSpec spec_variant(const StudyOptions& o, const char* cmd, std::ostream& out) {
  namespace st = scalebench::study;
  const st::SweepSpec as_written = st::load_spec(o.spec);
  std::vector<st::SpecOverride> overrides;
  if (!o.name.empty()) overrides.push_back(st::string_override("study", "name", o.name, "--name " + o.name));
  if (!o.output.empty()) overrides.push_back(st::string_override("study", "output", o.output, "--output " + o.output));
  for (const auto& s : o.sets) overrides.push_back(st::parse_set(s));
  for (auto& v : overrides) v.command = cmd;
  if (overrides.empty()) return as_written;
  st::SweepSpec spec = st::with_overrides(as_written, overrides);
  std::istringstream lines(st::describe_overrides(as_written, overrides));
  for (std::string l; std::getline(lines, l);) out << cmd << ": " << o.spec << " with " << l << "\n";
  return spec;
}

int run_study_command(CLI::App& app, const StudyOptions& o) {
  namespace st = scalebench::study;
  if (app.got_subcommand("sweep")) {
    st::SweepSpec spec = spec_variant(o, "sweep", std::cout);
    if (o.repetitions > 0) spec = st::with_repetitions(spec, o.repetitions);
    const auto outcome = st::run_sweep(spec,
                                       {.launcher = o.launcher, .dry_run = o.dry_run, .exe = "", .profile = o.profile,
                                        .array_throttle = o.array_throttle},
                                       std::cout);
    return outcome.exit_code();  // 75: preempted, rerun; 128 + N: stopped by signal N
  }
  if (app.got_subcommand("ab")) {
    st::AbOptions ab = o.ab;
    ab.format = st::parse_format(o.format);
    return st::run_ab(spec_variant(o, "ab", std::cout), o.spec, ab, std::cout);
  }
  if (app.got_subcommand("status")) st::print_status(o.dir, std::cout);
  if (app.got_subcommand("slurm-point")) return st::slurm::run_slurm_point(o.dir, o.group, o.repetition, std::cout);
  if (app.got_subcommand("slurm-sweep")) return st::slurm::run_slurm_sweep(o.dir, std::cout);
  if (app.got_subcommand("run-guard")) return scalebench::record::run_guard_main(o.file, o.guard_pid);
  if (app.got_subcommand("collect")) st::collect(o.dir, o.out, std::cout, {.skip_unreadable = o.skip_unreadable});
  if (app.got_subcommand("report"))
    std::cout << st::report(st::read_study_file(o.file), st::parse_format(o.format), o.full);
  if (app.got_subcommand("compare")) {
    st::CompareOptions opt;
    opt.alpha = o.alpha;
    opt.include_shared_gpu = o.include_shared_gpu;
    opt.across_hosts = o.across_hosts;
    opt.match_ignore = o.match_ignore;
    for (const auto& t : o.thresholds) st::apply_threshold(opt.rules, t);
    const auto r = st::compare(st::read_study_file(o.base), st::read_study_file(o.now), opt);
    std::cout << st::render_compare(r, st::parse_format(o.format), o.only_regressions);
    const auto policy = o.inconclusive == "pass"   ? st::InconclusivePolicy::pass
                        : o.inconclusive == "fail" ? st::InconclusivePolicy::fail
                                                   : st::InconclusivePolicy::code;
    return st::compare_exit_code(r, policy);
  }
  return 0;
}

void add_commbench(CLI::App& app, scalebench::comm::CommbenchOptions& o, std::string& algos, std::string& colls,
                   std::string& types) {
  namespace sc = scalebench::comm;
  auto* cmd = app.add_subcommand("commbench", "Collective benchmark: time, algbw and busbw per message size (nccl-tests style)");
  cmd->add_option("--transport", o.transport,
                  "threads (ranks are threads of this process) | mpi (launch under mpirun/srun) | nccl (GPU builds: "
                  "device buffers, one GPU per rank)")
      ->check(CLI::IsMember({"threads", "mpi", "nccl"}))->capture_default_str();
  cmd->add_option("--coll", colls,
                  "Comma-separated collectives, each a table in nccl-tests' layout: " +
                      scalebench::enum_choices<sc::Coll>() + ", or all (allreduce also runs the --algo table)")
      ->capture_default_str();
  cmd->add_option("--dtype", types, "Comma-separated element types of the --coll tables: " + sc::comm_type_choices())
      ->capture_default_str();
  cmd->add_option("--algo", algos,
                  "Comma-separated allreduce algorithms compared (float, in place) when --coll has allreduce: native, "
                  "ring, hierarchical; none: no such table")
      ->capture_default_str();
  cmd->add_option("--sizes", o.sizes, "LO:HI[:FACTOR] (factor 2 by default) or A,B,C; units K, M, G (binary)")
      ->capture_default_str();
  cmd->add_option("--ranks", o.ranks, "Rank count for --transport threads (mpi uses the job's size)")->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Untimed calls per size and algorithm")->capture_default_str();
  cmd->add_option("--iters", o.iters, "Timed calls per size and algorithm")->capture_default_str();
  cmd->add_option("--chunk", o.chunk_bytes, "Pipeline chunk of ring/hierarchical (bytes; K/M suffixes)")
      ->transform(CLI::AsSizeValue(false))->capture_default_str();
  cmd->add_option("--depth", o.depth, "Receive slots in flight for ring/hierarchical")->capture_default_str();
  cmd->add_option("--ranks-per-node", o.ranks_per_node, "hierarchical: ranks per (emulated) node; 0 groups by host name")
      ->capture_default_str();
  cmd->add_option("--timeout", o.timeout_s, "Seconds a blocking wait may last before the run is ended")->capture_default_str();
  cmd->add_option("--spin-us", o.spin_us, "mpi: busy-poll time before a wait yields the core")->capture_default_str();
  cmd->add_option("--gap-ms", o.gap_ms,
                  "Busy compute (ms of wall time) before each call, not timed: calls spaced as a training step's "
                  "exchange is, after compute (project --commbench)")
      ->capture_default_str();
  cmd->add_option("--json", o.json_path, "Also write the results as JSON to this file");
}

// `trace merge`: rank files of `train --trace` into one timeline (harness/train/trace.h).
CLI::App* add_trace(CLI::App& app, std::vector<std::string>& inputs, std::string& out) {
  auto* cmd = app.add_subcommand("trace", "Step timelines written by train --trace");
  cmd->require_subcommand(1);
  auto* merge = cmd->add_subcommand("merge", "Merge per-rank trace files into one Chrome trace (a process per rank)");
  merge->add_option("inputs", inputs, "The ranks' trace files (FILE.rank<r>.json)")->required();
  merge->add_option("-o,--output", out, "The merged trace file (written atomically)")->required();
  return merge;
}

// One line on stderr, whatever the message holds: control characters (a newline or escape in a
// path someone passed) are shown as \n, \t or \xNN instead of breaking the line or the terminal.
std::string one_line(std::string_view msg) { return scalebench::printable(msg); }

int print_error(scalebench::ExitCode code, std::string_view msg) {
  std::cout.flush();
  std::fprintf(stderr, "scalebench: %s%s\n", code == scalebench::ExitCode::internal ? "internal error: " : "error: ",
               one_line(msg).c_str());
  return scalebench::exit_status(code);
}

// Started by a launcher (mpirun, srun) with other ranks, and not yet in their MPI world.
bool launched_before_mpi() {
  return scalebench::record::launcher_world_size() > 1 && !scalebench::comm::mpi_started();
}

// print_error, once per job: under a launcher every rank parses the same command line, so an error
// reached before a rank joined its MPI world (a bad option, a bad --config) is reached by every
// rank. Printing it on each is N copies; printing it on rank 0 alone loses it when a failing rank's
// exit makes mpirun (or srun) end the job before rank 0 has written. So the ranks join MPI just to
// agree (consistency.h's succeed_everywhere: rank 0 prints each distinct reason once, with the ranks
// that reached it, before any rank exits). Where MPI cannot start, each rank prints its own.
int report_error(scalebench::ExitCode code, std::string_view msg) {
  if (!launched_before_mpi()) return print_error(code, msg);
  try {
    scalebench::comm::MpiSession session;
    const auto world = scalebench::comm::make_mpi_world({.timeout_s = 60});
    scalebench::comm::succeed_everywhere(*world, [&] { throw scalebench::Error(std::string(msg)); });
  } catch (const scalebench::ReportedError&) {
    return scalebench::exit_status(code);
  } catch (const std::exception&) {
  }
  return print_error(code, msg);
}

// `scalebench --help`'s last lines: the exit statuses, from kernels/common/exit_codes.def.
std::string exit_code_footer() {
  std::string o = "Exit status:";
  for (const auto& r : scalebench::kExitCodes) {
    const bool base = r.code == scalebench::exit_status(scalebench::ExitCode::stopped);  // 128 + the signal
    o += fmt::format("\n  {:<6} {}", base ? "128+N" : std::to_string(r.code), r.meaning);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else: may re-execute this program once so OpenBLAS loads the kernels this CPU
  // supports and the thread pools wait as measured best (kernels/cpu/runtime_env.h).
  scalebench::cpu::prepare_cpu_runtime(argv);
  CLI::App app{"scalebench — HPC scaling studies of hand-written U-Net and VGG training"};
  app.require_subcommand(1);
  // One line per failure, like every other scalebench error (CLI11's default adds a second line).
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return "scalebench: error: " + one_line(e.what()) + "\n"; });
  app.footer(exit_code_footer());
  app.set_version_flag("--version", std::string("scalebench ") + SCALEBENCH_VERSION + " (" + scalebench::build_git_sha() + ")");
  scalebench::data::GenConfig gen;
  std::string gen_out, gen_task = "segmentation";
  TrainCli train;
  add_datagen(app, gen, gen_out, gen_task);
  add_train(app, train);
  StudyOptions study_opts;
  add_study_commands(app, study_opts);
  scalebench::comm::CommbenchOptions bench;
  std::string bench_algos, bench_colls = scalebench::comm::coll_list_text(bench.colls),
                           bench_types = scalebench::comm::type_list_text(bench.types);
  for (const auto& a : bench.algos) bench_algos += (bench_algos.empty() ? "" : ",") + a;
  add_commbench(app, bench, bench_algos, bench_colls, bench_types);
  std::vector<std::string> trace_inputs;
  std::string trace_out;
  CLI::App* trace_merge = add_trace(app, trace_inputs, trace_out);
  scalebench::project::ProjectCli project;
  CLI::App* project_cmd = scalebench::project::add_project(app, project);
  bool parse_only = false;
  app.add_flag("--parse-only", parse_only,
               "Parse and validate the command line, print 'parse-only: ok' (train: and the effective options) and run "
               "nothing (the docs test uses it)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end 0; every command-line error is bad input (CLI11's own codes, 105 or
    // 114, are not ours: exit_codes.def).
    if (e.get_exit_code() != 0 && launched_before_mpi())  // --help prints everywhere; an error once
      return report_error(scalebench::ExitCode::failed, e.what());
    const int cli = app.exit(e);
    return scalebench::exit_status(cli == 0 ? scalebench::ExitCode::ok : scalebench::ExitCode::failed);
  }
  if (parse_only) {
    try {
      if (app.got_subcommand("train")) {
        apply_train_config(train);
        train.cfg.validate();
        train.run.validate();
      }
      std::cout << "parse-only: ok\n";
      // train: the effective options (flags over --config over defaults), one `key = value` each.
      if (app.got_subcommand("train"))
        for (const auto& f : scalebench::train_fields()) std::cout << f.key << " = " << f.text(train.cfg) << "\n";
      return 0;
    } catch (const scalebench::Error& e) {
      return print_error(scalebench::ExitCode::failed, e.what());
    }
  }
  try {
    if (app.got_subcommand("datagen")) {
      gen.task = gen_task == "segmentation" ? scalebench::data::Task::segmentation
                                            : scalebench::data::Task::classification;
      scalebench::data::write_dataset(gen, gen_out);
      std::cout << "datagen: wrote " << gen.n << " " << gen_task << " images of " << gen.size << "x" << gen.size
                << " to " << gen_out << "\n";
    } else if (app.got_subcommand("train")) {
      apply_train_config(train);
      run_train(train, argc, argv);
    } else if (app.got_subcommand("sweep") || app.got_subcommand("collect") || app.got_subcommand("report") ||
               app.got_subcommand("compare") || app.got_subcommand("status") || app.got_subcommand("ab") ||
               app.got_subcommand("slurm-point") || app.got_subcommand("slurm-sweep") || app.got_subcommand("run-guard")) {
      return run_study_command(app, study_opts);
    } else if (app.got_subcommand("commbench")) {
      bench.colls = scalebench::comm::parse_coll_list(bench_colls, "--coll");
      bench.types = scalebench::comm::parse_type_list(bench_types, "--dtype");
      bench.algos.clear();
      for (std::size_t b = 0, e; bench_algos != "none" && b <= bench_algos.size(); b = e + 1) {
        e = std::min(bench_algos.find(',', b), bench_algos.size());
        bench.algos.push_back(bench_algos.substr(b, e - b));
      }
      return scalebench::comm::commbench_main(bench, std::cout);
    } else if (project_cmd->parsed()) {
      return scalebench::project::run_project(project, std::cout);
    } else if (trace_merge->parsed()) {
      scalebench::trace::merge(trace_inputs, trace_out);
      std::cout << "trace merge: " << trace_inputs.size() << " rank file(s) -> " << trace_out << "\n";
    } else {  // a subcommand added without its branch here would otherwise end silently with 0
      throw std::logic_error("subcommand '" + app.get_subcommands().at(0)->get_name() + "' has no handler in main()");
    }
  } catch (const scalebench::ReportedError&) {  // rank 0 printed it for the whole job (fail_everywhere)
    return scalebench::exit_status(scalebench::ExitCode::failed);
  } catch (const scalebench::Error& e) {
    return report_error(scalebench::ExitCode::failed, e.what());
  } catch (const std::bad_alloc& e) {
    return report_error(scalebench::ExitCode::failed, scalebench::failure_text(e));
  } catch (const std::exception& e) {
    return report_error(scalebench::ExitCode::internal, e.what());
  }
  return 0;
}
