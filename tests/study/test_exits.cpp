// test_exits.cpp — nothing lost, nothing hangs, nothing recorded wrong, end to end with the real
// binary (issue 15):
//   - SIGTERM (an MPI point) or SIGINT (a single-process point) to `scalebench sweep`: the sweep
//     exits 128 + the signal, no process of the point survives it, and the point is not recorded ok;
//   - a second sweep into a study folder is refused with one line naming the holder; the lock of
//     a SIGKILLed sweep does not block the next one;
//   - SIGKILL to a sweep: its point's processes die with it (PR_SET_PDEATHSIG);
//   - a rerun sweep starts nothing while a point's run file is written by a live process on this
//     machine (one line), leaves alone one written on another host, and runs again one whose
//     writer is dead;
//   - a SIGKILLed `train` shows as dead in `scalebench status` and is collected as failed.
// Every process these tests start mentions the test's temporary folder in its command line, which
// is how survivors are found (and, if the code under test left any, killed by pid).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "harness/record/liveness.h"
#include "harness/record/run_file.h"
#include "harness/study/analysis/study_file.h"
#include "harness/study/launch/command.h"
#include "harness/study/spec/spec.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::study;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Starts argv with stdout and stderr to `log`, signals at their defaults; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::signal(sig, SIG_DFL);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

bool wait_for_text(const std::string& log, const std::string& text, int seconds) {
  for (const auto end = Clock::now() + std::chrono::seconds(seconds); Clock::now() < end;) {
    if (slurp(log).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Waits up to `seconds` for pid to end; false (and status untouched) when it did not.
bool wait_exit(pid_t pid, int seconds, int& status) {
  for (const auto end = Clock::now() + std::chrono::seconds(seconds); Clock::now() < end;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Live processes (not zombies) whose command line mentions `needle`, other than this one: pid → command.
std::vector<std::pair<pid_t, std::string>> processes_mentioning(const std::string& needle) {
  std::vector<std::pair<pid_t, std::string>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = pid_t(std::stol(name));
    if (pid == ::getpid()) continue;
    std::string cmd = slurp((e.path() / "cmdline").string());
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    const std::string stat = slurp((e.path() / "stat").string());
    const auto paren = stat.rfind(") ");
    if (paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] == 'Z') continue;
    if (cmd.find(needle) != std::string::npos) out.emplace_back(pid, cmd);
  }
  return out;
}

// Survivors of a test: listed for the failure message, then killed (they are this test's own).
std::string kill_survivors(const std::string& needle) {
  std::string list;
  for (const auto& [pid, cmd] : processes_mentioning(needle)) {
    list += fmt::format("  {} {}\n", pid, cmd.substr(0, 160));
    ::kill(pid, SIGKILL);
  }
  return list;
}

// Waits for a sweep's first epoch line; when none comes, kills the sweep and its point and says so.
bool first_epoch_or_kill(pid_t sweep, const std::string& log, const std::string& dir) {
  if (wait_for_text(log, " epoch 1/200 ", 300)) return true;
  ::kill(sweep, SIGKILL);
  ::waitpid(sweep, nullptr, 0);
  kill_survivors(dir);
  return false;
}

std::string spec_text(const std::string& dir, const std::string& strategy, int devices, int epochs,
                      const std::string& model = "unet:depth=2,base=4") {
  return fmt::format("[study]\nname = \"x\"\noutput = \"{0}/res\"\n[dataset]\npath = \"{0}/seg.h5\"\n"
                     "[sweep]\nmodels = [\"{1}\"]\nstrategies = [\"{2}\"]\ndevices = [{3}]\nbatch = 4\n"
                     "[train]\nepochs = {4}\nthreads = 1\n",
                     dir, model, strategy, devices, epochs);
}

void make_data(const sbtest::TempDir& dir) {
  std::string out;
  ASSERT_EQ(sbtest::run(std::string(SB_BINARY) + " datagen --task segmentation --n 48 --size 32 --seed 3 -o " +
                            (dir / "seg.h5"), &out), 0) << out;
}

std::string run_file_of(const std::string& spec) {
  const auto points = expand(load_spec(spec));
  return fs::path(load_spec(spec).output) / "runs" / (record::run_id_with_data(points.at(0)) + ".h5");
}

// SIGTERM or SIGINT to a sweep in the middle of a point.
void stop_sweep_mid_point(const std::string& strategy, int devices, int sig) {
  sbtest::TempDir dir;
  make_data(dir);
  const std::string spec = dir / "s.toml", log = dir / "sweep.log";
  std::ofstream(spec) << spec_text(dir.path(), strategy, devices, 200);
  const pid_t sweep = spawn({SB_BINARY, "sweep", spec}, log);
  ASSERT_TRUE(first_epoch_or_kill(sweep, log, dir.path())) << slurp(log);
  ::kill(sweep, sig);
  int status = 0;
  const bool ended = wait_exit(sweep, 90, status);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const std::string survivors = kill_survivors(dir.path());
  if (!ended) {
    ::kill(sweep, SIGKILL);
    ::waitpid(sweep, &status, 0);
  }
  ASSERT_TRUE(ended) << "the sweep did not end within 90 s of the signal\n" << slurp(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig)
      << "status " << status << " (killed by " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")\n" << slurp(log);
  EXPECT_EQ(survivors, "") << "processes of the point outlived the sweep:\n" << survivors;
  // The training processes stop like a preemption (harness/train/preemption.h): after an agreed
  // step, recorded preempted with the signal's name, so a rerun continues the point.
  const char* name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
  const auto f = record::read_run_file(run_file_of(spec));
  EXPECT_EQ(f.status, "preempted") << f.error;
  EXPECT_NE(f.error.find(fmt::format("preempted by {} at epoch", name)), std::string::npos) << f.error;
  const std::string swept = slurp(log);
  EXPECT_NE(swept.find(fmt::format("sweep: stopped by {} during point 1", name)), std::string::npos) << swept;
  EXPECT_NE(swept.find("0 ok, 0 skipped (ok before), 0 failed, 1 preempted"), std::string::npos) << swept;
}

}  // namespace

TEST(Exits, SigtermToTheSweepStopsItsMpiPoint) { stop_sweep_mid_point("ring", 2, SIGTERM); }

TEST(Exits, SigintToTheSweepStopsItsPoint) { stop_sweep_mid_point("single", 1, SIGINT); }

// kill -9 of a sweep gives its point no chance to be told: the point must die with it
// (PR_SET_PDEATHSIG, subprocess.h) rather than run on beside the next sweep's points. The point
// prints nothing after its start lines (long epochs, no progress lines), so it cannot die of a
// broken pipe instead: without the death signal it ran on (so this test failed).
TEST(Exits, SigkillToTheSweepTakesItsMpiPointWithIt) {
  sbtest::TempDir dir;
  std::string out;
  ASSERT_EQ(sbtest::run(std::string(SB_BINARY) + " datagen --task segmentation --n 2000 --size 32 --seed 3 -o " +
                            (dir / "seg.h5"), &out), 0) << out;
  const std::string spec = dir / "s.toml", log = dir / "sweep.log";
  std::ofstream(spec) << fmt::format(
      "[study]\nname = \"x\"\noutput = \"{0}/res\"\n[dataset]\npath = \"{0}/seg.h5\"\n[sweep]\n"
      "models = [\"unet:depth=3,base=32\"]\nstrategies = [\"ring\"]\ndevices = [2]\nbatch = 4\n"
      "[train]\nepochs = 50\nthreads = 1\nprogress_seconds = 86400\n", dir.path());
  const pid_t sweep = spawn({SB_BINARY, "sweep", spec}, log);
  if (!wait_for_text(log, "train: strategy ring", 300)) {
    ::kill(sweep, SIGKILL);
    ::waitpid(sweep, nullptr, 0);
    kill_survivors(dir.path());
    FAIL() << "the point did not start\n" << slurp(log);
  }
  ::kill(sweep, SIGKILL);
  ::waitpid(sweep, nullptr, 0);
  // A deadline, not a timing: mpirun passes the SIGTERM on and its ranks stop after their step.
  for (const auto end = Clock::now() + std::chrono::seconds(45);
       Clock::now() < end && !processes_mentioning(dir.path()).empty();)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(kill_survivors(dir.path()), "") << "processes of the point outlived the SIGKILLed sweep";
  // Nothing of it is still running, so the next sweep is not refused.
  EXPECT_EQ(sbtest::run("timeout 300 " + std::string(SB_BINARY) + " sweep --dry-run " + spec, &out), 0) << out;
}

TEST(Exits, SecondSweepIntoTheFolderIsRefused) {
  sbtest::TempDir dir;
  make_data(dir);
  const std::string spec = dir / "long.toml", log = dir / "sweep.log";
  std::ofstream(spec) << spec_text(dir.path(), "single", 1, 200);
  const pid_t first = spawn({SB_BINARY, "sweep", spec}, log);
  ASSERT_TRUE(first_epoch_or_kill(first, log, dir.path())) << slurp(log);
  std::string out;
  // Bounded: without a lock the second sweep would train the same point alongside the first.
  const int rc = sbtest::run("timeout 120 " + std::string(SB_BINARY) + " sweep " + spec, &out);
  // The first sweep dies without a word (SIGKILL): its lock must die with it.
  ::kill(first, SIGKILL);
  int status = 0;
  ::waitpid(first, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill_survivors(dir.path());  // its point's processes, should any have outlived it (see the test above)
  EXPECT_EQ(rc, 1) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;  // one line
  EXPECT_NE(out.find(dir / "res: another sweep is running into this study folder (pid " + std::to_string(first) +
                     " on host "), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir / "res/.lock"));

  const std::string quick = dir / "quick.toml";  // same folder, a short point
  std::ofstream(quick) << spec_text(dir.path(), "single", 1, 1, "unet:depth=2,base=8");
  EXPECT_EQ(sbtest::run("timeout 300 " + std::string(SB_BINARY) + " sweep " + quick, &out), 0) << out;
  EXPECT_NE(out.find("1 ok, 0 skipped"), std::string::npos) << out;
}

TEST(Exits, RerunLeavesALiveRunAloneAndRerunsADeadOne) {
  sbtest::TempDir dir;
  make_data(dir);
  const std::string spec = dir / "s.toml";
  std::ofstream(spec) << spec_text(dir.path(), "single", 1, 1);
  const std::string path = run_file_of(spec);
  fs::create_directories(fs::path(path).parent_path());
  // A run file that another live process writes (this test process stands in for it).
  const auto forge = [&](const record::RunOwner& owner) {
    record::RunFile f = record::make_run_file();
    f.config = record::config_attrs(expand(load_spec(spec)).at(0));
    f.owner = owner;
    record::write_run_file(path, f);
  };
  // Its writer on this machine: nothing starts (a point beside it would distort both timings), one line.
  const record::RunOwner me = record::this_process();
  forge(me);
  std::string out;
  for (const char* dry : {"", " --dry-run"}) {
    EXPECT_EQ(sbtest::run("timeout 300 " + std::string(SB_BINARY) + " sweep " + spec + dry, &out), 1) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_NE(out.find(fmt::format("[1/1] unet single N=1 is still running on this machine (pid {} on host {}", me.pid,
                                   me.host)), std::string::npos) << out;
  }
  auto f = record::read_run_file(path);
  EXPECT_EQ(f.status, "running");
  EXPECT_EQ(f.owner.pid, me.pid);  // not clobbered

  // Its writer on another host (beating): left alone with one line, the sweep goes on.
  record::RunOwner other = me;
  other.host = "another-node";
  other.boot_id = "another-boot";
  forge(other);
  EXPECT_EQ(sbtest::run("timeout 300 " + std::string(SB_BINARY) + " sweep " + spec, &out), 1) << out;
  EXPECT_NE(out.find(fmt::format("[1/1] unet single N=1 running elsewhere (pid {} on host another-node", me.pid)),
            std::string::npos) << out;
  EXPECT_EQ(out.find(" run "), std::string::npos) << out;  // not started
  EXPECT_NE(out.find("1 running elsewhere; next: scalebench sweep"), std::string::npos) << out;
  EXPECT_EQ(record::read_run_file(path).owner.host, "another-node");  // not clobbered

  // The same file, its writer gone: run again.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  record::RunOwner dead = me;
  dead.pid = gone;
  forge(dead);
  EXPECT_EQ(sbtest::run("timeout 300 " + std::string(SB_BINARY) + " sweep " + spec, &out), 0) << out;
  EXPECT_NE(out.find(fmt::format("its run file said running, but its writer died: pid {} on host {} is gone; running "
                                 "it again", gone, me.host)), std::string::npos) << out;
  f = record::read_run_file(path);
  EXPECT_EQ(f.status, "ok");
}

TEST(Exits, KilledTrainIsDeadInStatusAndFailedInCollect) {
  sbtest::TempDir dir;
  make_data(dir);
  const std::string spec = dir / "s.toml", log = dir / "train.log";
  std::ofstream(spec) << spec_text(dir.path(), "single", 1, 200);
  fs::create_directories(dir / "res");
  std::ofstream(dir / "res/study.toml") << spec_text(dir.path(), "single", 1, 200);  // as a sweep leaves it
  const auto point = expand(load_spec(spec)).at(0);
  const pid_t train = spawn(launch_command(point, SB_BINARY, dir / "res/runs"), log);
  const bool epoch = wait_for_text(log, "epoch 1/200 ", 300);
  ::kill(train, SIGKILL);  // OOM killer, segfault, node loss: no chance to write
  int status = 0;
  ::waitpid(train, &status, 0);
  ASSERT_TRUE(epoch) << slurp(log);
  const std::string path = run_file_of(spec);
  ASSERT_EQ(record::read_run_file(path).status, "running");

  const std::string sb = SB_BINARY;
  std::string out;
  EXPECT_EQ(sbtest::run(sb + " status " + (dir / "res"), &out), 0) << out;
  EXPECT_NE(out.find(" dead "), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format(" epochs done; pid {} on host ", train)), std::string::npos) << out;
  EXPECT_NE(out.find(" is gone"), std::string::npos) << out;
  EXPECT_NE(out.find("1 points: 1 dead"), std::string::npos) << out;
  EXPECT_EQ(sbtest::run(sb + " collect " + (dir / "res"), &out), 0) << out;
  EXPECT_NE(out.find("(0 ok, 1 not ok)"), std::string::npos) << out;
  const StudyFile sf = read_study_file(dir / "res/study.h5");
  ASSERT_EQ(sf.runs.rows(), 1u);
  EXPECT_EQ(sf.runs.str("status", 0), "failed");
  EXPECT_EQ(sf.runs.str("error", 0).rfind("dead: pid " + std::to_string(train), 0), 0u) << sf.runs.str("error", 0);
}
