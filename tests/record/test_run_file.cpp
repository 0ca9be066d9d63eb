// test_run_file.cpp — the run file schema (DESIGN §6): write one, read it back field by field;
// readers reject what is not a run file or comes from a newer schema, naming the file.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/record/context.h"
#include "harness/record/h5io.h"
#include "harness/record/run_config.h"
#include "harness/record/run_file.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::record;

namespace {

EpochResult epoch(int e, double wall) {
  EpochResult r;
  r.epoch = e;
  r.warmup = e == 1;
  r.wall_s = wall;
  r.images = 80;
  r.images_per_s = 80 / wall;
  r.lr = 0.05 / e;
  r.train_loss = 1.0 / e;
  r.val_loss = 1.1 / e;
  r.val_iou = {0.9, 0.1 * e, 0.2 * e};
  r.val_miou = 0.15 * e;
  r.val_accuracy = 0.8;
  return r;
}

std::vector<StepRow> steps(int e, int n) {
  std::vector<StepRow> v;
  for (int s = 1; s <= n; ++s) {
    StepRow r{.epoch = e, .step = s, .loss = 1.0 / s, .time = {}};
    r.time.data = 0.001, r.time.fwd = 0.01 * s, r.time.bwd = 0.02, r.time.comm_exposed = 0.003, r.time.update = 0.004;
    v.push_back(r);
  }
  return v;
}

}  // namespace

TEST(RunFile, SchemaRoundTrip) {
  sbtest::TempDir dir;
  const std::string path = dir / "run.h5";
  RunConfig cfg;
  cfg.train.data = "d.h5";
  RunFile f = make_run_file();
  f.config = config_attrs(cfg);
  f.context = capture_context({"scalebench", "train", "--data", "d.h5"});
  f.class_names = {"background", "shower", "track"};
  append_epoch(f, epoch(1, 2.0), steps(1, 4), true);
  append_epoch(f, epoch(2, 1.0), steps(2, 4), true);
  f.summary.set("images_per_s", 80.0);
  f.status = "ok";
  f.owner = {.pid = 4242, .pid_start = 987654, .host = "node7", .boot_id = "b", .slurm_job = "12_3", .heartbeat_s = 30};
  write_run_file(path, f);

  const RunFile g = read_run_file(path);
  EXPECT_EQ(g.schema_version, 1);
  EXPECT_EQ(g.status, "ok");
  EXPECT_EQ(g.owner.pid, 4242);
  EXPECT_EQ(g.owner.pid_start, 987654);
  EXPECT_EQ(g.owner.host, "node7");
  EXPECT_EQ(g.owner.boot_id, "b");
  EXPECT_EQ(g.owner.slurm_job, "12_3");
  EXPECT_EQ(g.owner.heartbeat_s, 30);
  EXPECT_EQ(g.writer, std::string("scalebench ") + SCALEBENCH_VERSION);
  EXPECT_EQ(g.created_utc.size(), 20u);  // 2025-01-31T12:34:56Z
  EXPECT_EQ(g.config.str("run_id"), run_id(cfg));
  EXPECT_EQ(g.config.integer("world_size"), 1);
  EXPECT_EQ(g.context.str("argv"), "scalebench train --data d.h5");
  for (const char* k : {"git_sha", "git_dirty", "hostnames", "cpu_model", "compiler", "build_type", "hdf5_version",
                        "mpi_version", "environment", "scalebench_version", "gpu_names", "gpu_stack"})
    EXPECT_TRUE(g.context.has(k)) << k;
  // Without a usable GPU nothing about one is recorded; with one, its software stack is named.
  EXPECT_EQ(g.context.str("gpu_names").empty(), g.context.str("gpu_stack").empty()) << g.context.str("gpu_stack");
  ASSERT_EQ(g.epochs.rows(), 2u);
  for (const char* c : {"epoch", "warmup", "wall_s", "images", "images_per_s", "lr", "train_loss", "val_loss",
                        "val_miou", "val_accuracy", "grad_noise_trace", "grad_sq_norm", "b_simple"})
    EXPECT_NE(g.epochs.find(c), nullptr) << c;
  EXPECT_EQ(g.epochs.integer("warmup", 0), 1);
  EXPECT_EQ(g.epochs.integer("warmup", 1), 0);
  EXPECT_DOUBLE_EQ(g.epochs.num("wall_s", 1), 1.0);
  EXPECT_EQ(g.epochs.integer("images", 1), 80);
  EXPECT_DOUBLE_EQ(g.epochs.num("val_miou", 1), 0.3);
  ASSERT_EQ(g.steps.rows(), 8u);
  EXPECT_EQ(g.steps.integer("epoch", 5), 2);
  EXPECT_EQ(g.steps.integer("step", 5), 2);
  EXPECT_DOUBLE_EQ(g.steps.num("loss", 5), 0.5);
  EXPECT_NEAR(g.steps.num("t_total", 5), 0.001 + 0.02 + 0.02 + 0.003 + 0.004, 1e-12);
  EXPECT_DOUBLE_EQ(g.steps.num("t_comm_exposed", 0), 0.003);
  ASSERT_EQ(g.iou.size(), 2u);
  EXPECT_DOUBLE_EQ(g.iou[1][2], 0.4);
  EXPECT_EQ(g.class_names, f.class_names);
  EXPECT_DOUBLE_EQ(g.summary.num("images_per_s"), 80.0);
}

TEST(RunFile, ClassificationWritesNaNForMiou) {
  sbtest::TempDir dir;
  RunFile f = make_run_file();
  append_epoch(f, epoch(1, 1.0), {}, /*segmentation=*/false);
  write_run_file(dir / "c.h5", f);
  const RunFile g = read_run_file(dir / "c.h5");
  EXPECT_TRUE(std::isnan(g.epochs.num("val_miou", 0)));
  EXPECT_DOUBLE_EQ(g.epochs.num("val_accuracy", 0), 0.8);
  EXPECT_EQ(g.steps.rows(), 0u);
}

TEST(RunFile, RejectsForeignAndNewerFiles) {
  sbtest::TempDir dir;
  const std::string foreign = dir / "foreign.h5";
  h5::write_file_atomically(foreign, [](hid_t) {});
  try {
    read_run_file(foreign);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("foreign.h5: not a scalebench run file"), std::string::npos) << e.what();
  }
  const std::string newer = dir / "newer.h5";
  RunFile f = make_run_file();
  f.schema_version = 2;
  write_run_file(newer, f);
  try {
    read_run_file(newer);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema_version 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_run_file(dir / "absent.h5"), Error);
}

// The world size a run records comes from its launcher's environment. A batch script carries
// SLURM_NTASKS (the allocation's) but no SLURM_STEP_NUM_TASKS; the tasks of an srun step carry both,
// with or without scalebench's SCALEBENCH_LAUNCHER mark (srun --mpi=pmix by hand or from ReFrame).
TEST(LauncherEnv, WorldSizeOfAnSrunStepWithOrWithoutTheMark) {
  const char* vars[] = {"SCALEBENCH_LAUNCHER", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS"};
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* v : vars)
    if (const char* x = std::getenv(v)) saved.emplace_back(v, x);
  for (const char* v : vars) ::unsetenv(v);
  EXPECT_EQ(launcher_world_size(), 0);
  ::setenv("SLURM_NTASKS", "4", 1);  // a batch script: not a launch of 4
  EXPECT_EQ(launcher_world_size(), 0);
  ::setenv("SLURM_STEP_NUM_TASKS", "2", 1);  // a step of 2 tasks, unmarked
  EXPECT_EQ(launcher_world_size(), 2);
  ::setenv("OMPI_COMM_WORLD_SIZE", "3", 1);  // mpirun's children: mpirun's count wins
  EXPECT_EQ(launcher_world_size(), 3);
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::setenv("SCALEBENCH_LAUNCHER", "srun", 1);  // scalebench's own srun line: SLURM_NTASKS
  EXPECT_EQ(launcher_world_size(), 4);
  for (const char* v : vars) ::unsetenv(v);
  for (const auto& [k, v] : saved) ::setenv(k.c_str(), v.c_str(), 1);
}
