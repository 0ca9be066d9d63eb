// run_file.h — the run file of DESIGN §6 (schema_version 1; docs/results-schema.md is the
// reference): its in-memory image, how an epoch is appended, and whole-file write and read.
//   /          attrs schema_version, writer, created_utc, updated_utc, status, error, and the
//              writer's identity for telling a dead `running` file from a live one (liveness.h):
//              pid, pid_start, host, boot_id, slurm_job_id, heartbeat_s
//   /config    attrs: every RunConfig field, ids, config_text; facts known at start (task, model…)
//   /context   attrs: see context.h
//   /epochs    table: epoch, warmup, wall_s, images, images_per_s, lr, train_loss, val_loss,
//                     val_miou, val_accuracy
//   /epochs    ... checkpoint_s, segment
//   /steps     table: epoch, step, loss, t_data, t_fwd, t_bwd, t_comm_exposed, t_update, t_total,
//                     t_checkpoint, segment
//   /segments  table: segment, started_utc, host, resumed_from, first_epoch, first_step,
//                     first_global_step (one row per launch: more than one when it was resumed)
//   /eval/iou  float64 [epochs, classes], attr class_names ("a,b,c")
//   /summary   attrs: see summary.h (empty until the run ends well)
// Writing always replaces the whole file atomically (h5io.h): run files are small (kilobytes to a
// few MB), so rewriting one per epoch costs milliseconds and can never leave a torn file — which
// an HDF5 flush of an open file, SIGKILLed mid-way, can (HDF5 1.10 without SWMR).
// Not here: computing the summary (summary.h) or deciding when to write (recorder.h).
#pragma once

#include <string>
#include <vector>

#include "harness/record/liveness.h"
#include "harness/record/table.h"
#include "harness/train/trainer.h"

namespace scalebench::record {

inline constexpr std::int64_t kSchemaVersion = 1;

struct RunFile {
  std::int64_t schema_version = kSchemaVersion;
  std::string writer;             // "scalebench <version>"
  std::string created_utc, updated_utc;
  std::string status = "running";  // running | ok | failed | preempted
  std::string error;              // one line: why it failed, or was preempted
  RunOwner owner;                 // who writes it while it runs (absent in older files: pid 0)
  Attrs config, context, summary;
  Table epochs, steps, segments;  // with the schema's columns (see make_run_file)
  std::vector<std::string> class_names;
  std::vector<std::vector<double>> iou;  // [epoch][class]
};

// A fresh run file: status running, writer and created_utc set, empty tables with their columns.
RunFile make_run_file();

// Appends one epoch: a row of /epochs, its steps to /steps and its IoU row. val_miou is written as
// NaN for classification (it has no meaning there); val_accuracy is pixel accuracy for segmentation.
void append_epoch(RunFile& f, const EpochResult& e, const std::vector<StepRow>& steps, bool segmentation);
// Replaces /segments with the run's launches so far.
void set_segments(RunFile& f, const std::vector<RunSegment>& segments);
// Appends steps to /steps alone (a preempted run's unfinished epoch, which has no /epochs row).
void append_steps(RunFile& f, const std::vector<StepRow>& steps);

// Atomic replace of `path` (sets updated_utc). Throws scalebench::Error naming the file.
void write_run_file(const std::string& path, RunFile& f);
// The bytes write_run_file would write (sets updated_utc), for h5::write_image_atomically: a
// thread that must not call HDF5 can write them (the stop mark, recorder.h).
std::vector<unsigned char> run_file_image(const std::string& path, RunFile& f);
// Throws scalebench::Error naming the file when it is missing, not a run file, or from a newer schema.
RunFile read_run_file(const std::string& path);

}  // namespace scalebench::record
