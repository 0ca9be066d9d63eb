// slurm/submit.cpp — writing and submitting the study's sbatch scripts (see slurm/submit.h).
#include "harness/study/launch/slurm/submit.h"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "harness/record/context.h"
#include "harness/record/run_config.h"
#include "harness/record/run_file.h"
#include "harness/study/launch/dataset_prep.h"
#include "harness/study/launch/command.h"
#include "harness/study/launch/run_point.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/launch/subprocess.h"
#include "kernels/common/check.h"

#ifndef SCALEBENCH_SOURCE_DIR
#define SCALEBENCH_SOURCE_DIR "."
#endif

namespace scalebench::study::slurm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kJobsHeader = "submitted_utc\tgroup\tjob_id\trepetitions\tscript\tlabel";

void write_text(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    SB_REQUIRE(f.good(), "{}: cannot write", tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  SB_REQUIRE(!ec, "{}: cannot write: {}", path.string(), ec.message());
}

void append_job(const fs::path& jobs, const JobRecord& r) {
  const bool fresh = !fs::exists(jobs);
  std::ofstream f(jobs, std::ios::binary | std::ios::app);
  if (fresh) f << kJobsHeader << "\n";
  f << r.submitted_utc << '\t' << r.group << '\t' << r.job_id << '\t' << r.repetitions << '\t' << r.script << '\t'
    << r.label << "\n";
  f.flush();
  SB_REQUIRE(f.good(), "{}: cannot record job {} (submitted; cancel it or add it by hand)", jobs.string(), r.job_id);
}

// sbatch --parsable prints "<id>" or "<id>;<cluster>".
std::string submit(const std::string& sbatch, const fs::path& script) {
  std::string id, last_err;
  const ChildExit ex = run_child({sbatch, "--parsable", script.string()}, [&](const std::string& line, bool err) {
    if (err) last_err = line;
    else if (id.empty() && !line.empty()) id = line.substr(0, line.find(';'));
  });
  SB_REQUIRE(ex.ok(), "{} {}: {}{}", sbatch, script.string(), ex.describe(), last_err.empty() ? "" : ": " + last_err);
  SB_REQUIRE(!id.empty() && id.find_first_not_of("0123456789_") == std::string::npos,
             "{} {}: expected a job id from --parsable, got '{}'", sbatch, script.string(), id);
  return id;
}

}  // namespace

SubmitOutcome submit_study(const SweepSpec& spec, const Profile& p, const SubmitOptions& opt, std::ostream& out) {
  const auto points = expand(spec);
  const auto groups = group_points(points);
  const fs::path study = spec.output;
  const fs::path slurm_dir = study / "slurm";
  ScriptPaths paths{.study_dir = spec.output,
                    .workdir = fs::current_path().string(),
                    .exe = !opt.exe.empty() ? opt.exe : !p.scalebench.empty() ? p.scalebench : record::self_executable(),
                    .source_dir = SCALEBENCH_SOURCE_DIR};
  while (paths.study_dir.size() > 1 && paths.study_dir.back() == '/') paths.study_dir.pop_back();

  out << fmt::format("sweep: {}: {} points in {} jobs ({} models x {} strategies x {} device counts; {} repetitions "
                     "each as a job array) -> Slurm via profile {} ({})\n",
                     spec.name, points.size(), groups.size(), spec.models.size(), spec.strategies.size(),
                     spec.devices.size(), spec.repetitions, p.name, p.source)
      << std::flush;

  // Render every script before writing or submitting anything: a bad value stops the sweep with
  // nothing submitted.
  struct Planned {
    const PointGroup* g;
    std::vector<int> reps;
    std::string name, text;
  };
  std::vector<Planned> plan;
  SubmitOutcome r;
  r.groups = int(groups.size());
  for (const auto& g : groups) {
    Planned pl{&g, {}, point_script_name(g), ""};
    for (const auto& c : g.reps) {
      if (run_file_ok((study / "runs" / (record::run_id(c) + ".h5")).string())) {
        ++r.repetitions_ok;
        continue;
      }
      pl.reps.push_back(c.repetition);
    }
    if (pl.reps.empty()) {
      out << fmt::format("[{}/{}] {}: ok already, not submitted\n", g.index, groups.size(), g.label);
      continue;
    }
    pl.text = point_script(spec.name, g, pl.reps, p, paths);
    plan.push_back(std::move(pl));
  }

  prepare_dataset(spec, opt.dry_run, out);  // generated here, once, before any job could need it
  std::error_code ec;
  fs::create_directories(study / "runs", ec);
  fs::create_directories(slurm_dir / "logs", ec);
  SB_REQUIRE(!ec, "{}: cannot create the folder: {}", (slurm_dir / "logs").string(), ec.message());
  write_text(study / "study.toml", spec.text);
  write_text(slurm_dir / "profile.toml", p.text);

  const fs::path jobs = slurm_dir / "jobs.tsv";
  std::vector<std::string> point_jobs;
  for (const auto& pl : plan) {
    const fs::path script = slurm_dir / pl.name;
    write_text(script, pl.text);
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
    std::string reps;
    for (int x : pl.reps) reps += (reps.empty() ? "" : ",") + std::to_string(x);
    if (opt.dry_run) {
      out << fmt::format("[{}/{}] {}: wrote {} (repetitions {})\n", pl.g->index, groups.size(), pl.g->label,
                         script.string(), reps);
      continue;
    }
    const std::string id = submit(opt.sbatch, script);
    append_job(jobs, {record::utc_now(), std::to_string(pl.g->index), id, reps, script.string(), pl.g->label});
    point_jobs.push_back(id);
    ++r.jobs;
    out << fmt::format("[{}/{}] {}: job {} ({}, repetitions {})\n", pl.g->index, groups.size(), pl.g->label, id,
                       script.string(), reps)
        << std::flush;
  }
  r.job_ids = point_jobs;

  const fs::path collect = slurm_dir / "collect.sbatch";
  write_text(collect, collect_script(spec.name, point_jobs, p, paths));
  if (opt.dry_run) {
    out << fmt::format("sweep: dry run: {} scripts and collect.sbatch written to {}; nothing submitted. Review them, "
                       "then run the same command without --dry-run\n", plan.size(), slurm_dir.string());
    return r;
  }
  const std::string cid = submit(opt.sbatch, collect);
  append_job(jobs, {record::utc_now(), "collect", cid, "", collect.string(), "collect + plots + report"});
  r.job_ids.push_back(cid);
  out << fmt::format("sweep: submitted {} point jobs ({} repetitions ok before, not resubmitted) and the collect job "
                     "{} (after all of them); job ids in {}; follow with: scalebench status {}\n",
                     r.jobs, r.repetitions_ok, cid, jobs.string(), spec.output)
      << std::flush;
  return r;
}

std::vector<JobRecord> read_jobs(const std::string& study_dir) {
  const fs::path jobs = fs::path(study_dir) / "slurm" / "jobs.tsv";
  std::vector<JobRecord> out;
  std::ifstream f(jobs, std::ios::binary);
  if (!f) return out;
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    if (++n == 1) {
      SB_REQUIRE(line == kJobsHeader, "{}: not a scalebench jobs file (unexpected header)", jobs.string());
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> col;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) col.push_back(c);
    SB_REQUIRE(col.size() >= 5, "{}:{}: expected 6 tab-separated columns, got {}", jobs.string(), n, col.size());
    col.resize(6);
    out.push_back({col[0], col[1], col[2], col[3], col[4], col[5]});
  }
  return out;
}

}  // namespace scalebench::study::slurm
