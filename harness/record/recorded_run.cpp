// recorded_run.cpp — `train`'s run policy (see recorded_run.h).
#include "harness/record/recorded_run.h"

#include <filesystem>

#include "harness/record/context.h"
#include "harness/record/recorder.h"
#include "harness/train/preemption.h"
#include "harness/train/trace.h"
#include "harness/train/trainer.h"

namespace scalebench::record {
namespace {

// What a --trace file records beside its spans: the run file's /config and /context, from the
// same two functions (trace.h, Provenance), on every rank (each writes its own trace file).
trace::Provenance trace_provenance(const RunConfig& rc, const std::vector<std::string>& argv) {
  trace::Provenance p;
  if (rc.train.trace.empty()) return p;
  p.config = config_attrs(rc).items();
  p.context = capture_context(argv).items();
  return p;
}

}  // namespace

int run_recorded(RunConfig rc, const std::string& output, const std::vector<std::string>& argv, std::ostream& out) {
  install_preemption_handler();  // at once: a USR1 during start-up must not kill the run
  rc.world_size = workers_of(rc.train.strategy, std::max(1, launcher_world_size()), rc.train.devices);
  identify_data(rc);  // every rank: the run id, the checkpoint folder and the agreement text hold it
  // Every rank computes the same folder. Keyed by the run id (which leaves checkpoint_dir out):
  // a folder named once for several configurations (a --config file) holds one per run.
  const std::string base = rc.train.checkpoint_dir.empty() ? output : rc.train.checkpoint_dir;
  if (!base.empty()) rc.train.checkpoint_dir = (std::filesystem::path(base) / (run_id(rc) + ".ckpt")).string();
  // A finished run needs its checkpoints no more, and a rerun must measure it again, not "resume"
  // its last step and record the old figures as new: the folder goes before the run is recorded
  // ok (a kill in between leaves no ok file, so the rerun trains from the start). Rank 0 only,
  // after train() returned: every rank is done with the folder.
  const auto drop_checkpoints = [&rc] {
    if (rc.train.checkpoint_dir.empty() || launcher_rank() > 0) return;
    std::error_code ec;
    std::filesystem::remove_all(rc.train.checkpoint_dir, ec);
    SB_REQUIRE(!ec, "cannot remove the finished run's checkpoint folder {}: {}", rc.train.checkpoint_dir,
               ec.message());
  };
  SB_REQUIRE(rc.train.checkpoint_every == 0 || !rc.train.checkpoint_dir.empty(),
             "--checkpoint-every needs a checkpoint folder: -o (runs folder) or --checkpoint-dir");
  SB_REQUIRE(rc.train.checkpoint_minutes == 0 || !rc.train.checkpoint_dir.empty(),
             "--checkpoint-minutes needs a checkpoint folder: -o (runs folder) or --checkpoint-dir");
  const trace::Provenance provenance = trace_provenance(rc, argv);
  if (output.empty() || launcher_rank() > 0) {
    if (output.empty() && launcher_rank() <= 0)
      out << "train: no -o: nothing is recorded (give -o results/<study>/runs/ to write a run file)" << std::endl;
    const auto r = train(rc.train, out, nullptr, &provenance);
    if (r.preempted && launcher_rank() <= 0) {
      out << "preempted: " << describe_preemption(r) << "; no run file (no -o)" << std::endl;
      return kExitPreempted;
    }
    if (!r.preempted) drop_checkpoints();
    return 0;
  }
  Recorder recorder(rc, output, argv);
  TrainResult result;
  try {
    result = train(rc.train, out, &recorder, &provenance);
    if (!result.preempted) drop_checkpoints();
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
  out << "train: recorded " << recorder.path() << "\n";
  return 0;
}

}  // namespace scalebench::record
