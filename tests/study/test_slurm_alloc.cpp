// test_slurm_alloc.cpp — the sweep in one Slurm allocation (--launcher slurm-alloc) without a
// cluster: a step's placement inside a larger allocation (--nodes, --ntasks-per-node, its own GPUs
// in the profile's form), the allocation's resources (the most any point needs), its script
// (directives, every point's step shown, slurm-sweep under the USR1 trap), the profile's
// allocation_time, the array throttle of the per-point mode, and the shipped multi-node GPU study
// (studies/gpu-unet-nodes.toml) through a dry run with each shipped profile.
// Not here: the live run and its resumption (tests/slurm/slurm_alloc_test.sh), status (test_status.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/study/launch/command.h"
#include "harness/study/launch/slurm/profile.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/launch/slurm/submit.h"
#include "harness/study/spec/spec.h"
#include "harness/study/sweep.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/sbatch_lines.h"

using namespace scalebench;
using namespace scalebench::study;
using namespace scalebench::study::slurm;
namespace fs = std::filesystem;

namespace {

const char* kProfile = R"([cluster]
name = "test"
partition = "gpu"
time = "00:30:00"
allocation_time = "06:00:00"
tasks_per_node = 2
gpus_per_node = 2
max_cpus_per_task = 4
srun_args = ["--cpu-bind=cores"]
signal_seconds = 120
requeue = true
)";

const char* kSpec = R"([study]
name = "t"
output = "/tmp/sb-study/t"
repetitions = 2
[dataset]
path = "/dev/null"
[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["single", "mirrored", "ring"]
devices = [1, 2, 4]
batch = 4
[train]
threads = 1
)";

ScriptPaths paths() { return {.study_dir = "/tmp/sb-study/t", .workdir = "/tmp/sb-study", .exe = "/opt/sb/scalebench"}; }

record::RunConfig point(StrategyKind s, int n, Backend b = Backend::cpu) {
  record::RunConfig c;
  c.train.strategy = s;
  c.train.backend = b;
  c.train.threads = 1;
  c.world_size = n;
  return c;
}

// The options of a step command before the binary (srun's or mpirun's own).
std::string launch_part(const std::vector<std::string>& cmd, const std::string& exe) {
  std::string s;
  for (const auto& w : cmd) {
    if (w == exe) break;
    s += (s.empty() ? "" : " ") + w;
  }
  return s;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool has_line(const std::vector<std::string>& lines, const std::string& l) {
  return std::find(lines.begin(), lines.end(), l) != lines.end();
}

}  // namespace

TEST(SlurmAlloc, StepPlacesItselfInsideTheAllocation) {
  Profile p = parse_profile(kProfile, "p.toml");
  const std::string exe = "/x/scalebench";
  const auto ring4 = point(StrategyKind::ring, 4);
  // In its own job the step takes the job's nodes; in the allocation it names them.
  EXPECT_EQ(launch_part(step_command(ring4, p, exe, "/r"), exe),
            "srun --mpi=pmix --ntasks=4 --cpus-per-task=1 --kill-on-bad-exit=1 --cpu-bind=cores "
            "--export=ALL,SCALEBENCH_LAUNCHER=srun");
  EXPECT_EQ(launch_part(step_command(ring4, p, exe, "/r", StepIn::allocation), exe),
            "srun --mpi=pmix --nodes=2 --ntasks=4 --ntasks-per-node=2 --cpus-per-task=1 --kill-on-bad-exit=1 "
            "--cpu-bind=cores --export=ALL,SCALEBENCH_LAUNCHER=srun");
  EXPECT_EQ(launch_part(step_command(point(StrategyKind::single, 1), p, exe, "/r", StepIn::allocation), exe),
            "srun --nodes=1 --ntasks=1 --ntasks-per-node=1 --cpus-per-task=1 --kill-on-bad-exit=1 --cpu-bind=cores "
            "--export=ALL,SCALEBENCH_LAUNCHER=srun");
  // A cuda step asks for its own GPUs per node in the profile's form, unless --gpus-per-task gives them.
  const auto gring = point(StrategyKind::ring, 4, Backend::cuda);
  const auto gsingle = point(StrategyKind::single, 1, Backend::cuda);
  EXPECT_EQ(launch_part(step_command(gring, p, exe, "/r", StepIn::allocation), exe),
            "srun --mpi=pmix --nodes=2 --ntasks=4 --ntasks-per-node=2 --cpus-per-task=1 --gpus-per-node=2 "
            "--kill-on-bad-exit=1 --cpu-bind=cores --export=ALL,SCALEBENCH_LAUNCHER=srun");
  EXPECT_EQ(launch_part(step_command(gring, p, exe, "/r"), exe).find("--gpus-per-node"), std::string::npos)
      << "in its own job the job's GPUs are the step's";
  p.gpu_request = GpuRequest::gres;
  p.gpu_type = "a100";
  EXPECT_NE(launch_part(step_command(gsingle, p, exe, "/r", StepIn::allocation), exe).find(" --gres=gpu:a100:1 "),
            std::string::npos);
  p.gpus_per_task = true;
  p.gpu_bind = "none";
  const std::string bound = launch_part(step_command(gsingle, p, exe, "/r", StepIn::allocation), exe);
  EXPECT_NE(bound.find(" --gpus-per-task=1 --gpu-bind=none "), std::string::npos) << bound;
  EXPECT_EQ(bound.find("--gres"), std::string::npos) << bound;
  // mpirun places its ranks by the allocation's slots: no placement options of its own.
  p.launcher = "mpirun";
  EXPECT_EQ(launch_part(step_command(ring4, p, exe, "/r", StepIn::allocation), exe), "mpirun -np 4");
}

TEST(SlurmAlloc, AllocationIsTheMostAnyPointNeeds) {
  const Profile p = parse_profile(kProfile, "p.toml");
  const auto points = expand(parse_spec(kSpec, "s.toml"));
  const Resources r = allocation_resources(points, p);
  EXPECT_EQ(r.nodes, 2);           // ring N=4 at 2 tasks per node
  EXPECT_EQ(r.tasks_per_node, 2);
  EXPECT_EQ(r.cpus_per_task, 4);   // mirrored N=4: threads 1 x 4 devices
  EXPECT_EQ(r.gpus_per_node, 0);   // a cpu study
  EXPECT_TRUE(r.exclusive);        // ring N=4 fills its nodes
  const auto one = std::vector<record::RunConfig>{point(StrategyKind::single, 1)};
  EXPECT_EQ(allocation_resources(one, p).nodes, 1);
  EXPECT_FALSE(allocation_resources(one, p).exclusive);
  // A point the profile cannot hold fails as in the per-point mode, naming it.
  const auto too_wide = std::vector<record::RunConfig>{point(StrategyKind::mirrored, 4, Backend::cuda)};
  EXPECT_THROW(allocation_resources(too_wide, p), Error);
}

TEST(SlurmAlloc, ScriptRunsTheSweepUnderTheTrap) {
  const Profile p = parse_profile(kProfile, "p.toml");
  const auto points = expand(parse_spec(kSpec, "s.toml"));
  const std::string s = allocation_script("t", points, p, paths());
  const auto lines = sbtest::sbatch_lines(s);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "#SBATCH --job-name=sb-t-sweep", "#SBATCH --chdir=/tmp/sb-study",
                       "#SBATCH --output=/tmp/sb-study/t/slurm/logs/sweep-%j.out", "#SBATCH --open-mode=append",
                       "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=2", "#SBATCH --cpus-per-task=4",
                       "#SBATCH --time=06:00:00", "#SBATCH --signal=B:USR1@120", "#SBATCH --requeue",
                       "#SBATCH --exclusive", "#SBATCH --partition=gpu"}))
      << s;
  EXPECT_LT(s.rfind("#SBATCH"), s.find("set -u"));
  // Every point group's step is shown, placed on its own nodes: 7 groups (single; mirrored, ring at 1, 2, 4).
  const auto groups = group_points(points);
  ASSERT_EQ(groups.size(), 7u);
  for (const auto& g : groups) {
    const auto step = step_command(g.reps.front(), p, "/opt/sb/scalebench", "/tmp/sb-study/t/runs", StepIn::allocation);
    EXPECT_NE(s.find(fmt::format("#   [{}] {}\n", g.index, join_command(step))), std::string::npos)
        << g.label << "\n" << s;
  }
  EXPECT_NE(s.find("#   [7] srun --mpi=pmix --nodes=2 --ntasks=4 --ntasks-per-node=2 "), std::string::npos) << s;
  const auto trap = s.find("trap '");
  const auto launch = s.find("'/opt/sb/scalebench' slurm-sweep '/tmp/sb-study/t' &\n");
  ASSERT_NE(trap, std::string::npos) << s;
  ASSERT_NE(launch, std::string::npos) << s;
  EXPECT_LT(trap, launch);
  EXPECT_NE(s.find("scalebench: the sweep preempted; requeueing job $SLURM_JOB_ID"), std::string::npos) << s;
  // Without allocation_time the profile's time; a bad one is refused when the profile is read.
  std::string text = kProfile;
  const auto at = text.find("allocation_time = \"06:00:00\"\n");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(parse_profile(std::string(text).erase(at, 29), "q.toml").allocation_time, "00:30:00");
  try {
    parse_profile(text.replace(at, 29, "allocation_time = \"6 hours\"\n"), "p.toml");
    ADD_FAILURE() << "accepted allocation_time = \"6 hours\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.allocation_time"), std::string::npos) << e.what();
  }
}

TEST(SlurmAlloc, ArrayThrottleCapsARepetitionArray) {
  const Profile p = parse_profile(kProfile, "p.toml");
  const auto groups = group_points(expand(parse_spec(kSpec, "s.toml")));
  const auto lines = sbtest::sbatch_lines(point_script("t", groups[0], {1, 2}, p, paths(), false, 1));
  EXPECT_TRUE(has_line(lines, "#SBATCH --array=1-2%1"));
  EXPECT_TRUE(has_line(sbtest::sbatch_lines(point_script("t", groups[0], {1, 2}, p, paths())), "#SBATCH --array=1-2"));
  // The throttle belongs to job arrays: another launcher refuses it with one line, before anything runs.
  SweepSpec spec = parse_spec(kSpec, "s.toml");
  for (auto kind : {LauncherKind::local, LauncherKind::slurm_alloc}) {
    std::ostringstream out;
    try {
      run_sweep(spec, {.launcher = kind, .dry_run = true, .exe = "", .profile = "p.toml", .array_throttle = 2}, out);
      ADD_FAILURE() << "accepted --array-throttle with " << name_of(kind);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--array-throttle 2: only --launcher slurm"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(out.str().empty()) << out.str();
  }
}

// The shipped multi-node GPU study, reviewed through a dry run with every shipped profile: the
// allocation of 4 whole nodes of 4 GPUs in the profile's form, and the srun step of N = 1, 8 and
// 16 (1, 2 and 4 nodes) with the profile's GPU binding and CPUs per task. The CPU-only local-test
// profile refuses it with one line.
TEST(SlurmAlloc, ShippedMultiNodeGpuStudyOnEveryProfile) {
  struct Expect {
    std::string profile, gpus_job, cpus, single_gpus, n8_gpus, n16_gpus, mpi, after;
  };
  const std::vector<Expect> cases = {
      {"generic-gpu", "--gpus-per-node=4", "16", "--gpus-per-node=1", "--gpus-per-node=4", "--gpus-per-node=4",
       "--mpi=pmix ", "--kill-on-bad-exit=1 --cpu-bind=cores"},
      {"jsc-juwels-booster", "--gres=gpu:4", "12", "--gres=gpu:1", "--gres=gpu:4", "--gres=gpu:4", "",
       "--kill-on-bad-exit=1 --threads-per-core=1"},
      {"nersc-perlmutter", "--gpus-per-node=4", "32", "--gpus-per-task=1 --gpu-bind=none",
       "--gpus-per-task=1 --gpu-bind=none", "--gpus-per-task=1 --gpu-bind=none", "",
       "--kill-on-bad-exit=1 --cpu-bind=cores"},
  };
  const std::string src = SB_SOURCE_DIR;
  sbtest::TempDir tmp;
  SweepSpec spec = load_spec(src + "/studies/gpu-unet-nodes.toml");
  spec.output = tmp / "gpu-unet-nodes";
  const auto groups = group_points(expand(spec));
  auto index_of = [&](StrategyKind s, int n) {
    for (const auto& g : groups)
      if (g.reps[0].train.strategy == s && g.reps[0].world_size == n) return g.index;
    return 0;
  };
  for (const auto& e : cases) {
    SCOPED_TRACE(e.profile);
    const Profile p = load_profile(src + "/slurm/profiles/" + e.profile + ".toml");
    std::ostringstream out;
    const auto sub = submit_allocation(spec, p, {.dry_run = true}, out);
    EXPECT_TRUE(sub.job_ids.empty());
    const std::string s = slurp(fs::path(spec.output) / "slurm" / "sweep.sbatch");
    const auto lines = sbtest::sbatch_lines(s);
    for (const std::string l : {"--nodes=4", "--ntasks-per-node=4", "--exclusive", "--requeue"})
      EXPECT_TRUE(has_line(lines, "#SBATCH " + l)) << l << "\n" << s;
    EXPECT_TRUE(has_line(lines, "#SBATCH --cpus-per-task=" + e.cpus)) << s;
    EXPECT_TRUE(has_line(lines, "#SBATCH " + e.gpus_job)) << s;
    const auto step = [&](StrategyKind k, int n, const std::string& mpi, int nodes, const std::string& gpus) {
      return fmt::format("#   [{}] srun {}--nodes={} --ntasks={} --ntasks-per-node={} --cpus-per-task={} {} {} "
                         "--export=ALL,SCALEBENCH_LAUNCHER=srun scalebench train ",
                         index_of(k, n), mpi, nodes, n, std::min(n, 4), e.cpus, gpus, e.after);
    };
    for (const auto& want : {step(StrategyKind::single, 1, "", 1, e.single_gpus),
                             step(StrategyKind::ring, 8, e.mpi, 2, e.n8_gpus),
                             step(StrategyKind::hierarchical, 16, e.mpi, 4, e.n16_gpus),
                             step(StrategyKind::multiworker, 16, e.mpi, 4, e.n16_gpus)})
      EXPECT_NE(s.find(want), std::string::npos) << want << "\n" << s;
    EXPECT_NE(s.find("'scalebench' slurm-sweep '" + spec.output + "' &\n"), std::string::npos) << s;
    EXPECT_NE(out.str().find("in one allocation of 4 node(s)"), std::string::npos) << out.str();
  }
  try {
    std::ostringstream out;
    submit_allocation(spec, load_profile(src + "/slurm/profiles/local-test.toml"), {.dry_run = true}, out);
    ADD_FAILURE() << "the CPU-only local-test profile accepted a cuda study";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpus_per_node = 0"), std::string::npos) << e.what();
  }
}
