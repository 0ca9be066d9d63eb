// ab.cpp — `scalebench ab`: the sides' points, the interleaved runs, collect, the paired verdicts
// (see ab.h).
#include "harness/study/ab/ab.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/record/context.h"
#include "harness/record/run_config.h"
#include "harness/study/ab/paired.h"
#include "harness/study/analysis/collect.h"
#include "harness/study/launch/command.h"
#include "harness/study/launch/dataset_prep.h"
#include "harness/study/launch/run_point.h"
#include "harness/study/launch/subprocess.h"
#include "harness/study/progress.h"
#include "harness/study/spec/overrides.h"
#include "harness/study/spec/spec.h"
#include "harness/study/study_lock.h"
#include "harness/study/sweep.h"
#include "harness/train/preemption.h"
#include "harness/train/train_fields.h"
#include "kernels/common/check.h"
#include "kernels/common/write_file.h"

namespace scalebench::study {
namespace {

namespace fs = std::filesystem;

constexpr double kStopGraceSeconds = 20;  // as a sweep's (local.cpp)

// Options each point of the spec sets itself (expand()): an A/B of them is two specs, not two sides.
constexpr const char* kPerPoint[] = {"model", "strategy", "data", "devices", "batch"};

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

struct Side {
  char name;                          // 'A' or 'B'
  std::vector<std::pair<std::string, std::string>> set;
  std::string exe;
  std::vector<std::string> prefix;    // wrap words, then `env K=V ...`
  std::vector<record::RunConfig> points;
  std::string dir;                    // <output>/a
};

Side make_side(char name, const AbSide& s, const std::string& output) {
  Side side{name, {}, s.binary, words(s.wrap), {}, (fs::path(output) / std::string(1, char(name + 32))).string()};
  const std::string opt = fmt::format("--{}", char(name + 32));
  for (const std::string& w : words(s.set)) {
    const auto eq = w.find('=');
    SB_REQUIRE(eq != std::string::npos && eq > 0, "{} '{}': '{}' is not key=value (e.g. threads=2)", opt, s.set, w);
    const std::string key = w.substr(0, eq);
    for (const char* k : kPerPoint)
      SB_REQUIRE(key != k, "{} '{}': {} is set per point by the spec's [sweep]; compare two specs for that", opt,
                 s.set, key);
    SB_REQUIRE(find_train_field(key), "{} '{}': '{}' is not a train option (keys as `scalebench train`'s long "
               "names with '_', e.g. threads, bucket_mb)", opt, s.set, key);
    side.set.push_back({key, w.substr(eq + 1)});
  }
  if (!s.binary.empty())
    SB_REQUIRE(::access(s.binary.c_str(), X_OK) == 0, "{}-binary {}: not an executable file", opt, s.binary);
  if (!s.env.empty()) side.prefix.push_back("env");
  for (const std::string& e : s.env) {
    SB_REQUIRE(e.find('=') != std::string::npos && e.find('=') > 0, "{}-env '{}': not KEY=VALUE", opt, e);
    side.prefix.push_back(e);
  }
  return side;
}

// The spec's points with the side's options; each validated as train would.
void side_points(Side& side, const SweepSpec& spec, const std::vector<record::RunConfig>& points) {
  for (record::RunConfig c : points) {
    for (const auto& [k, v] : side.set)
      if (auto problem = find_train_field(k)->parse(c.train, v))
        fail_input(fmt::format("--{} {}={}: {}", char(side.name + 32), k, v, *problem));
    try {
      c.train.validate();
      c.validate();
    } catch (const Error& e) {
      fail_input(fmt::format("--{}: point {}{}: {}", char(side.name + 32), record::point_label(c),
                             axes_label(spec, c), e.what()));
    }
    side.points.push_back(std::move(c));
  }
}

// <output>/ab.toml: what each side was, for whoever reads the folder later.
void write_description(const std::string& output, const std::string& spec_path, const AbOptions& opt) {
  std::ofstream f(fs::path(output) / "ab.toml", std::ios::binary);
  if (opt.interleave == AbInterleave::slice)
    f << fmt::format("# scalebench ab {}: each pair's two runs together on one CPU, taking turns\npairs = {}\n"
                     "interleave = \"slice\"\nslice_ms = {:g}\n", spec_path, opt.pairs, opt.slice_ms);
  else
    f << fmt::format("# scalebench ab {}: pair k runs A then B (k odd) or B then A (k even)\npairs = {}\n"
                     "interleave = \"run\"\n", spec_path, opt.pairs);
  const auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return q + "\"";
  };
  for (const auto& [name, s] : {std::pair{"a", &opt.a}, std::pair{"b", &opt.b}}) {
    std::string env;
    for (const auto& e : s->env) env += (env.empty() ? "" : ", ") + quoted(e);
    f << fmt::format("\n[{}]\nset = {}\nbinary = {}\nenv = [{}]\nwrap = {}\n", name, quoted(s->set),
                     quoted(s->binary), env, quoted(s->wrap));
  }
}

// --interleave slice: the CPU both sides share; by default the last one this process may use
// (the first is where a shell's other work tends to land).
std::string default_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return "0";
  for (int c = CPU_SETSIZE - 1; c >= 0; --c)
    if (CPU_ISSET(c, &set)) return std::to_string(c);
  return "0";
}

// A slice pair's turn file, zeroed before each pair (harness/train/turn_gate.cpp maps it).
void reset_turn_file(const std::string& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  const std::string zeros(64, '\0');
  f.write(zeros.data(), std::streamsize(zeros.size()));
  SB_REQUIRE(f.good(), "{}: cannot write the turn file", path);
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One side's run of point i, as both orders launch it: its run file, its progress prefix, its command
// (`before` + the side's wrap and env + `after` + the launch), and what its run file said before.
struct PlannedRun {
  const record::RunConfig* c;
  std::string runs, path, pre;
  std::vector<std::string> cmd;
  PriorRun prior;
};
PlannedRun plan_run(const Side& s, std::size_t i, std::size_t step, const SweepSpec& spec, int pairs,
                    const std::string& self, const std::string& output, const std::vector<std::string>& before = {},
                    const std::vector<std::string>& after = {}) {
  PlannedRun r{&s.points[i], (fs::path(s.dir) / "runs").string(), "", "", before, {}};
  r.path = (fs::path(r.runs) / (record::run_id(*r.c) + ".h5")).string();
  r.pre = fmt::format("[{}/{}] {} {}{} pair {}/{}", step, 2 * s.points.size(), s.name, record::point_label(*r.c),
                      axes_label(spec, *r.c), r.c->repetition, pairs);
  r.cmd.insert(r.cmd.end(), s.prefix.begin(), s.prefix.end());
  r.cmd.insert(r.cmd.end(), after.begin(), after.end());
  for (auto& w : launch_command(*r.c, s.exe.empty() ? self : s.exe, r.runs)) r.cmd.push_back(std::move(w));
  r.prior = prior_run(r.path);
  // A run another process still makes (an earlier ab's orphan) would share the cores with this one
  // and distort both timings.
  SB_REQUIRE(r.prior.kind != PriorRun::Kind::live, "{}: {} is still running ({}; {}): wait for it to end or stop it, "
             "then run ab again", output, r.pre, r.prior.why, r.path);
  return r;
}

struct SliceOutcome {
  int ran = 0, skipped = 0, failed = 0;
  bool preempted = false;
};

// Point i's pair with --interleave slice: A streamed as a sweep's point, B beside it with its lines
// in a log, both pinned to `cpus`, the turn shared through <output>/turn.bin.
SliceOutcome run_slice_pair(const Side& a, const Side& b, std::size_t i, const SweepSpec& spec, const AbOptions& opt,
                            const std::string& cpus, const std::string& self, const std::string& output,
                            StudyProgress& progress, std::size_t& step, std::ostream& out) {
  SliceOutcome r;
  const std::string turn = (fs::path(output) / "turn.bin").string();
  std::vector<PlannedRun> ones;
  for (const Side* s : {&a, &b})
    ones.push_back(plan_run(*s, i, ++step, spec, opt.pairs, self, output, {"taskset", "-c", cpus},
                            {"env", fmt::format("SCALEBENCH_AB_TURN={}:{}:{:g}", turn, char(s->name + 32), opt.slice_ms)}));
  const int ok_before = int(ones[0].prior.kind == PriorRun::Kind::ok) + int(ones[1].prior.kind == PriorRun::Kind::ok);
  if (ok_before == 2) {
    for (const PlannedRun& o : ones) {
      out << o.pre << " ok already (" << o.path << "), skipped\n";
      progress.point_done(false, 0);
    }
    out << std::flush;
    r.skipped = 2;
    return r;
  }
  if (ok_before == 1)
    out << ones[0].pre << ": one side of this pair is ok already, the other not: both run again (a slice pair's "
        << "runs are timed together)\n";
  const std::string log_b = (fs::path(ones[1].runs) / (record::run_id(*ones[1].c) + ".log")).string();
  for (const PlannedRun& o : ones)
    out << o.pre << " run: " << join_command(o.cmd) << (&o == &ones[1] ? "  (its lines: " + log_b + ")" : "") << "\n";
  out << std::flush;
  if (opt.dry_run) return r;
  reset_turn_file(turn);
  const double started = now_s();
  const int pid_b = start_logged_child(ones[1].cmd, log_b);
  const PointResult res_a = run_point(*ones[0].c, ones[0].cmd, ones[0].path, ones[0].pre, out);
  const int stop = stop_signal();
  const ChildExit ex_b = stop ? stop_logged_child(pid_b, stop == SIGHUP ? SIGTERM : stop, kStopGraceSeconds)
                              : wait_child(pid_b, 0);
  const PointResult res_b = settle_point(*ones[1].c, ex_b, read_lines(log_b), ones[1].cmd, ones[1].path, ones[1].pre,
                                         out);
  for (const PointResult res : {res_a, res_b}) {
    progress.point_done(true, (now_s() - started) / 2);
    ++r.ran;
    r.failed += res == PointResult::failed;
    r.preempted |= res == PointResult::preempted;
  }
  out << "ab: " << progress.line(now_s()) << "\n" << std::flush;
  return r;
}

}  // namespace

int run_ab(const SweepSpec& spec_as_given, const std::string& spec_path, const AbOptions& opt, std::ostream& out) {
  SB_REQUIRE(opt.pairs >= 1 && opt.pairs <= 200, "--pairs {}: must be 1 to 200", opt.pairs);
  std::vector<MetricRule> rules = default_rules();
  for (const auto& t : opt.thresholds) apply_threshold(rules, t);
  const SweepSpec spec = with_repetitions(spec_as_given, opt.pairs);
  check_sweep_inputs(spec);
  std::string output = opt.output;
  if (output.empty()) {  // results/smoke/ -> results/smoke-ab
    output = spec.output;
    while (output.size() > 1 && output.back() == '/') output.pop_back();
    output += "-ab";
  }
  const auto points = expand(spec);
  Side a = make_side('A', opt.a, output), b = make_side('B', opt.b, output);
  side_points(a, spec, points);
  side_points(b, spec, points);
  const bool slice = opt.interleave == AbInterleave::slice;
  const std::string cpus = opt.cpus.empty() ? default_cpu() : opt.cpus;
  if (slice)
    for (const auto& c : points)
      SB_REQUIRE(c.world_size == 1, "--interleave slice: point {}{} runs {} devices; only single-device points take "
                 "turns on one CPU (use --interleave run, or a spec of N = 1 points)", record::point_label(c),
                 axes_label(spec, c), c.world_size);
  const std::string self = record::self_executable();
  out << fmt::format("ab: {}: {} point{} x {} pairs, {} -> {}\n", spec.name, points.size() / opt.pairs,
                     points.size() / opt.pairs == 1 ? "" : "s", opt.pairs,
                     slice ? fmt::format("each pair's runs together on CPU {}, taking turns every {:g} ms", cpus,
                                         opt.slice_ms)
                           : std::string("alternating ABBA"),
                     output)
      << std::flush;
  prepare_dataset(spec, opt.dry_run, out);
  for (Side* s : {&a, &b})
    for (auto& c : s->points) record::identify_data(c);  // the run ids as the children compute them
  std::optional<StudyLock> lock;
  if (!opt.dry_run) {
    lock.emplace(output, "ab");  // one writer per folder, as a sweep's
    for (Side* s : {&a, &b}) {
      std::error_code ec;
      fs::create_directories(fs::path(s->dir) / "runs", ec);
      SB_REQUIRE(!ec, "{}: cannot create the folder: {}", s->dir, ec.message());
      std::ofstream(fs::path(s->dir) / "study.toml", std::ios::binary) << spec.text;
    }
    write_description(output, spec_path, opt);
    forward_signal_to_child(SIGUSR1);
    stop_children_on_signals(kStopGraceSeconds);
  }
  StudyProgress progress(2 * points.size(), now_s());
  int failed = 0, ran = 0, skipped = 0, stopped = 0;
  bool preempted = false;
  std::size_t step = 0;
  for (std::size_t i = 0; i < points.size() && !stopped && !preempted; ++i) {
    if (slice) {
      const SliceOutcome r = run_slice_pair(a, b, i, spec, opt, cpus, self, output, progress, step, out);
      ran += r.ran, skipped += r.skipped, failed += r.failed;
      preempted |= r.preempted;
      stopped = stop_signal();
      continue;
    }
    const bool a_first = points[i].repetition % 2 == 1;
    for (Side* s : a_first ? std::vector<Side*>{&a, &b} : std::vector<Side*>{&b, &a}) {
      if ((stopped = stop_signal())) break;
      const auto [cp, runs, path, pre, cmd, prior] = plan_run(*s, i, ++step, spec, opt.pairs, self, output);
      const record::RunConfig& c = *cp;
      if (prior.kind == PriorRun::Kind::ok) {
        ++skipped;
        out << pre << " ok already (" << path << "), skipped\n" << std::flush;
        progress.point_done(false, 0);
        continue;
      }
      out << pre << " run: " << join_command(cmd) << "\n" << std::flush;
      if (opt.dry_run) continue;
      const double started = now_s();
      const PointResult res = run_point(c, cmd, path, pre, out);
      progress.point_done(true, now_s() - started);
      out << "ab: " << progress.line(now_s()) << "\n" << std::flush;
      ++ran;
      failed += res == PointResult::failed;
      preempted |= res == PointResult::preempted;
      if ((stopped = stop_signal()) || preempted) break;
    }
  }
  if (opt.dry_run) return 0;
  if (stopped || preempted) {
    out << fmt::format("ab: {}: the runs not yet made are not launched; run the same command again to finish\n",
                       stopped ? "stopped by " + signal_name(stopped) : std::string("preempted"));
    return stopped ? 128 + stopped : kExitPreempted;
  }
  out << fmt::format("ab: {} runs: {} ran, {} skipped (ok before), {} failed\n", 2 * points.size(), ran, skipped,
                     failed);
  const std::string fa = (fs::path(output) / "a.h5").string(), fb = (fs::path(output) / "b.h5").string();
  const StudyFile sa = collect(a.dir, fa, out), sb = collect(b.dir, fb, out);
  std::vector<AbPoint> pts;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].repetition == 1)
      pts.push_back({record::point_label(points[i]) + axes_label(spec, points[i]), record::point_id(a.points[i]),
                     record::point_id(b.points[i])});
  const AbResult result = paired_compare(sa, sb, pts, rules, opt.alpha);
  const std::string verdicts = (fs::path(output) / "verdicts.json").string();
  scalebench::write_file_atomically(verdicts, render_ab(result, Format::json));
  out << render_ab(result, opt.format);
  out << "ab: the verdicts as JSON: " << verdicts << "\n";
  {
    std::vector<std::string> keys;  // the options the sides set: what compare must match ignoring
    for (const Side* s : {&a, &b})
      for (const auto& [k, v] : s->set)
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    out << fmt::format("ab: quality and memory, unpaired: scalebench compare {} {}{}\n", fa, fb,
                       keys.empty() ? "" : " --match-ignore " + fmt::format("{}", fmt::join(keys, ",")));
  }
  return failed ? 1 : 0;
}

}  // namespace scalebench::study
