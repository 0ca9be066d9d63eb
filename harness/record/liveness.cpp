// liveness.cpp — a run file's owner, its heartbeat, and the live-or-dead judgement (see liveness.h).
#include "harness/record/liveness.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace scalebench::record {
namespace {

std::string hostname() {
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  return host.data();
}

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// State letter and start time (field 22) of /proc/<pid>/stat; false when there is no such process.
bool proc_stat(std::int64_t pid, char& state, std::int64_t& start) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(in, line)) return false;
  const auto paren = line.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return false;
  std::istringstream rest(line.substr(paren + 1));
  std::vector<std::string> f;
  for (std::string w; rest >> w;) f.push_back(w);
  if (f.size() < 20) return false;
  state = f[0].empty() ? '?' : f[0][0];  // field 3
  start = std::atoll(f[19].c_str());     // field 22
  return true;
}

std::string age_text(double s) {
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 2 * 3600) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

RunOwner this_process(std::int64_t heartbeat_s) {
  RunOwner o;
  o.pid = ::getpid();
  char state = 0;
  proc_stat(o.pid, state, o.pid_start);
  o.host = hostname();
  o.boot_id = boot_id();
  // An array task is known to squeue and sacct as <array job>_<task>; its own SLURM_JOB_ID is an
  // internal id.
  if (const std::string a = env("SLURM_ARRAY_JOB_ID"), t = env("SLURM_ARRAY_TASK_ID"); !a.empty() && !t.empty())
    o.slurm_job = a + "_" + t;
  else
    o.slurm_job = env("SLURM_JOB_ID");
  o.heartbeat_s = heartbeat_s;
  return o;
}

bool on_this_machine(const RunOwner& o) {
  return o.pid > 0 && o.host == hostname() && !o.boot_id.empty() && o.boot_id == boot_id();
}

LivenessCheck check_liveness(const RunOwner& o, double heartbeat_age_s) {
  if (o.pid <= 0) return {Liveness::unknown, "no writer recorded (a run file from an older scalebench)"};
  const std::string who = fmt::format("pid {} on host {}", o.pid, o.host);
  if (on_this_machine(o)) {
    char state = 0;
    std::int64_t start = 0;
    if (!proc_stat(o.pid, state, start)) return {Liveness::dead, who + " is gone"};
    if (state == 'Z' || state == 'X') return {Liveness::dead, who + " is gone (exited, not yet reaped)"};
    if (start != o.pid_start) return {Liveness::dead, who + " is gone (the pid now belongs to another process)"};
    return {Liveness::alive, who};
  }
  if (o.heartbeat_s <= 0) return {Liveness::unknown, who + ": another host, and no heartbeat recorded"};
  if (std::isnan(heartbeat_age_s)) return {Liveness::unknown, who + ": the file's age cannot be read"};
  const double limit = double(kStaleBeats * o.heartbeat_s);
  if (heartbeat_age_s > limit)
    return {Liveness::dead, fmt::format("no heartbeat for {} ({}; it beats every {} s, dead after {})",
                                        age_text(heartbeat_age_s), who, o.heartbeat_s, age_text(limit))};
  return {Liveness::alive, fmt::format("{}, heartbeat {} ago", who, age_text(std::max(0.0, heartbeat_age_s)))};
}

double seconds_since_modified(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return NAN;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const double t = double(st.st_mtim.tv_sec) + 1e-9 * double(st.st_mtim.tv_nsec);
  return std::chrono::duration<double>(now).count() - t;
}

LivenessCheck check_liveness(const RunOwner& o, const std::string& run_file) {
  return check_liveness(o, seconds_since_modified(run_file));
}

void Heartbeat::start(const std::string& path, int seconds) {
  stop();
  stop_ = false;
  thread_ = std::thread([this, path, seconds] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return stop_; }))
      ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // now; a missing file is no error here
  });
}

void Heartbeat::stop() noexcept {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) try {
      thread_.join();
    } catch (...) {
    }
}

}  // namespace scalebench::record
