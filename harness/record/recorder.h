// recorder.h — writes the run file of one run as it goes (DESIGN §3 "Recorder"): status running
// from the start, each finished epoch appended and the file made durable at once, then ok with the
// summary, or failed with the error, or preempted (SIGUSR1, harness/train/preemption.h) with every
// step it ran. A run killed at any moment (SIGKILL, node loss) leaves a
// complete file with status running and every epoch it finished — see run_file.h for why each
// write replaces the whole file atomically instead of flushing an open HDF5 file. The file names
// this process (pid, host, Slurm job) and, while the run goes, a heartbeat thread touches it
// every 30 s, so readers tell such a dead `running` file from a live one (liveness.h).
// A stop signal marks the file preempted at once (stop_mark.h), before the ranks reach the step
// they stop after: mpirun, told to stop, may SIGKILL them first, and the file must not stay
// `running`. Every write also builds that marked file's bytes, so the mark itself is one plain
// write and rename (no HDF5 call off the training thread); the full record replaces it when the
// run gets to write one. Under an MPI launcher a guard process (run_guard.h) records a rank 0 that
// died without a signal (Open MPI's _exit when mpirun went away) as failed, with the reason.
// Only rank 0 records (the caller decides). The trainer sees only the TrainObserver interface.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "harness/record/cpu_peak.h"
#include "harness/record/liveness.h"
#include "harness/record/run_config.h"
#include "harness/record/run_file.h"
#include "harness/record/run_noise.h"
#include "harness/record/run_guard.h"
#include "harness/record/stop_mark.h"
#include "harness/train/trainer.h"

namespace scalebench::record {

class Recorder : public TrainObserver {
 public:
  // Writes <runs_dir>/<run_id>.h5 with status running (creating runs_dir if needed), so that a run
  // failing before its first epoch — missing data, a strategy not available — is still recorded;
  // starts the heartbeat (finish, preempt and fail stop it).
  Recorder(const RunConfig& cfg, const std::string& runs_dir, const std::vector<std::string>& argv);
  ~Recorder() override;

  const std::string& path() const { return path_; }
  const std::string& id() const { return id_; }

  // Records what set-up learnt (task, model, FLOPs, steps/epoch, effective LR) and measures the
  // CPU peak for MFU (cpu_peak.h; NaN with a note on other backends until they bring a peak table).
  void on_start(const TrainResult& meta) override;
  void on_epoch(const EpochResult& epoch, const std::vector<StepRow>& steps) override;
  void on_segments(const std::vector<RunSegment>& segments) override;  // /segments
  // Status ok with /summary (summary.h).
  void finish(const TrainResult& result);
  // Status preempted (result.preempted): the finished epochs stay, the unfinished epoch's steps are
  // appended to /steps (they have no /epochs row), `error` says why ("preempted by SIGUSR1 at epoch
  // 2 step 5 of 12"); no /summary, as for any run that did not end ok.
  void preempt(const TrainResult& result);
  // Status failed with a one-line error, keeping the epochs so far. Never throws: it runs while
  // another error is being reported; returns false when the file could not be written.
  bool fail(const std::string& error) noexcept;
  void on_fail(const std::string& error) noexcept override { fail(error); }

  // The `error` of a file marked preempted by a stop signal before the run could record where it
  // stopped (it stays only when the run was killed before that).
  static const char* const kStopMarkError;

 private:
  void save();                  // writes file_ and rebuilds the marked bytes; mu_ held
  void mark_stopped() noexcept;  // the stop-mark thread
  std::mutex mu_;                // file_, marked_, stopped_image_: the training thread and the stop mark
  bool marked_ = false;
  std::vector<unsigned char> stopped_image_;  // file_ marked preempted, while it says running
  StopMark stop_mark_;
  RunConfig cfg_;
  std::string id_, path_;
  RunFile file_;
  bool segmentation_ = true;
  PeakMeasurement peak_;
  PeakMeasurement sgemm_;  // CPU backend: the start-up sgemm rate (cpu_peak.h)
  NoiseSample noise_start_;  // /proc at the start; the end's is read when the run ends (run_noise.h)
  void note_noise() noexcept;  // sets the noise_* context fields; mu_ held
  Heartbeat heartbeat_;
  RunGuard guard_;  // under an MPI launcher: records a rank 0 that died unrecorded (run_guard.h)
};

// For launchers, after a child failed: sets status failed and `error` in the run file at `path`,
// keeping its epochs; writes a new file with the config and the error when there is none (or it
// is unreadable). A file that already says failed keeps its own (more precise) error.
void mark_failed(const std::string& path, const RunConfig& cfg, const std::string& error,
                 const std::vector<std::string>& argv);

}  // namespace scalebench::record
