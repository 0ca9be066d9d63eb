// sweep.cpp — the local launcher loop (see sweep.h).
#include "harness/study/sweep.h"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>

#include "harness/record/context.h"
#include "harness/record/recorder.h"
#include "harness/study/launch.h"
#include "harness/study/subprocess.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

namespace fs = std::filesystem;

std::string family(const std::string& model) { return model.substr(0, model.find(':')); }

// "[3/12] unet ring N=4" (+ " rep 2/3"); the full model spec when two models share a family.
std::string prefix(const SweepSpec& spec, const record::RunConfig& c, std::size_t i, std::size_t n) {
  std::set<std::string> families;
  for (const auto& m : spec.models) families.insert(family(m));
  const std::string model = families.size() == spec.models.size() ? family(c.train.model) : c.train.model;
  std::string p = fmt::format("[{}/{}] {} {} N={}", i, n, model, c.train.strategy, c.world_size);
  if (spec.repetitions > 1) p += fmt::format(" rep {}/{}", c.repetition, spec.repetitions);
  return p;
}

// mpirun wraps a failing rank's error in banners ("-----", "Primary job terminated ..."): the
// line worth recording is scalebench's own error line when there is one, else the last line with
// some text that is not a banner rule.
bool is_error_line(const std::string& line) { return line.find("scalebench: ") != std::string::npos &&
                                                     line.find("error: ") != std::string::npos; }
bool is_text(const std::string& line) { return line.find_first_not_of(" \t\r-=*") != std::string::npos; }

std::string strip_error_prefix(std::string line) {
  if (const auto at = line.find("scalebench: "); at != std::string::npos) line = line.substr(at);
  for (const char* p : {"scalebench: error: ", "scalebench: internal error: "})
    if (line.rfind(p, 0) == 0) return line.substr(std::string(p).size());
  return line;
}

void prepare_dataset(const SweepSpec& spec, bool dry_run, std::ostream& out) {
  if (fs::exists(spec.data) || !spec.generate) return;  // a missing given path was refused up front
  if (dry_run) {
    out << "sweep: would generate the dataset " << spec.data << "\n";
    return;
  }
  std::error_code ec;
  fs::create_directories(fs::path(spec.data).parent_path(), ec);
  out << "sweep: generating the dataset " << spec.data << "\n" << std::flush;
  data::write_dataset(*spec.generate, spec.data, 0);
}

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) {
  const std::string launcher = opt.launcher.empty() ? spec.launcher : opt.launcher;
  SB_REQUIRE(launcher == "local" || launcher == "slurm", "--launcher '{}' is unknown (local or slurm)", launcher);
  SB_REQUIRE(launcher == "local", "--launcher slurm: the Slurm launcher is not available in this version (use local)");
  SB_REQUIRE(spec.generate || fs::exists(spec.data), "{}: dataset.path: {}: no such file (paths are relative to the "
             "current folder)", spec.data_where.empty() ? spec.source : spec.data_where, spec.data);
  const auto points = expand(spec);
  const std::string runs = (fs::path(spec.output) / "runs").string();
  const std::string exe = opt.exe.empty() ? record::self_executable() : opt.exe;
  out << fmt::format("sweep: {}: {} points ({} models x {} strategies x {} device counts x {} repetitions) -> {}\n",
                     spec.name, points.size(), spec.models.size(), spec.strategies.size(), spec.devices.size(),
                     spec.repetitions, runs)
      << std::flush;
  prepare_dataset(spec, opt.dry_run, out);
  if (!opt.dry_run) {
    std::error_code ec;
    fs::create_directories(runs, ec);
    SB_REQUIRE(!ec, "{}: cannot create the folder: {}", runs, ec.message());
    std::ofstream(fs::path(spec.output) / "study.toml", std::ios::binary) << spec.text;
  }

  SweepOutcome r;
  r.points = int(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const record::RunConfig& c = points[i];
    const std::string pre = prefix(spec, c, i + 1, points.size());
    const std::string id = record::run_id(c);
    const std::string path = (fs::path(runs) / (id + ".h5")).string();
    bool done = false;
    if (fs::exists(path)) try {
        done = record::read_run_file(path).status == "ok";
      } catch (const Error&) {
      }
    const auto cmd = launch_command(c, exe, runs);
    if (done) {
      ++r.skipped;
      out << pre << " ok already (" << path << "), skipped\n" << std::flush;
      continue;
    }
    out << pre << " run " << id << ": " << join_command(cmd) << "\n" << std::flush;
    if (opt.dry_run) continue;

    std::string last_err, last_sb_err;
    const ChildExit ex = run_child(cmd, [&](const std::string& line, bool from_stderr) {
      if (from_stderr && is_text(line)) last_err = line;
      if (is_error_line(line)) last_sb_err = line;
      out << pre << " " << line << "\n" << std::flush;
    });
    std::string error;
    if (ex.ok()) {
      try {
        const auto f = record::read_run_file(path);
        if (f.status != "ok") error = fmt::format("exited 0 but its run file says status {}", f.status);
      } catch (const Error& e) {
        error = fmt::format("exited 0 but left no readable run file ({})", e.what());
      }
    } else {
      if (!last_sb_err.empty()) last_err = last_sb_err;
      error = last_err.empty() ? ex.describe() : strip_error_prefix(last_err);
      if (ex.signal) error = ex.describe() + (last_err.empty() ? "" : ": " + strip_error_prefix(last_err));
    }
    if (error.empty()) {
      ++r.ok;
      out << pre << " ok\n" << std::flush;
    } else {
      ++r.failed;
      try {
        record::mark_failed(path, c, error, cmd);
        error = record::read_run_file(path).error;  // the child's own record wins when it made one
      } catch (const Error& e) {
        out << pre << " (could not record the failure: " << e.what() << ")\n";
      }
      out << pre << " failed: " << error << "\n" << std::flush;
    }
  }
  if (!opt.dry_run)
    out << fmt::format("sweep: {} points: {} ok, {} skipped (ok before), {} failed; next: scalebench collect {}\n",
                       r.points, r.ok, r.skipped, r.failed, spec.output)
        << std::flush;
  return r;
}

}  // namespace scalebench::study
