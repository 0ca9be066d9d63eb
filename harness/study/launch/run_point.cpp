// run_point.cpp — see run_point.h.
#include "harness/study/launch/run_point.h"

#include <csignal>
#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "harness/record/liveness.h"
#include "harness/record/recorder.h"
#include "harness/record/run_file.h"
#include "harness/study/launch/subprocess.h"
#include "harness/train/preemption.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

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

}  // namespace

bool run_file_ok(const std::string& path) {
  try {
    return std::filesystem::exists(path) && record::read_run_file(path).status == "ok";
  } catch (const Error&) {
    return false;
  }
}

PriorRun prior_run(const std::string& path) {
  using K = PriorRun::Kind;
  if (!std::filesystem::exists(path)) return {K::none, ""};
  record::RunFile f;
  try {
    f = record::read_run_file(path);
  } catch (const Error& e) {
    return {K::rerun, e.what()};
  }
  if (f.status == "ok") return {K::ok, ""};
  if (f.status != "running") return {K::rerun, ""};
  const auto live = record::check_liveness(f.owner, path);
  if (live.state == record::Liveness::alive) return {K::live, live.why, record::on_this_machine(f.owner)};
  return {K::rerun, fmt::format("its run file said running, but {}", live.state == record::Liveness::dead
                                                                             ? "its writer died: " + live.why
                                                                             : "cannot tell whether it is alive: " +
                                                                                   live.why)};
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    default: return fmt::format("signal {}", sig);
  }
}

namespace {

// The outcome of a point's child that has ended: its run file read, a failure recorded there.
// last_err: the child's last line with text on stderr; last_sb_err: its last scalebench error line.
PointResult settle(const record::RunConfig& c, const ChildExit& ex, std::string last_err, const std::string& last_sb_err,
                   const std::vector<std::string>& cmd, const std::string& path, const std::string& prefix,
                   std::ostream& out) {
  if (ex.code == kExitPreempted) try {
      const auto f = record::read_run_file(path);
      if (f.status == "preempted") {
        out << prefix << " preempted: " << f.error << "\n" << std::flush;
        return PointResult::preempted;
      }
    } catch (const Error&) {  // no readable run file: a failure like any other
    }
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
    out << prefix << " ok\n" << std::flush;
    return PointResult::ok;
  }
  if (ex.stopped_by) error = fmt::format("stopped by {} to the sweep ({})", signal_name(ex.stopped_by), ex.describe());
  try {
    record::mark_failed(path, c, error, cmd);
    error = record::read_run_file(path).error;  // the child's own record wins when it made one
  } catch (const Error& e) {
    out << prefix << " (could not record the failure: " << e.what() << ")\n";
  }
  out << prefix << " failed: " << error << "\n" << std::flush;
  return PointResult::failed;
}

}  // namespace

PointResult run_point(const record::RunConfig& c, const std::vector<std::string>& cmd, const std::string& path,
                      const std::string& prefix, std::ostream& out) {
  std::string last_err, last_sb_err;
  const ChildExit ex = run_child(cmd, [&](const std::string& line, bool from_stderr) {
    if (from_stderr && is_text(line)) last_err = line;
    if (is_error_line(line)) last_sb_err = line;
    out << prefix << " " << line << "\n" << std::flush;
  });
  return settle(c, ex, last_err, last_sb_err, cmd, path, prefix, out);
}

PointResult settle_point(const record::RunConfig& c, const ChildExit& ex, const std::vector<std::string>& lines,
                         const std::vector<std::string>& cmd, const std::string& path, const std::string& prefix,
                         std::ostream& out) {
  std::string last_err, last_sb_err;
  for (const std::string& line : lines) {
    if (is_text(line)) last_err = line;  // stdout and stderr share the log: any line with text
    if (is_error_line(line)) last_sb_err = line;
    out << prefix << " " << line << "\n";
  }
  out << std::flush;
  return settle(c, ex, last_err, last_sb_err, cmd, path, prefix, out);
}

}  // namespace scalebench::study
