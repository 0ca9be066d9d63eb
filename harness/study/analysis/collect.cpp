// collect.cpp — run files → study table with speedup/efficiency (see collect.h).
#include "harness/study/analysis/collect.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>

#include "harness/record/context.h"
#include "harness/record/host_fingerprint.h"
#include "harness/record/run_noise.h"
#include "harness/record/run_config.h"
#include "harness/study/analysis/metric_table.h"
#include "harness/study/analysis/point_fields.h"
#include "harness/study/analysis/point_stats.h"
#include "harness/study/analysis/run_filter.h"
#include "harness/study/analysis/stats.h"
#include "harness/study/analysis/tuning.h"
#include "harness/study/spec/spec.h"
#include "harness/study/status.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

namespace fs = std::filesystem;
using record::Attrs;
using record::kNaN;

// Config columns: every option a run file records (the field tables), typed as the table says, and
// what the recorder derives.
const char* kDerivedStrings[] = {"task", "canonical_model"};
const char* kDerivedInts[] = {"global_batch", "params", "steps_per_epoch"};

template <class C>
void add_config_columns(Attrs& r, const Attrs& config, std::span<const Field<C>> fields) {
  for (const auto& f : fields) {
    if (!f.attr) continue;
    const std::string k(f.key);
    if (!config.has(k)) {  // a file from before the option existed ran with its default
      r.set(k, f.value(C{}));
      continue;
    }
    switch (f.kind) {
      case ValueKind::string: r.set(k, config.str(k)); break;
      case ValueKind::number: r.set(k, config.num(k)); break;
      case ValueKind::integer:
      case ValueKind::boolean: r.set(k, config.integer(k)); break;
    }
  }
}
// Summary fields are float64 in the study table so that a run without a summary reads NaN: the
// metrics of metrics.def whose source is the summary, and these facts beside them.
// The target's (record/summary.h summarize_target) and the gradient noise scale, b_simple, when the
// run recorded one (NaN otherwise).
const char* kSummaryFacts[] = {"peak_tflops", "comm_bytes_per_step", "final_train_loss", "train_flops_per_image",
                               "measured_epochs", "measured_steps", "step_time_iqr_s", "step_time_cv",
                               "target_value", "target_reached", "target_checks", "epochs_to_target",
                               "images_to_target", "seconds_to_target", "target_best", "target_best_step",
                               "target_best_epochs", "b_simple"};

// The spec its sweep kept in the study folder (study.toml), when there is one: its [select], and
// its dataset path (the data the study's runs are on, run_filter.h).
std::optional<SweepSpec> spec_of(const std::string& dir) {
  const fs::path spec = fs::path(dir) / "study.toml";
  if (!fs::exists(spec)) return std::nullopt;
  return load_spec(spec.string());
}

}  // namespace

Attrs study_row(const record::RunFile& f, const std::string& file) {
  Attrs r;
  for (const char* k : {"run_id", "point_id", "group_id"}) r.set(k, f.config.str(k));
  r.set("status", f.status);
  r.set("error", f.error);
  add_config_columns(r, f.config, train_fields());
  add_config_columns(r, f.config, record::run_fields());
  for (const char* k : kDerivedStrings) r.set(k, f.config.str(k));
  for (const char* k : kDerivedInts) r.set(k, f.config.integer(k));
  r.set("lr_effective", f.config.num("lr_effective"));
  for (const Metric& m : metric_table())
    if (m.source == "summary") r.set(m.name, f.summary.num(m.name));
  for (const char* k : kSummaryFacts) r.set(k, f.summary.num(k));
  r.set("peak_method", f.summary.str("peak_method"));  // what MFU divides by (compare shows a change)
  r.set("target_metric", f.summary.str("target_metric"));
  r.set("epochs_done", std::int64_t(f.epochs.rows()));
  for (const std::string& k : context_columns()) r.set(k, f.context.str(k));
  for (const std::string& k : record::noise_fields()) r.set(k, f.context.num(k));  // NaN in older files
  r.set("created_utc", f.created_utc);
  r.set("file", file);
  return r;
}

void add_speedup(record::Table& runs) {
  using K = record::Column::Kind;
  const std::size_t n = runs.rows();
  // Baseline images/s per (group, strategy): the median over that strategy's ok N = 1 runs.
  std::map<std::pair<std::string, std::string>, std::vector<double>> base;
  for (std::size_t r = 0; r < n; ++r)
    if (runs.str("status", r) == "ok" && runs.integer("world_size", r) == 1)
      base[{runs.str("group_id", r), runs.str("strategy", r)}].push_back(runs.num("images_per_s", r));
  runs.add("baseline", K::str);
  runs.add("baseline_images_per_s", K::f64);
  runs.add("speedup", K::f64);
  runs.add("efficiency", K::f64);
  // Looked up after all four add() calls: an add() may move the columns.
  record::Column* bc = runs.find("baseline");
  record::Column* bi = runs.find("baseline_images_per_s");
  record::Column* s = runs.find("speedup");
  record::Column* e = runs.find("efficiency");
  for (std::size_t r = 0; r < n; ++r) {
    bc->s[r].clear();
    bi->f[r] = s->f[r] = e->f[r] = kNaN;
    if (runs.str("status", r) != "ok") continue;
    const std::string group = runs.str("group_id", r), strategy = runs.str("strategy", r);
    auto it = base.find({group, strategy});
    if (it == base.end()) it = base.find({group, "single"});
    if (it == base.end()) continue;
    const double b = median(it->second);
    bc->s[r] = it->first.second + " N=1";
    bi->f[r] = b;
    s->f[r] = speedup(runs.num("images_per_s", r), b);
    e->f[r] = efficiency(s->f[r], double(std::max<std::int64_t>(1, runs.integer("world_size", r))));
  }
}

StudyFile collect(const std::string& dir, const std::string& out, std::ostream& log, const CollectOptions& opt) {
  SB_REQUIRE(fs::is_directory(dir), "{}: not a folder (give the study folder, e.g. results/cpu-demo/)", dir);
  fs::path runs_dir = fs::path(dir) / "runs";
  if (!fs::is_directory(runs_dir)) runs_dir = dir;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(runs_dir))
    if (e.is_regular_file() && e.path().extension() == ".h5" && e.path().filename() != "study.h5")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  SB_REQUIRE(!files.empty(), "{}: no run files (*.h5) — run `scalebench sweep <spec>` first", runs_dir.string());

  ReadRuns runs;
  std::size_t unreadable = 0;
  std::string first_problem;
  for (const auto& p : files) {
    try {
      runs.files.push_back(record::read_run_file(p.string()));
      runs.paths.push_back(p.string());
    } catch (const Error& e) {
      if (opt.skip_unreadable) log << "collect: skipping " << p.string() << ": " << e.what() << "\n";
      if (!unreadable++) first_problem = e.what();
    }
  }
  SB_REQUIRE(opt.skip_unreadable || unreadable == 0,
             "{} — {} of the {} run files in {} {}; nothing was written (remove or rerun {}, or pass "
             "--skip-unreadable to collect the rest)", first_problem, unreadable, files.size(), runs_dir.string(),
             unreadable > 1 ? "are unreadable (this is the first)" : "is unreadable", unreadable > 1 ? "them" : "it");
  // Each run once, and the runs of one dataset only (run_filter.h): checked before anything is
  // written, and said in one line each.
  const std::optional<SweepSpec> spec = spec_of(dir);
  std::size_t copies = 0, other_data = 0;
  const std::string copies_line = drop_copies(runs, copies);
  const std::string data_line = drop_other_data(runs, spec ? spec->data : "", other_data);  // may refuse: one line
  for (const std::string& line : {copies_line, data_line})
    if (!line.empty()) log << "collect: " << line << "\n";
  // A run file that still says running: alive, or its writer is gone (status.h).
  const SlurmView view = query_slurm(running_slurm_jobs(runs.files));
  StudyFile sf;
  std::string name;
  for (std::size_t i = 0; i < runs.files.size(); ++i) {
    record::RunFile& f = runs.files[i];
    if (name.empty()) name = f.config.str("study");
    if (f.status == "running") {
      const auto lv = running_liveness(f, runs.paths[i], view);
      if (lv.state == record::Liveness::dead) {
        f.status = "failed";
        f.error = "dead: " + lv.why + " (its run file still says running)";
        log << "collect: " << runs.paths[i] << ": " << f.error << "; recorded as failed\n";
      }
    }
    sf.runs.append(study_row(f, fs::relative(runs.paths[i], dir).string()));
  }
  SB_REQUIRE(sf.runs.rows() > 0, "{}: none of the {} files is a readable run file", runs_dir.string(), files.size());
  add_speedup(sf.runs);
  add_point_stats(sf.runs);
  add_seed_stats(sf.runs);
  const SelectSpec select = spec ? spec->select : SelectSpec{};
  sf.selection = select_best(sf.runs, select);
  if (select.active()) {
    std::string tuned;
    for (const std::string& k : select.tuned) tuned += (tuned.empty() ? "" : ",") + k;
    sf.attrs.set("select_objective", select.objective);
    sf.attrs.set("select_tuned", tuned);
  }
  sf.metrics = metrics_as_table();
  std::int64_t ok = 0;
  for (std::size_t r = 0; r < sf.runs.rows(); ++r) ok += sf.runs.str("status", r) == "ok";
  if (name.empty()) name = fs::path(dir).lexically_normal().filename().string();
  sf.attrs.set("schema_version", record::kSchemaVersion);
  sf.attrs.set("kind", "study");
  sf.attrs.set("writer", std::string("scalebench ") + SCALEBENCH_VERSION);
  sf.attrs.set("created_utc", record::utc_now());
  sf.attrs.set("study", name);
  sf.attrs.set("runs", std::int64_t(sf.runs.rows()));
  sf.attrs.set("runs_ok", ok);
  sf.attrs.set("runs_duplicate", std::int64_t(copies));
  sf.attrs.set("runs_other_data", std::int64_t(other_data));
  std::string keys;  // the configuration columns that tell points apart (plots label series by them)
  for (const std::string& k : point_keys()) keys += (keys.empty() ? "" : ",") + k;
  sf.attrs.set("point_fields", keys);
  sf.attrs.set("speedup_definition",
               "speedup = images_per_s / median images_per_s of the ok N=1 runs of the same group_id and strategy "
               "(else of the group's single runs); efficiency = speedup / world_size");
  const std::string path = out.empty() ? (fs::path(dir) / "study.h5").string() : out;
  write_study_file(path, sf);
  log << fmt::format("collect: {} runs ({} ok, {} not ok) -> {}\n", sf.runs.rows(), ok, sf.runs.rows() - std::size_t(ok),
                     path);
  return sf;
}

const std::vector<std::string>& context_columns() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> c = {"hostnames", record::kHostFingerprintKey};
    for (const record::HostField& f : record::host_fields()) c.push_back(f.key);  // the machine type
    for (const char* x : {"gpu_stack", "blas", "blas_core", "thread_budget", "rank_threads", "cpu_warnings", "compiler",
                          "build_type", "mpi_version", "hdf5_version", "git_sha", "git_dirty", "git_sha_build", "scalebench_version",
                          "transport_used", "gpu_shared"})
      c.push_back(x);
    return c;
  }();
  return k;
}

std::string distinct_values(const record::Table& t, const std::string& column) {
  std::vector<std::string> v;
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (const std::string x = t.str(column, r); !x.empty() && std::find(v.begin(), v.end(), x) == v.end())
      v.push_back(x);
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "-" : s;
}

std::vector<PointRows> group_points(const record::Table& runs) {
  std::vector<PointRows> out;
  std::map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < runs.rows(); ++r) {
    const std::string id = runs.str("point_id", r);
    auto [it, fresh] = index.try_emplace(id, out.size());
    if (fresh) out.push_back({id, {}, {}});
    out[it->second].rows.push_back(r);
    if (runs.str("status", r) == "ok") out[it->second].ok_rows.push_back(r);
  }
  return out;
}

double point_median(const record::Table& runs, const PointRows& p, const std::string& column) {
  std::vector<double> v;
  for (auto r : p.ok_rows)
    if (double x = runs.num(column, r); !std::isnan(x)) v.push_back(x);
  return median(v);
}

}  // namespace scalebench::study
