// recorded_run.cpp — `train`'s run policy (see recorded_run.h).
#include "harness/record/recorded_run.h"

#include <filesystem>

#include "harness/record/context.h"
#include "harness/record/recorder.h"
#include "harness/train/preemption.h"
#include "harness/train/trainer.h"

namespace scalebench::record {

int run_recorded(RunConfig rc, const std::string& output, const std::vector<std::string>& argv, std::ostream& out) {
  install_preemption_handler();  // at once: a USR1 during start-up must not kill the run
  rc.world_size = workers_of(rc.train.strategy, std::max(1, launcher_world_size()), rc.train.devices);
  // Every rank computes the same folder.
  const bool own_checkpoints = rc.train.checkpoint_dir.empty() && !output.empty();
  if (own_checkpoints) rc.train.checkpoint_dir = (std::filesystem::path(output) / (run_id(rc) + ".ckpt")).string();
  SB_REQUIRE(rc.train.checkpoint_every == 0 || !rc.train.checkpoint_dir.empty(),
             "--checkpoint-every needs a checkpoint folder: -o (runs folder) or --checkpoint-dir");
  SB_REQUIRE(rc.train.checkpoint_minutes == 0 || !rc.train.checkpoint_dir.empty(),
             "--checkpoint-minutes needs a checkpoint folder: -o (runs folder) or --checkpoint-dir");
  if (output.empty() || launcher_rank() > 0) {
    if (output.empty() && launcher_rank() <= 0)
      out << "train: no -o: nothing is recorded (give -o results/<study>/runs/ to write a run file)" << std::endl;
    const auto r = train(rc.train, out);
    if (r.preempted && launcher_rank() <= 0) {
      out << "preempted: " << describe_preemption(r) << "; no run file (no -o)" << std::endl;
      return kExitPreempted;
    }
    return 0;
  }
  Recorder recorder(rc, output, argv);
  TrainResult result;
  try {
    result = train(rc.train, out, &recorder);
    result.preempted ? recorder.preempt(result) : recorder.finish(result);
  } catch (const std::exception& e) {
    recorder.fail(failure_text(e));
    throw;
  }
  if (result.preempted) {
    out << "preempted: " << describe_preemption(result) << "; run file marked preempted: " << recorder.path()
        << std::endl;
    return kExitPreempted;
  }
  // A finished run needs its checkpoints no more (and a later rerun must measure again, not resume
  // the tail): the default folder goes; one named with --checkpoint-dir is the user's to keep.
  std::error_code ec;
  if (own_checkpoints) std::filesystem::remove_all(rc.train.checkpoint_dir, ec);
  out << "train: recorded " << recorder.path() << "\n";
  return 0;
}

}  // namespace scalebench::record
