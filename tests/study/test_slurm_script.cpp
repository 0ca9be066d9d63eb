// test_slurm_script.cpp — the Slurm launcher's script generation without a cluster: profiles are
// validated field by field, values that could add #SBATCH lines or commands are refused (profile
// keys, env names and values, paths, spec values), resources per strategy, step commands, the
// scripts' directives, and the jobs file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/study/launch/slurm/profile.h"
#include "harness/study/launch/slurm/safe.h"
#include "harness/study/launch/slurm/script.h"
#include "harness/study/launch/slurm/submit.h"
#include "harness/study/spec/spec.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/sbatch_lines.h"

using namespace scalebench;
using namespace scalebench::study;
using namespace scalebench::study::slurm;

namespace {

const char* kProfile = R"([cluster]
name = "test"
partition = "gpu"
account = "proj-1"
time = "00:30:00"
tasks_per_node = 2
gpus_per_node = 2
max_cpus_per_task = 4
srun_args = ["--cpu-bind=cores"]
sbatch_args = ["--constraint=a100"]
gpus_per_task = true
gpu_bind = "closest"
modules = ["cuda/12.4"]
env = { NCCL_DEBUG = "WARN", EMPTY = "" }
signal_seconds = 120
requeue = true
)";

const char* kSpec = R"([study]
name = "t"
output = "/tmp/sb-study/t"
repetitions = 3
[dataset]
path = "/dev/null"
[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["single", "mirrored", "ring", "ps-sync"]
devices = [1, 2, 4]
batch = 4
)";

ScriptPaths paths() { return {.study_dir = "/tmp/sb-study/t", .workdir = "/tmp/sb-study", .exe = "/opt/sb/scalebench"}; }

// parse_profile(kProfile with `key = ...` line replaced by `line`) must throw naming `field`.
void expect_refused(const std::string& key, const std::string& line, const std::string& field) {
  std::string text = kProfile;
  const auto at = text.find("\n" + key + " = ");
  if (at == std::string::npos) text += line + "\n";
  else text.replace(at + 1, text.find('\n', at + 1) - at - 1, line);
  try {
    parse_profile(text, "p.toml");
    ADD_FAILURE() << "accepted: " << line;
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("p.toml:", 0), 0u) << msg;  // file:line:column first
    EXPECT_NE(msg.find(field), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

using sbtest::sbatch_lines;

record::RunConfig point(const std::string& strategy, int n, const std::string& backend = "cpu") {
  record::RunConfig c;
  c.train.strategy = parse_enum<StrategyKind>(strategy, "strategy");
  c.train.backend = parse_enum<Backend>(backend, "backend");
  c.world_size = n;
  return c;
}

}  // namespace

TEST(SlurmProfile, ParsesEveryKey) {
  const Profile p = parse_profile(kProfile, "p.toml");
  EXPECT_EQ(p.name, "test");
  EXPECT_EQ(p.partition, "gpu");
  EXPECT_EQ(p.account, "proj-1");
  EXPECT_EQ(p.tasks_per_node, 2);
  EXPECT_EQ(p.gpus_per_node, 2);
  EXPECT_EQ(p.signal_seconds, 120);
  EXPECT_TRUE(p.requeue);
  ASSERT_EQ(p.env.size(), 2u);
  EXPECT_NE(std::find(p.env.begin(), p.env.end(), std::pair<std::string, std::string>{"NCCL_DEBUG", "WARN"}),
            p.env.end());
  EXPECT_EQ(p.sbatch_args.size(), 1u);
  EXPECT_TRUE(p.gpus_per_task);
  EXPECT_EQ(p.gpu_bind, "closest");
  EXPECT_EQ(p.exclusive, Exclusive::full_nodes);  // the default
}

TEST(SlurmProfile, InjectionAttemptsAreRefusedWithTheField) {
  const std::vector<std::string> evil = {
      "gpu\\n#SBATCH --wrap=rm", "gpu;rm -rf /", "$(id)", "`id`", "a b", "a'b", "a\\\"b", "a|b", "a&b", "a>b",
      "a<b", "a\\\\b", "a*", "a?", "{a}", "a#b", "~", "a\\tb", "a!b", "(a)", "-x"};
  for (const auto& v : evil) {
    SCOPED_TRACE(v);
    expect_refused("partition", "partition = \"" + v + "\"", "cluster.partition");
    expect_refused("account", "account = \"" + v + "\"", "cluster.account");
    expect_refused("modules", "modules = [\"" + v + "\"]", "cluster.modules");
    expect_refused("name", "name = \"" + v + "\"", "cluster.name");
    expect_refused("python", "python = \"" + v + "\"", "cluster.python");
    expect_refused("env", "env = { A = \"" + v + "\" }", "cluster.env.A");
    expect_refused("srun_args", "srun_args = [\"--cpu-bind=" + v + "\"]", "cluster.srun_args");
    expect_refused("sbatch_args", "sbatch_args = [\"--constraint=" + v + "\"]", "cluster.sbatch_args");
  }
  expect_refused("env", "env = { \"A;B\" = \"1\" }", "cluster.env");
  expect_refused("env", "env = { \"1A\" = \"1\" }", "cluster.env");
  expect_refused("sbatch_args", "sbatch_args = [\"x\"]", "cluster.sbatch_args");
  expect_refused("sbatch_args", "sbatch_args = [\"--signal=B:USR2@5\"]", "cluster.sbatch_args");
  expect_refused("sbatch_args", "sbatch_args = [\"--array=1-9\"]", "cluster.sbatch_args");
  expect_refused("time", "time = \"1:00:00\\n#SBATCH --x\"", "cluster.time");
  expect_refused("time", "time = \"one hour\"", "cluster.time");
  expect_refused("time", "time = \"1:2:3:4\"", "cluster.time");
  expect_refused("tasks_per_node", "tasks_per_node = \"4\"", "cluster.tasks_per_node");
  expect_refused("tasks_per_node", "tasks_per_node = 0", "cluster.tasks_per_node");
  expect_refused("launcher", "launcher = \"ssh\"", "cluster.launcher");
  expect_refused("bogus", "bogus = 1", "cluster.bogus");
  expect_refused("srun_args", "srun_args = [\"--export=NONE\"]", "cluster.srun_args");
  expect_refused("srun_args", "srun_args = [\"--export\"]", "cluster.srun_args");
  expect_refused("sbatch_args", "sbatch_args = [\"--gres=gpu:4\"]", "cluster.sbatch_args");
  expect_refused("gpu_request", "gpu_request = \"gpus\"", "cluster.gpu_request");
  // What scalebench sets from the profile's own keys cannot come in through the free-form lists.
  expect_refused("sbatch_args", "sbatch_args = [\"--exclusive\"]", "cluster.sbatch_args");
  expect_refused("sbatch_args", "sbatch_args = [\"--gpus-per-task=1\"]", "cluster.sbatch_args");
  expect_refused("srun_args", "srun_args = [\"--cpus-per-task=2\"]", "cluster.srun_args");
  expect_refused("srun_args", "srun_args = [\"--gpu-bind=none\"]", "cluster.srun_args");
  expect_refused("exclusive", "exclusive = \"sometimes\"", "cluster.exclusive");
  expect_refused("exclusive", "exclusive = true", "cluster.exclusive");
  expect_refused("gpu_bind", "gpu_bind = \"none;id\"", "cluster.gpu_bind");
  expect_refused("gpus_per_task", "gpus_per_task = 1", "cluster.gpus_per_task");
  expect_refused("x", "[collect]\nmore_modules = [\"a b\"]", "collect.more_modules");
  expect_refused("gpu_type", "gpu_type = \"a100;id\"", "cluster.gpu_type");
  expect_refused("collect_time", "collect_time = \"00:10:00\"", "cluster.collect_time");  // moved to [collect]
  expect_refused("cpus_per_task", "cpus_per_task = 4", "cluster.cpus_per_task");    // renamed
  expect_refused("scalebench", "scalebench = \"/opt/a b\"", "cluster.scalebench");
  expect_refused("plots", "plots = \"$(id)\"", "cluster.plots");
  // [collect] comes after [cluster]: appended lines land in it.
  expect_refused("x", "[collect]\npartition = \"a;b\"", "collect.partition");
  expect_refused("x", "[collect]\ncpus = 0", "collect.cpus");
  expect_refused("x", "[collect]\ntime = \"soon\"", "collect.time");
  expect_refused("x", "[collect]\ngpus = 1", "collect.gpus");
  expect_refused("x", "[collect]\nsbatch_args = [\"--array=1\"]", "collect.sbatch_args");
}

TEST(SlurmProfile, TimeFormats) {
  for (const char* ok : {"30", "30:00", "01:00:00", "2-00", "2-12:00", "1-00:00:00"}) EXPECT_NO_THROW(require_time(ok, "t")) << ok;
  for (const char* bad : {"", ":", "1:", "a", "1-", "-1", "1:00:00:00", "1 h"}) EXPECT_THROW(require_time(bad, "t"), Error) << bad;
}

TEST(SlurmScript, GroupsRepetitionsIntoOneJobEach) {
  const auto spec = parse_spec(kSpec, "s.toml");
  const auto groups = group_points(expand(spec));
  // single at N=1 only; mirrored, ring, ps-sync at 1, 2, 4: 1 + 3 × 3 = 10 groups of 3 repetitions.
  ASSERT_EQ(groups.size(), 10u);
  std::set<std::string> labels;
  for (const auto& g : groups) {
    EXPECT_EQ(g.reps.size(), 3u) << g.label;
    for (int r = 0; r < 3; ++r) EXPECT_EQ(g.reps[std::size_t(r)].repetition, r + 1);
    labels.insert(g.label);
    EXPECT_EQ(g.index, int(&g - groups.data()) + 1);
  }
  EXPECT_EQ(labels.size(), groups.size());
}

TEST(SlurmScript, ResourcesPerStrategy) {
  const Profile p = parse_profile(kProfile, "p.toml");
  Resources r = resources_for(point("ps-sync", 4), p);  // 4 workers + 1 server, 2 per node
  EXPECT_EQ(r.ntasks, 5);
  EXPECT_EQ(r.nodes, 3);
  EXPECT_EQ(r.tasks_per_node, 2);
  EXPECT_EQ(r.gpus_per_node, 0);  // a cpu point asks for no GPUs
  r = resources_for(point("ring", 4, "cuda"), p);
  EXPECT_EQ(r.nodes, 2);
  EXPECT_EQ(r.gpus_per_node, 2);
  r = resources_for(point("mirrored", 2, "cuda"), p);
  EXPECT_EQ(r.ntasks, 1);
  EXPECT_EQ(r.cpus_per_task, 4);  // threads 0 (all cores): the profile's cap
  EXPECT_EQ(r.gpus_per_node, 2);
  // CPUs per task: threads x the task's devices, at most max_cpus_per_task (4 here).
  auto threads = [&](const std::string& strategy, int n, int t) {
    record::RunConfig c = point(strategy, n);
    c.train.threads = t;
    return resources_for(c, p).cpus_per_task;
  };
  EXPECT_EQ(threads("single", 1, 1), 1);
  EXPECT_EQ(threads("ring", 4, 1), 1);   // one device per rank
  EXPECT_EQ(threads("mirrored", 2, 1), 2);
  EXPECT_EQ(threads("mirrored", 4, 1), 4);
  EXPECT_EQ(threads("mirrored", 4, 3), 4);  // 12 wanted, capped
  EXPECT_EQ(threads("ring", 2, 3), 3);
  EXPECT_THROW(resources_for(point("mirrored", 4, "cuda"), p), Error);  // 4 GPUs on a 2-GPU node
  Profile cpu = p;
  cpu.gpus_per_node = 0;
  EXPECT_THROW(resources_for(point("ring", 2, "cuda"), cpu), Error);
}

TEST(SlurmScript, StepCommands) {
  Profile p = parse_profile(kProfile, "p.toml");
  record::RunConfig c;
  c.train.strategy = StrategyKind::ring;
  c.world_size = 4;
  auto cmd = step_command(c, p, "/x/scalebench", "/r");
  EXPECT_EQ(cmd[0], "srun");
  EXPECT_EQ(cmd[1], "--mpi=pmix");
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--ntasks=4"), cmd.end());
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--export=ALL,SCALEBENCH_LAUNCHER=srun"), cmd.end());
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--cpu-bind=cores"), cmd.end());
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "/x/scalebench"), cmd.end());
  // srun gets the CPUs per task itself (Slurm >= 22.05 does not pass the job's on to a step).
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), fmt::format("--cpus-per-task={}", resources_for(c, p).cpus_per_task)),
            cmd.end());
  // GPU binding only for cuda points.
  EXPECT_EQ(std::count_if(cmd.begin(), cmd.end(), [](auto& w) { return w.rfind("--gpu", 0) == 0; }), 0);
  {
    record::RunConfig g = c;
    g.world_size = 2;
    g.train.backend = Backend::cuda;
    const auto gcmd = step_command(g, p, "/x/scalebench", "/r");
    EXPECT_NE(std::find(gcmd.begin(), gcmd.end(), "--gpus-per-task=1"), gcmd.end());
    EXPECT_NE(std::find(gcmd.begin(), gcmd.end(), "--gpu-bind=closest"), gcmd.end());
    Profile plain = p;
    plain.gpus_per_task = false;
    plain.gpu_bind = "";
    const auto pcmd = step_command(g, plain, "/x/scalebench", "/r");
    EXPECT_EQ(std::count_if(pcmd.begin(), pcmd.end(), [](auto& w) { return w.rfind("--gpu", 0) == 0; }), 0);
    g.train.strategy = StrategyKind::mirrored;  // one task driving both GPUs
    const auto mcmd = step_command(g, p, "/x/scalebench", "/r");
    EXPECT_NE(std::find(mcmd.begin(), mcmd.end(), "--gpus-per-task=2"), mcmd.end());
  }
  // A profile's --export is merged into scalebench's own, which comes last and keeps the rank checks.
  Profile ex = p;
  ex.srun_args = {"--export=ALL,FOO=1", "--cpu-bind=cores"};
  cmd = step_command(c, ex, "/x/scalebench", "/r");
  std::vector<std::string> exports;
  for (const auto& w : cmd)
    if (w.rfind("--export", 0) == 0) exports.push_back(w);
  EXPECT_EQ(exports, std::vector<std::string>{"--export=ALL,FOO=1,SCALEBENCH_LAUNCHER=srun"});
  EXPECT_LT(std::find(cmd.begin(), cmd.end(), "--cpu-bind=cores"), std::find(cmd.begin(), cmd.end(), exports[0]));
  ex.srun_mpi = "";  // the site's MpiDefault
  cmd = step_command(c, ex, "/x/scalebench", "/r");
  EXPECT_EQ(std::count_if(cmd.begin(), cmd.end(), [](auto& w) { return w.rfind("--mpi", 0) == 0; }), 0);
  c.train.strategy = StrategyKind::single;
  c.world_size = 1;
  cmd = step_command(c, p, "/x/scalebench", "/r");
  EXPECT_EQ(std::find(cmd.begin(), cmd.end(), "--mpi=pmix"), cmd.end());  // not an MPI program
  p.launcher = "mpirun";
  c.train.strategy = StrategyKind::ps_async;
  c.world_size = 2;
  cmd = step_command(c, p, "/x/scalebench", "/r");
  EXPECT_EQ(cmd[0], "mpirun");
  EXPECT_EQ(cmd[2], "3");  // 2 workers + the server
}

TEST(SlurmScript, PointScriptDirectives) {
  const Profile p = parse_profile(kProfile, "p.toml");
  const auto groups = group_points(expand(parse_spec(kSpec, "s.toml")));
  const PointGroup* ring4 = nullptr;
  for (const auto& g : groups)
    if (g.reps[0].train.strategy == StrategyKind::ring && g.reps[0].world_size == 4) ring4 = &g;
  ASSERT_TRUE(ring4);
  const std::string s = point_script("t", *ring4, {1, 3}, p, paths());
  const auto lines = sbatch_lines(s);
  const std::set<std::string> expected = {
      "#SBATCH --nodes=2", "#SBATCH --ntasks=4", "#SBATCH --ntasks-per-node=2", "#SBATCH --cpus-per-task=4",
      "#SBATCH --time=00:30:00", "#SBATCH --array=1,3", "#SBATCH --signal=B:USR1@120", "#SBATCH --requeue",
      "#SBATCH --partition=gpu", "#SBATCH --account=proj-1", "#SBATCH --exclusive", "#SBATCH --constraint=a100",
      "#SBATCH --chdir=/tmp/sb-study", "#SBATCH --open-mode=append"};
  for (const auto& e : expected) EXPECT_NE(std::find(lines.begin(), lines.end(), e), lines.end()) << e << "\n" << s;
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](auto& l) { return l.rfind("#SBATCH --gpus", 0) == 0; }), 0)
      << "a cpu point asks for no GPUs";
  EXPECT_NE(s.find("slurm-point '/tmp/sb-study/t' --group " + std::to_string(ring4->index) + " --repetition \"$rep\""),
            std::string::npos);
  EXPECT_NE(s.find("rep=${SLURM_ARRAY_TASK_ID}"), std::string::npos);
  // The USR1 trap is in place before the point starts in the background (no window without it).
  const auto trap = s.find("trap '");
  ASSERT_NE(trap, std::string::npos) << s;
  EXPECT_LT(trap, s.find("' slurm-point '")) << s;
  EXPECT_NE(s.find("scontrol requeue"), std::string::npos);
  EXPECT_NE(s.find("module load 'cuda/12.4'"), std::string::npos);
  EXPECT_NE(s.find("export NCCL_DEBUG='WARN'"), std::string::npos);
  EXPECT_NE(s.find("\nexport SRUN_CPUS_PER_TASK=4\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" --cpus-per-task=4 "), std::string::npos) << "the step command shown: " << s;
  // Every #SBATCH line must precede the first command (sbatch stops reading them there).
  EXPECT_LT(s.rfind("#SBATCH"), s.find("set -u"));
}

TEST(SlurmScript, UnsafePathsAndSpecValuesAreRefused) {
  const Profile p = parse_profile(kProfile, "p.toml");
  const auto groups = group_points(expand(parse_spec(kSpec, "s.toml")));
  for (auto bad : {"/tmp/a b", "/tmp/a\n#SBATCH --x", "/tmp/$(id)", "/tmp/a;b"}) {
    ScriptPaths ps = paths();
    ps.study_dir = bad;
    EXPECT_THROW(point_script("t", groups[0], {1}, p, ps), Error) << bad;
    EXPECT_THROW(collect_script("t", {"1"}, p, ps), Error) << bad;
    ps = paths();
    ps.workdir = bad;
    EXPECT_THROW(point_script("t", groups[0], {1}, p, ps), Error) << bad;
    ps = paths();
    ps.exe = bad;
    EXPECT_THROW(point_script("t", groups[0], {1}, p, ps), Error) << bad;
  }
  // A value from the spec that reaches the step command (the dataset path here).
  PointGroup g = groups[0];
  g.reps[0].train.data = "/data/x.h5\n#SBATCH --wrap=id";
  try {
    point_script("t", g, {1}, p, paths());
    ADD_FAILURE() << "accepted a newline in the dataset path";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("0x0a"), std::string::npos) << e.what();
  }
  EXPECT_THROW(collect_script("t", {"12;rm"}, p, paths()), Error);
  EXPECT_THROW(point_script("t\nx", groups[0], {1}, p, paths()), Error);
}

TEST(SlurmScript, CollectScriptWaitsForEveryJob) {
  const Profile p = parse_profile(kProfile, "p.toml");
  const std::string s = collect_script("t", {"11", "12", "13"}, p, paths());
  const auto lines = sbatch_lines(s);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "#SBATCH --dependency=afterany:11:12:13"), lines.end()) << s;
  EXPECT_NE(s.find("'/opt/sb/scalebench' collect '/tmp/sb-study/t'"), std::string::npos);
  // The plots beside the installed binary, found at run time: no path of this build in the script.
  EXPECT_NE(s.find("plots=\"$(dirname \"$(command -v '/opt/sb/scalebench')\")/../share/scalebench/plots/make_all.py\""),
            std::string::npos) << s;
  EXPECT_NE(s.find("'python3' \"$plots\" '/tmp/sb-study/t'"), std::string::npos) << s;
  EXPECT_EQ(collect_script("t", {}, p, paths()).find("--dependency"), std::string::npos);
  // The report before the plots; a failing plot step is reported and the job ends with the report's status.
  const auto report = s.find("'/opt/sb/scalebench' report '/tmp/sb-study/t/study.h5'\nrc=$?\n");
  ASSERT_NE(report, std::string::npos) << s;
  EXPECT_LT(s.find("set +e\n"), report) << s;
  const auto plots = s.find("'python3' \"$plots\"");
  EXPECT_LT(report, plots) << s;
  EXPECT_NE(s.find("-o '/tmp/sb-study/t/plots' ||\n  echo \"scalebench: the plots failed (exit $?;"), std::string::npos) << s;
  EXPECT_EQ(s.substr(s.size() - 11), "exit \"$rc\"\n") << s;
}

TEST(SlurmScript, ExclusiveOnlyWhereAPointFillsItsNodes) {
  // kProfile: 2 tasks, 2 GPUs and 2 x 4 CPUs per node.
  Profile p = parse_profile(kProfile, "p.toml");
  auto excl = [&](const std::string& strategy, int n, int threads, Backend b = Backend::cpu) {
    record::RunConfig c = point(strategy, n, b == Backend::cuda ? "cuda" : "cpu");
    c.train.threads = threads;
    const Resources r = resources_for(c, p);
    PointGroup g{.index = 1, .label = "x", .reps = {c}};
    const auto lines = sbatch_lines(point_script("t", g, {1}, p, paths()));
    EXPECT_EQ(std::find(lines.begin(), lines.end(), "#SBATCH --exclusive") != lines.end(), r.exclusive)
        << strategy << " " << n;
    return r.exclusive;
  };
  EXPECT_FALSE(excl("single", 1, 1));    // 1 of 2 tasks, 1 of 8 CPUs
  EXPECT_FALSE(excl("mirrored", 2, 1));  // one task with 2 of 8 CPUs
  EXPECT_TRUE(excl("ring", 2, 1));       // 2 tasks: the node's tasks_per_node
  EXPECT_TRUE(excl("ring", 4, 1));       // two full nodes
  EXPECT_TRUE(excl("mirrored", 2, 1, Backend::cuda));  // both GPUs of the node
  EXPECT_FALSE(excl("single", 1, 1, Backend::cuda));   // 1 of 2 GPUs
  EXPECT_FALSE(excl("mirrored", 2, 4));  // 8 CPUs wanted, capped at 4: half the node's
  p.exclusive = Exclusive::never;
  EXPECT_FALSE(excl("ring", 4, 1));
  p.exclusive = Exclusive::always;
  EXPECT_TRUE(excl("single", 1, 1));
}

TEST(SlurmScript, CollectJobHasItsOwnResources) {
  // Without [collect]: one CPU, no GPU, the cluster's partition and account, none of the points'
  // sbatch_args (--exclusive, --constraint), the cluster's modules.
  Profile p = parse_profile(kProfile, "p.toml");
  auto lines = sbatch_lines(collect_script("t", {"1"}, p, paths()));
  const std::set<std::string> got(lines.begin(), lines.end());
  for (const char* e : {"#SBATCH --cpus-per-task=1", "#SBATCH --ntasks=1", "#SBATCH --nodes=1", "#SBATCH --time=00:15:00",
                        "#SBATCH --partition=gpu", "#SBATCH --account=proj-1"})
    EXPECT_TRUE(got.count(e)) << e;
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("--exclusive"), std::string::npos) << l;
    EXPECT_EQ(l.find("--constraint"), std::string::npos) << l;
    EXPECT_EQ(l.find("gpu:"), std::string::npos) << l;
    EXPECT_EQ(l.find("--gpus"), std::string::npos) << l;
  }
  // With [collect]: its own partition, time, cpus, sbatch_args and modules.
  p = parse_profile(std::string(kProfile) + "[collect]\npartition = \"cpu\"\nqos = \"shared\"\ntime = \"00:30:00\"\n"
                                            "cpus = 2\nsbatch_args = [\"--mem=4G\"]\nmodules = []\n",
                    "p.toml");
  const std::string s = collect_script("t", {"1"}, p, paths());
  lines = sbatch_lines(s);
  for (const char* e : {"#SBATCH --cpus-per-task=2", "#SBATCH --partition=cpu", "#SBATCH --qos=shared",
                        "#SBATCH --time=00:30:00", "#SBATCH --mem=4G", "#SBATCH --account=proj-1"})
    EXPECT_NE(std::find(lines.begin(), lines.end(), e), lines.end()) << e << "\n" << s;
  EXPECT_EQ(s.find("module load"), std::string::npos) << s;
  p = parse_profile(std::string(kProfile) + "plots = \"/opt/sb/share/plots/make_all.py\"\n", "p.toml");
  EXPECT_NE(collect_script("t", {}, p, paths()).find("plots='/opt/sb/share/plots/make_all.py'"), std::string::npos);
}

TEST(SlurmScript, GpuRequestPerProfile) {
  Profile p = parse_profile(kProfile, "p.toml");
  auto groups = group_points(expand(parse_spec(kSpec, "s.toml")));
  PointGroup g = groups[2];  // mirrored N=2 (single N=1, mirrored N=1, mirrored N=2, ...)
  ASSERT_EQ(g.reps[0].world_size, 2);
  g.reps[0].train.backend = Backend::cuda;
  auto lines = sbatch_lines(point_script("t", g, {1}, p, paths()));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "#SBATCH --gpus-per-node=2"), lines.end());
  p = parse_profile(std::string(kProfile) + "gpu_request = \"gres\"\ngpu_type = \"a100\"\n", "p.toml");
  EXPECT_EQ(p.gpu_request, GpuRequest::gres);
  lines = sbatch_lines(point_script("t", g, {1}, p, paths()));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "#SBATCH --gres=gpu:a100:2"), lines.end());
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](auto& l) { return l.find("--gpus-per-node") != l.npos; }), 0);
}

TEST(SlurmScript, DatagenScript) {
  const Profile p = parse_profile(kProfile, "p.toml");
  data::GenConfig g;
  g.n = 64;
  g.size = 32;
  g.seed = 3;
  const std::string s = datagen_script("t", g, "/tmp/sb-study/t/data/x.h5", p, paths());
  EXPECT_NE(s.find("mkdir -p '/tmp/sb-study/t/data'"), std::string::npos) << s;
  EXPECT_NE(s.find("'/opt/sb/scalebench' datagen --task segmentation --n 64 --size 32 --seed 3 -o '/tmp/sb-study/t/data/x.h5'"),
            std::string::npos) << s;
  const auto lines = sbatch_lines(s);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "#SBATCH --cpus-per-task=1"), lines.end());
  for (const auto& l : lines) EXPECT_EQ(l.find("--exclusive"), std::string::npos) << l;
  EXPECT_THROW(datagen_script("t", g, "/tmp/a b.h5", p, paths()), Error);
}

TEST(SlurmSubmit, DryRunWritesScriptsAndSubmitsNothing) {
  sbtest::TempDir dir;
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(dir.path());
  std::string spec_text = kSpec;
  spec_text.replace(spec_text.find("/tmp/sb-study/t"), std::string("/tmp/sb-study/t").size(), dir / "study");
  const auto spec = parse_spec(spec_text, "s.toml");
  std::ostringstream out;
  // sbatch that would fail loudly if it were called.
  const auto r = submit_study(spec, parse_profile(kProfile, "p.toml"),
                              {.dry_run = true, .exe = "/opt/sb/scalebench", .sbatch = "/bin/false"}, out);
  std::filesystem::current_path(cwd);
  EXPECT_EQ(r.jobs, 0);
  EXPECT_TRUE(r.job_ids.empty());
  int scripts = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "study/slurm"))
    scripts += e.path().extension() == ".sbatch";
  EXPECT_EQ(scripts, 11);  // 10 point groups + collect
  EXPECT_TRUE(std::filesystem::exists(dir / "study/study.toml"));
  EXPECT_TRUE(std::filesystem::exists(dir / "study/slurm/profile.toml"));
  EXPECT_FALSE(std::filesystem::exists(dir / "study/slurm/jobs.tsv"));
  EXPECT_NE(out.str().find("nothing submitted"), std::string::npos) << out.str();
}

TEST(SlurmSubmit, SbatchFailureNamesTheScript) {
  sbtest::TempDir dir;
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(dir.path());
  std::string spec_text = kSpec;
  spec_text.replace(spec_text.find("/tmp/sb-study/t"), std::string("/tmp/sb-study/t").size(), dir / "study");
  std::ostringstream out;
  try {
    submit_study(parse_spec(spec_text, "s.toml"), parse_profile(kProfile, "p.toml"),
                 {.dry_run = false, .exe = "/opt/sb/scalebench", .sbatch = "/bin/false"}, out);
    ADD_FAILURE() << "a failing sbatch was not reported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("01-unet-single-n1.sbatch"), std::string::npos) << e.what();
  }
  std::filesystem::current_path(cwd);
}

TEST(SlurmSubmit, JobsFileRoundTrip) {
  sbtest::TempDir dir;
  std::filesystem::create_directories(dir / "slurm");
  {
    std::ofstream f(dir / "slurm/jobs.tsv");
    f << "submitted_utc\tgroup\tjob_id\trepetitions\tscript\tlabel\n"
      << "2026-01-01T00:00:00Z\t1\t101\t1,2\ts1\tunet single N=1\n"
      << "2026-01-01T00:00:01Z\tcollect\t102\t\tc\tcollect\n";
  }
  const auto jobs = read_jobs(dir.path());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].job_id, "101");
  EXPECT_EQ(jobs[0].repetitions, "1,2");
  EXPECT_EQ(jobs[1].group, "collect");
  EXPECT_TRUE(read_jobs(dir / "none").empty());
}
