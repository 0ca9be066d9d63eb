// test_slurm_profiles.cpp — every profile shipped in slurm/profiles/ reviewed through a dry run
// (the scripts an admin would read): the collect and dataset jobs ask for their own small resources
// (one task, [collect] cpus, no GPU, none of the points' sbatch_args), no script names a path of
// this source tree or build, the USR1 trap is set before the point starts, GPU points ask for GPUs
// the profile's way and bind them as it says; every srun step gets the job's CPUs per task itself
// (--cpus-per-task and SRUN_CPUS_PER_TASK: Slurm >= 22.05 does not pass them on); --exclusive only
// where the profile's rule says (by default where a point fills its nodes); the collect job runs the
// report before the plots and survives a plot failure. Also the submission order with a dataset recipe: the dataset job first, every
// point submitted with --dependency=afterok:<its id>, through a fake sbatch that records its argv.
// Not here: profile parsing and injection (test_slurm_script.cpp), a live Slurm (tests/slurm).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/study/launch/slurm/profile.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/launch/slurm/submit.h"
#include "harness/study/spec/spec.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/sbatch_lines.h"

using namespace scalebench;
using namespace scalebench::study;
using namespace scalebench::study::slurm;
namespace fs = std::filesystem;

namespace {

// A CPU study with a dataset recipe (so a dataset job is written), every strategy kind.
std::string spec_text(const std::string& output) {
  return "[study]\nname = \"review\"\noutput = \"" + output +
         "\"\n[dataset]\ntask = \"segmentation\"\nn = 64\nsize = 32\nseed = 1\n[sweep]\n"
         "models = [\"unet:depth=2,base=4\"]\nstrategies = [\"single\", \"mirrored\", \"ring\", \"ps-sync\"]\n"
         "devices = [1, 2, 4]\nbatch = 4\n[train]\nthreads = 2\n";
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

using sbtest::sbatch_lines;

bool has_line(const std::vector<std::string>& lines, const std::string& l) {
  return std::find(lines.begin(), lines.end(), l) != lines.end();
}

// Runs `fn` with the working directory set to `dir` (scripts carry --chdir of it).
template <class F>
void in_dir(const std::string& dir, F fn) {
  const auto cwd = fs::current_path();
  fs::current_path(dir);
  try {
    fn();
  } catch (...) {
    fs::current_path(cwd);
    throw;
  }
  fs::current_path(cwd);
}

void review_small_job(const std::string& script, const Profile& p, const std::string& what) {
  SCOPED_TRACE(what + " of " + p.source + ":\n" + script);
  const auto lines = sbatch_lines(script);
  EXPECT_TRUE(has_line(lines, "#SBATCH --ntasks=1"));
  EXPECT_TRUE(has_line(lines, "#SBATCH --cpus-per-task=" + std::to_string(p.collect.cpus)));
  if (!p.collect.partition.empty()) EXPECT_TRUE(has_line(lines, "#SBATCH --partition=" + p.collect.partition));
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("--gpus"), std::string::npos) << l;
    EXPECT_EQ(l.find("--gres"), std::string::npos) << l;
    EXPECT_EQ(l.find("--exclusive"), std::string::npos) << l;
  }
  for (const auto& a : p.collect.sbatch_args) EXPECT_TRUE(has_line(lines, "#SBATCH " + a)) << a;
}

// The line of `script` that starts with `prefix` ("" when none).
std::string line_starting(const std::string& script, const std::string& prefix) {
  std::stringstream ss(script);
  for (std::string l; std::getline(ss, l);)
    if (l.rfind(prefix, 0) == 0) return l;
  return "";
}

// A point script's CPUs: the job's --cpus-per-task, exported for every srun and passed to the step.
void review_cpus(const std::string& script, const Profile& p) {
  const std::string job = line_starting(script, "#SBATCH --cpus-per-task=");
  ASSERT_FALSE(job.empty());
  const std::string n = job.substr(24);
  EXPECT_LE(std::stoi(n), p.max_cpus_per_task) << job;
  EXPECT_NE(script.find("\nexport SRUN_CPUS_PER_TASK=" + n + "\n"), std::string::npos);
  const std::string step = line_starting(script, "#   ");  // the step command, shown for review
  ASSERT_FALSE(step.empty());
  if (step.rfind("#   srun ", 0) == 0) EXPECT_NE(step.find(" --cpus-per-task=" + n + " "), std::string::npos) << step;
}

// The collect job: collect, then report, then the plots, whose failure is reported and not fatal.
void review_collect_order(const std::string& script) {
  const auto collect = script.find("' collect '"), report = script.find("' report '"),
             plots = script.find(" \"$plots\" "), set_e = script.find("set +e\n");
  ASSERT_NE(collect, std::string::npos);
  ASSERT_NE(report, std::string::npos);
  ASSERT_NE(plots, std::string::npos);
  EXPECT_LT(collect, set_e);
  EXPECT_LT(set_e, report);
  EXPECT_LT(report, plots);
  EXPECT_NE(script.find(" ||\n  echo \"scalebench: the plots failed", plots), std::string::npos);
}

}  // namespace

TEST(SlurmShippedProfiles, DryRunScriptsPassReview) {
  int reviewed = 0;
  for (const auto& e : fs::directory_iterator(fs::path(SB_SOURCE_DIR) / "slurm/profiles")) {
    if (e.path().extension() != ".toml") continue;
    SCOPED_TRACE(e.path().string());
    const Profile p = load_profile(e.path().string());
    sbtest::TempDir dir;
    std::ostringstream out;
    in_dir(dir.path(), [&] {
      submit_study(parse_spec(spec_text(dir / "study"), "s.toml"), p, {.dry_run = true, .exe = "", .sbatch = "/bin/false"},
                   out);
    });
    const fs::path slurm = fs::path(dir / "study") / "slurm";
    ASSERT_TRUE(fs::exists(slurm / "datagen.sbatch")) << out.str();
    review_small_job(slurp(slurm / "collect.sbatch"), p, "collect.sbatch");
    review_collect_order(slurp(slurm / "collect.sbatch"));
    review_small_job(slurp(slurm / "datagen.sbatch"), p, "datagen.sbatch");
    int points = 0;
    for (const auto& f : fs::directory_iterator(slurm)) {
      if (f.path().extension() != ".sbatch") continue;
      const std::string s = slurp(f.path());
      SCOPED_TRACE(f.path().filename().string() + ":\n" + s);
      // No path of this checkout or its build: the binary is the profile's (default: PATH).
      EXPECT_EQ(s.find(SB_SOURCE_DIR), std::string::npos);
      EXPECT_EQ(s.find("/build"), std::string::npos);
      if (f.path().filename() == "collect.sbatch" || f.path().filename() == "datagen.sbatch") continue;
      ++points;
      const auto trap = s.find("trap '");
      ASSERT_NE(trap, std::string::npos);
      EXPECT_LT(trap, s.find("' slurm-point '"));
      EXPECT_NE(s.find("--dependency=afterok:<the dataset job>"), std::string::npos);
      // threads = 2 in the spec: 2 cores per rank, 2 x N for mirrored, never above the cap.
      review_cpus(s, p);
      const auto lines = sbatch_lines(s);
      const bool excl = has_line(lines, "#SBATCH --exclusive");
      if (p.exclusive == Exclusive::never) EXPECT_FALSE(excl);
      if (p.exclusive == Exclusive::always) EXPECT_TRUE(excl);
      if (p.exclusive == Exclusive::full_nodes) {
        // Filled: as many tasks on a node as the profile's tasks_per_node (a CPU study asks for no GPU).
        const int per_node = std::stoi(line_starting(s, "#SBATCH --ntasks-per-node=").substr(26));
        EXPECT_EQ(excl, per_node >= p.tasks_per_node);
      }
    }
    EXPECT_EQ(points, 10);
    // GPU profiles: a cuda point asks for its GPUs the profile's way.
    if (p.gpus_per_node > 0) {
      auto groups = group_points(expand(parse_spec(spec_text(dir / "study"), "s.toml")));
      PointGroup g = groups.back();  // ps-sync N=4: 5 ranks
      for (auto& c : g.reps) c.train.backend = Backend::cuda;
      const auto lines = sbatch_lines(point_script("review", g, {1}, p, {dir / "study", dir.path(), "scalebench"}));
      const int per_node = std::min(p.tasks_per_node, 5);
      const std::string type = p.gpu_type.empty() ? "" : p.gpu_type + ":";
      const std::string want = p.gpu_request == GpuRequest::gres
                                   ? "#SBATCH --gres=gpu:" + type + std::to_string(std::min(p.gpus_per_node, per_node))
                                   : "#SBATCH --gpus-per-node=" + type + std::to_string(std::min(p.gpus_per_node, per_node));
      EXPECT_TRUE(has_line(lines, want)) << want;
      // ... binds them as the profile says, and takes the nodes whole where the point fills them.
      const std::string script = point_script("review", g, {1}, p, {dir / "study", dir.path(), "scalebench"});
      SCOPED_TRACE(script);
      review_cpus(script, p);
      const std::string step = line_starting(script, "#   ");
      EXPECT_EQ(step.find(" --gpus-per-task=1 ") != std::string::npos, p.gpus_per_task) << step;
      EXPECT_EQ(step.find(" --gpu-bind=" + p.gpu_bind + " ") != std::string::npos, !p.gpu_bind.empty()) << step;
      EXPECT_EQ(has_line(lines, "#SBATCH --exclusive"), p.exclusive != Exclusive::never);  // 5 ranks fill a node
      // A single-GPU point on a multi-GPU node shares it (exclusive = "full-nodes").
      PointGroup one = groups.front();  // single N=1
      for (auto& c : one.reps) c.train.backend = Backend::cuda;
      const auto one_lines = sbatch_lines(point_script("review", one, {1}, p, {dir / "study", dir.path(), "scalebench"}));
      if (p.exclusive == Exclusive::full_nodes && p.gpus_per_node > 1 && p.tasks_per_node > 1)
        EXPECT_FALSE(has_line(one_lines, "#SBATCH --exclusive"));
    }
    ++reviewed;
  }
  EXPECT_GE(reviewed, 4);  // generic-gpu, local-test and the two site profiles
}

TEST(SlurmSubmit, DatasetJobFirstThenPointsAfterIt) {
  sbtest::TempDir dir;
  // A fake sbatch: records its argv, answers ids 100, 101, ...
  const std::string fake = dir / "sbatch";
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\necho \"$*\" >> " << (dir / "calls") << "\nn=$(wc -l < " << (dir / "calls")
      << ")\necho $((99 + n))\n";
  }
  fs::permissions(fake, fs::perms::owner_all);
  const Profile p = load_profile((fs::path(SB_SOURCE_DIR) / "slurm/profiles/local-test.toml").string());
  std::ostringstream out;
  SubmitOutcome r;
  in_dir(dir.path(), [&] {
    r = submit_study(parse_spec(spec_text(dir / "study"), "s.toml"), p, {.dry_run = false, .exe = "", .sbatch = fake}, out);
  });
  std::vector<std::string> calls;
  {
    std::ifstream f(dir / "calls");
    for (std::string l; std::getline(f, l);) calls.push_back(l);
  }
  ASSERT_EQ(calls.size(), 12u) << out.str();  // dataset + 10 points + collect
  EXPECT_NE(calls.front().find("datagen.sbatch"), std::string::npos) << calls.front();
  EXPECT_EQ(calls.front().find("--dependency"), std::string::npos) << calls.front();
  for (std::size_t i = 1; i + 1 < calls.size(); ++i)
    EXPECT_EQ(calls[i].rfind("--parsable --dependency=afterok:100 --kill-on-invalid-dep=yes ", 0), 0u) << calls[i];
  EXPECT_NE(calls.back().find("collect.sbatch"), std::string::npos);
  EXPECT_EQ(r.job_ids.front(), "100");
  const auto jobs = read_jobs(dir / "study");
  ASSERT_FALSE(jobs.empty());
  EXPECT_EQ(jobs.front().group, "datagen");
  EXPECT_NE(slurp(fs::path(dir / "study") / "slurm/collect.sbatch").find("--dependency=afterany:101:"), std::string::npos);
}
