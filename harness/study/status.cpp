// status.cpp — point states from run files, squeue and sacct (see status.h).
#include "harness/study/status.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "harness/data/identity.h"
#include "harness/record/liveness.h"
#include "harness/record/run_config.h"
#include "harness/record/run_file.h"
#include "harness/study/analysis/run_filter.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/launch/slurm/submit.h"
#include "harness/study/spec/spec.h"
#include "harness/study/launch/subprocess.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

namespace fs = std::filesystem;

// Runs a Slurm client; returns its stdout lines, or nullopt with the reason when it failed.
bool query(const std::vector<std::string>& argv, std::vector<std::string>& lines, std::string& why) {
  std::string err;
  const ChildExit ex = run_child(argv, [&](const std::string& line, bool from_err) {
    if (from_err) err = line;
    else if (!line.empty()) lines.push_back(line);
  });
  if (ex.ok()) return true;
  why = fmt::format("{}: {}{}", argv[0], ex.describe(), err.empty() ? "" : ": " + err);
  return false;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string c; std::getline(ss, c, sep);) out.push_back(c);
  return out;
}

// "CANCELLED by 0" → "CANCELLED".
std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

}  // namespace

SlurmView query_slurm(const std::vector<std::string>& job_ids) {
  SlurmView v;
  if (job_ids.empty()) return v;
  std::string ids;
  for (const auto& j : job_ids) ids += (ids.empty() ? "" : ",") + j;
  // Ended jobs first (sacct), then live ones (squeue) override: squeue is the fresher source.
  std::vector<std::string> lines;
  std::string why;
  if (query({"sacct", "--noheader", "--parsable2", "--allocations", "--format=JobID,State,ExitCode", "--jobs=" + ids},
            lines, why)) {
    for (const auto& l : lines) {
      const auto c = split(l, '|');
      if (c.size() >= 2) v.jobs[c[0]] = {first_word(c[1]), c.size() > 2 ? "exit " + c[2] : ""};
    }
  } else {
    v.notes.push_back("sacct unavailable (" + why + "); ended jobs are judged by their run files");
  }
  lines.clear();
  // -r: one line per array task. An id squeue no longer knows makes it fail; then ask for all of
  // this user's jobs instead.
  const std::vector<std::string> fmt_args = {"--noheader", "--array", "--format=%i|%T|%r"};
  std::vector<std::string> argv = {"squeue"};
  argv.insert(argv.end(), fmt_args.begin(), fmt_args.end());
  argv.push_back("--jobs=" + ids);
  v.queue_known = query(argv, lines, why);
  if (!v.queue_known) {
    lines.clear();
    argv.pop_back();
    argv.push_back("--user=" + std::to_string(::getuid()));
    v.queue_known = query(argv, lines, why);
    if (!v.queue_known) v.notes.push_back("squeue unavailable (" + why + ")");
  }
  for (const auto& l : lines) {
    const auto c = split(l, '|');
    if (c.size() >= 2) v.jobs[c[0]] = {c[1], c.size() > 2 && c[2] != "None" ? c[2] : ""};
  }
  return v;
}

bool slurm_queued(const std::string& q) {
  return q == "PENDING" || q == "REQUEUED" || q == "CONFIGURING" || q == "REQUEUE_HOLD" || q == "REQUEUE_FED" ||
         q == "RESV_DEL_HOLD" || q == "SUSPENDED";
}
bool slurm_live(const std::string& q) {
  return q == "RUNNING" || q == "COMPLETING" || q == "STAGE_OUT" || q == "SIGNALING";
}

record::LivenessCheck running_liveness(const record::RunFile& f, const std::string& path, const SlurmView& view) {
  using record::Liveness;
  const std::string& job = f.owner.slurm_job;
  if (!record::on_this_machine(f.owner) && !job.empty()) {
    if (const auto j = view.jobs.find(job); j != view.jobs.end()) {
      const std::string& q = j->second.first;
      if (slurm_queued(q) || slurm_live(q)) return {Liveness::alive, fmt::format("Slurm job {} is {}", job, q)};
      return {Liveness::dead, fmt::format("Slurm job {} ended {}", job, q)};
    }
    if (view.queue_known) return {Liveness::dead, fmt::format("Slurm job {} is no longer queued", job)};
  }
  return record::check_liveness(f.owner, path);
}

std::vector<std::string> running_slurm_jobs(const std::vector<record::RunFile>& files) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& f : files)
    if (f.status == "running" && !f.owner.slurm_job.empty() && seen.insert(f.owner.slurm_job).second)
      out.push_back(f.owner.slurm_job);
  return out;
}

std::vector<PointState> study_status(const std::string& study_dir, const SlurmView& view) {
  const fs::path spec_path = fs::path(study_dir) / "study.toml";
  SB_REQUIRE(fs::exists(spec_path), "{}: not a study folder (no study.toml; a sweep writes it)", study_dir);
  SweepSpec spec = load_spec(spec_path.string());
  const auto groups = slurm::group_points(expand(spec));
  // The latest submission of each group wins.
  std::map<std::string, slurm::JobRecord> latest;
  for (const auto& j : slurm::read_jobs(study_dir)) latest[j.group] = j;
  const slurm::JobRecord* alloc = latest.count("sweep") ? &latest.at("sweep") : nullptr;

  std::vector<PointState> out;
  for (const auto& g : groups) {
    for (const auto& c : g.reps) {
      PointState s;
      s.group = g.index;
      s.repetition = c.repetition;
      s.label = g.label + axes_label(spec, c);  // the swept values: rows of one strategy and N differ there
      s.run_id = record::run_id_with_data(c);  // as its train named it
      const fs::path file = fs::path(study_dir) / "runs" / (s.run_id + ".h5");
      record::RunFile rf;
      if (fs::exists(file)) try {
          rf = record::read_run_file(file.string());
          s.file = rf.status;
        } catch (const Error& e) {
          s.file = "unreadable";
          s.detail = e.what();
        }
      bool submitted = false;
      // --launcher slurm-alloc: every point is a step of the one allocation job (the later of it
      // and a job of the point's own, when the study was submitted both ways).
      const auto own = latest.find(std::to_string(g.index));
      const bool shared = alloc && (own == latest.end() || own->second.submitted_utc <= alloc->submitted_utc);
      if (shared) {
        submitted = true;
        s.job = alloc->job_id;
        if (auto j = view.jobs.find(s.job); j != view.jobs.end()) {
          s.slurm = j->second.first;
          if (s.detail.empty()) s.detail = j->second.second;
        }
      } else if (auto it = own; it != latest.end()) {
        std::set<std::string> reps;
        for (const auto& r : split(it->second.repetitions, ',')) reps.insert(r);
        if (reps.count(std::to_string(c.repetition))) {
          submitted = true;
          const bool array = g.reps.size() > 1;
          s.job = array ? it->second.job_id + "_" + std::to_string(c.repetition) : it->second.job_id;
          if (auto j = view.jobs.find(s.job); j != view.jobs.end()) {
            s.slurm = j->second.first;
            if (s.detail.empty()) s.detail = j->second.second;
          } else if (array) {
            // A pending array whose tasks have not split yet shows as "123_[1-3]".
            for (const auto& [id, st] : view.jobs)
              if (id.rfind(it->second.job_id + "_[", 0) == 0) s.slurm = st.first, s.detail = st.second;
          }
        }
      }
      const std::size_t epochs = rf.epochs.rows();
      const std::string& q = s.slurm;
      const bool queued = slurm_queued(q);
      // A running allocation is this point's live job only while its step runs (the run file says so).
      const bool live = slurm_live(q) && (!shared || s.file == "running");
      // A step of a running allocation that has not started yet (no run file, or one left by an
      // earlier allocation), or that the allocation never reached before it ended.
      const bool step_waits = shared && slurm_live(q) && s.file != "ok" && s.file != "running" &&
                              (s.file.empty() || rf.owner.slurm_job != s.job);
      if (step_waits) {
        s.state = "pending";
        s.detail = fmt::format("waits for its step in allocation job {}", s.job);
      } else if (shared && s.file.empty() && !queued) {
        s.state = "not run";
        s.detail = fmt::format("allocation job {} ended {} before this point's step; rerun the sweep", s.job,
                               q.empty() ? "(no longer queued)" : q);
      } else if (s.file == "ok") {
        s.state = "ok";
        s.detail = fmt::format("{} epochs", epochs);
      } else if (queued) {
        s.state = "pending";
        if (s.file == "preempted") s.detail = "requeued after preemption" + (s.detail.empty() ? "" : "; " + s.detail);
      } else if (live) {
        s.state = "running";
        s.detail = s.file.empty() ? "starting" : fmt::format("{} epochs done", epochs);
      } else if (s.file == "failed") {
        s.state = "failed";
        s.detail = rf.error;
      } else if (s.file == "preempted") {
        s.state = "preempted";
        s.detail = rf.error;
      } else if (!q.empty()) {
        s.state = "failed";
        s.detail = fmt::format("job {} ended {} without an ok run file{}", s.job, q,
                               s.file == "running" ? fmt::format(" (it stopped after {} epochs)", epochs) : "");
      } else if (submitted) {
        // Not queued and no accounting record: the job has ended; its run file is all there is.
        s.state = "failed";
        s.detail = fmt::format("job {} is no longer queued and left {}", s.job,
                               s.file.empty() ? "no run file" : fmt::format("a run file saying {} after {} epochs",
                                                                            s.file, epochs));
      } else if (s.file == "running") {
        // Not a job of this study that Slurm knows: whoever writes the file (a local sweep, a
        // `train -o` by hand, a job from an earlier submission) — alive or not.
        const auto lv = running_liveness(rf, file.string(), view);
        s.state = lv.state == record::Liveness::dead ? "dead" : "running";
        s.detail = fmt::format("{} epochs done; {}{}", epochs,
                               lv.state == record::Liveness::unknown ? "alive? " : "", lv.why);
      } else {
        s.state = latest.empty() ? (s.file.empty() ? "not run" : s.file) : "not submitted";
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<std::string> side_job_lines(const std::string& study_dir, const SlurmView& view) {
  const slurm::JobRecord* datagen = nullptr;  // the latest submission's of each
  const slurm::JobRecord* collect = nullptr;
  const slurm::JobRecord* alloc = nullptr;
  const auto jobs = slurm::read_jobs(study_dir);
  for (const auto& j : jobs) {
    if (j.group == "datagen") datagen = &j;
    if (j.group == "collect") collect = &j;
    if (j.group == "sweep") alloc = &j;
  }
  std::vector<std::string> lines;
  // Not in the view: ended and forgotten when squeue answered, else unknown.
  const std::string gone = view.queue_known ? "no longer queued" : "unknown (squeue did not answer)";
  if (datagen) {
    const auto it = view.jobs.find(datagen->job_id);
    std::string state = it == view.jobs.end() ? gone : it->second.first;
    const std::string q = it == view.jobs.end() ? "" : it->second.first;
    std::string what = datagen->label;  // "dataset data/x.h5" → "data/x.h5"
    if (what.rfind("dataset ", 0) == 0) what = what.substr(8);
    // Ended other than COMPLETED: the point jobs that wait for it (afterok) never start.
    if (!q.empty() && q != "COMPLETED" && !slurm_queued(q) && !slurm_live(q))
      state += fmt::format("{}; the points waiting for it will not start (log: {}/slurm/logs/datagen-{}.out)",
                           it->second.second.empty() ? "" : ", " + it->second.second, study_dir, datagen->job_id);
    else if (slurm_queued(q) && !it->second.second.empty())
      state += " (" + it->second.second + ")";
    lines.push_back(fmt::format("dataset job {}{}: {}", datagen->job_id, what.empty() ? "" : " (" + what + ")", state));
  }
  if (alloc) {
    const auto it = view.jobs.find(alloc->job_id);
    lines.push_back(fmt::format("allocation job {}: {} (log: {}/slurm/logs/sweep-{}.out)", alloc->job_id,
                                it == view.jobs.end() ? gone : it->second.first, study_dir, alloc->job_id));
  }
  if (collect) {
    const auto it = view.jobs.find(collect->job_id);
    const bool plots = fs::exists(fs::path(study_dir) / "plots");
    lines.push_back(fmt::format("collect job {}: {}{}", collect->job_id,
                                it == view.jobs.end() ? gone : it->second.first,
                                plots ? " (plots written)" : ""));
  }
  return lines;
}

std::vector<PointState> print_status(const std::string& study_dir, std::ostream& out) {
  const auto jobs = slurm::read_jobs(study_dir);
  std::vector<std::string> ids;
  for (const auto& j : jobs) ids.push_back(j.job_id);
  // And the jobs that running files name (a local sweep inside an allocation, an earlier submission).
  std::vector<record::RunFile> files;
  if (const fs::path runs = fs::path(study_dir) / "runs"; fs::is_directory(runs))
    for (const auto& e : fs::directory_iterator(runs))
      if (e.path().extension() == ".h5") try {
          files.push_back(record::read_run_file(e.path().string()));
        } catch (const Error&) {  // study_status reports it
        }
  for (auto& j : running_slurm_jobs(files))
    if (std::find(ids.begin(), ids.end(), j) == ids.end()) ids.push_back(std::move(j));
  const SlurmView view = query_slurm(ids);
  const auto states = study_status(study_dir, view);

  std::map<std::string, int> count;
  std::size_t width = 36;  // the label column fits the longest label (swept values make them long)
  for (const auto& s : states) width = std::max(width, s.label.size());
  out << fmt::format("{:>5} {:>3}  {:<{}} {:<12} {:<11} {:<10} {:<13} {}\n", "point", "rep", "model strategy N [swept values]",
                     width, "job", "slurm", "run file", "state", "detail");
  for (const auto& s : states) {
    ++count[s.state];
    out << fmt::format("{:>5} {:>3}  {:<{}} {:<12} {:<11} {:<10} {:<13} {}\n", s.group, s.repetition, s.label, width,
                       s.job.empty() ? "-" : s.job, s.slurm.empty() ? "-" : s.slurm, s.file.empty() ? "-" : s.file,
                       s.state, s.detail);
  }
  for (const auto& line : side_job_lines(study_dir, view)) out << line << "\n";
  std::string summary;
  for (const auto& [k, n] : count) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, k);
  out << fmt::format("status: {}: {} points: {}\n", study_dir, states.size(), summary);  // Run files on other data than the spec's dataset holds now (a file regenerated in place between
  // two sweeps): no point above counts them, and collect does not pool them with the current ones.
  const std::string data = load_spec((fs::path(study_dir) / "study.toml").string()).data;
  if (const std::string now = data::dataset_identity(data); !now.empty()) {
    std::size_t other = 0;
    const std::string which = other_identities(files, now, other);
    if (other)
      out << fmt::format("status: note: {} run file{} in runs/ {} made on other data than {} holds now ({}): {}; no "
                         "point above counts them, and collect never pools them with runs on the current data\n",
                         other, other == 1 ? "" : "s", other == 1 ? "was" : "were", data, now, which);
  }
  for (const auto& n : view.notes) out << "status: note: " << n << "\n";
  return states;
}

}  // namespace scalebench::study
