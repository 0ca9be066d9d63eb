// train_rank.cpp — one rank's run as a sequence of named steps: agree on the configuration, set up
// (rank_state.h), start the strategy, then either serve (a parameter-server rank) or train epoch
// after epoch (epoch.h) until the last one or a preemption, then finish. Preemption
// (preemption.h): after every step, workers agree whether to stop (the step's exchange carried
// the request) and leave together.
#include "harness/train/train_rank.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <thread>
#include <ostream>

#include "harness/comm/consistency.h"
#include "harness/strategy/noise_scale.h"
#include "harness/train/checkpoint.h"
#include "harness/train/epoch.h"
#include "harness/train/preemption.h"
#include "harness/train/rank_state.h"
#include "harness/train/turn_gate.h"
#include "kernels/cpu/blas_threads.h"

namespace scalebench {
namespace {

// --dump-weights: the weights as raw float32, <path>.init.rank<r> after start() and
// <path>.rank<r> at the end (tests compare strategies with them); a model with batch norm also
// writes its running statistics, concatenated in buffers() order, to <path>[.init].buffers.rank<r>.
void dump_weights(RankState& st, const std::string& suffix) {
  if (st.cfg.dump_weights.empty()) return;
  const auto write = [&](const std::string& file, const std::vector<Tensor>& host) {
    std::ofstream f(file, std::ios::binary);
    for (const Tensor& t : host) f.write(reinterpret_cast<const char*>(t.f32()), std::streamsize(t.numel() * sizeof(float)));
    SB_REQUIRE(f.good(), "--dump-weights: cannot write {}", file);
  };
  write(fmt::format("{}{}.rank{}", st.cfg.dump_weights, suffix, st.rank), {st.io.host_params(st.model)});
  std::vector<Tensor> buffers;
  for (const auto& [name, t] : st.model.buffers()) buffers.push_back(st.model.device().to_host(*t));
  if (!buffers.empty()) write(fmt::format("{}{}.buffers.rank{}", st.cfg.dump_weights, suffix, st.rank), buffers);
}

void log_setup(const RankState& st, std::ostream& log) {
  const TrainConfig& cfg = st.cfg;
  const TrainResult& r = st.result;
  const auto& info = st.info;
  log << fmt::format("train: {} ({} params, {:.2f} GFLOP/image/step) on {} [{} x {}x{}x{}, {} classes]\n",
                     r.canonical_model, r.params, r.train_flops_per_image / 1e9, cfg.data, info.n, info.channels,
                     info.height, info.width, info.classes)
      << fmt::format("train: strategy {} with {} worker(s) of {} rank(s), global batch {} ({} per worker), "
                     "{} train / {} held out, {} steps/epoch, lr {} ({}), {} BLAS threads\n",
                     name_of(cfg.strategy), st.workers, r.world, r.global_batch, cfg.batch, st.n_train, st.n_val,
                     st.steps, st.sched.peak_lr(), name_of(cfg.optimizer), cpu::blas_threads())
      << std::flush;
}

// This launch as the run's segment: when and where it started.
RunSegment this_launch(int segment) {
  RunSegment g;
  g.segment = segment;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) g.host = host;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  char text[32] = {};
  if (::gmtime_r(&now, &utc) && std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc) > 0) g.started_utc = text;
  return g;
}

// The checkpoint folder a run resumes from (--resume), or "" for none.
std::string resume_folder(const TrainConfig& cfg) {
  return cfg.resume == "auto" ? cfg.checkpoint_dir : cfg.resume == "none" ? "" : cfg.resume;
}

// A parameter-server rank: apply the workers' pushes until they are done (or preempted). The
// server checkpoints its weights and optimizer at a checkpoint step once every worker's push of
// that step is applied, before its replies (the workers write theirs once they have the reply),
// and resumes from its own file.
TrainResult serve(RankState& st) {
  const TrainConfig& cfg = st.cfg;
  Strategy::ServeHooks hooks;
  hooks.stop_signal = [] { return preemption_signal(); };
  const bool checkpoints = !cfg.checkpoint_dir.empty();
  const std::string from = checkpoints || cfg.resume != "auto" ? resume_folder(cfg) : "";  // as the workers do
  if (!from.empty())
    if (auto step_dir = latest_checkpoint(from)) {
      const RankCheckpoint c = read_rank_checkpoint(*step_dir, st.rank);
      check_compatible(c, *step_dir, cfg.canonical_text(), st.workers);
      restore_model_state(c, st.model, st.opt, /*buffers=*/false);  // a server keeps no statistics
      hooks.first_step = c.global_step;
    }
  if (checkpoints) {
    hooks.checkpoint_every = cfg.checkpoint_every;
    hooks.checkpoint_minutes = cfg.checkpoint_minutes;
    hooks.after_round = [&st](std::int64_t done, bool) {
      RankCheckpoint c;
      c.config_text = st.cfg.canonical_text();
      c.workers = st.workers, c.rank = st.rank, c.global_step = done;
      capture_model_state(st.model, st.opt, /*buffers=*/false, c);
      write_rank_checkpoint(st.cfg.checkpoint_dir, c);
    };
  }
  st.strategy->serve(st.model, st.opt, st.sched, st.steps * cfg.epochs, hooks);
  st.strategy->finish(st.model);
  return std::move(st.result);
}

// The checkpoint folders a resume from `where` may use, newest first (checkpoint_candidates), the
// same on every worker: an error reading them on any worker stops them all. A parameter server
// reads its own file of the newest (serve()), so its workers cannot fall back: only the newest.
std::vector<std::string> resume_candidates(RankState& st, const std::string& where) {
  std::vector<std::string> candidates;
  std::string error;
  try {
    candidates = checkpoint_candidates(where);
    SB_REQUIRE(!candidates.empty() || st.cfg.resume == "auto", "--resume {}: no checkpoint there (no `latest`, no rank-0.bin)",
               where);
  } catch (const std::exception& e) {
    error = e.what();
  }
  const int bad = int(st.strategy->max_over_workers(error.empty() ? 0.0 : double(st.rank + 1))) - 1;
  if (bad >= 0) fail_input(error.empty() ? fmt::format("rank {} could not resume from {}", bad, where) : error);
  if (traits(st.cfg.strategy).extra_ranks > 0 && candidates.size() > 1) candidates.resize(1);
  return candidates;
}

struct ResumePoint {
  RankCheckpoint ck;      // this worker's file
  std::string step_dir;   // the checkpoint it is in
};

// The newest candidate every worker can use. Every worker reads its own file; they agree
// (collectives) on each candidate, newest first: a file that is damaged, missing or unreadable on
// any worker makes them all fall back to the previous kept checkpoint (its reason printed by the
// worker that found it, the fall-back by the reporting rank); a checkpoint of other options stops
// them all with its reason, as does running out of candidates. Empty: there were none.
std::optional<ResumePoint> first_usable(RankState& st, const std::vector<std::string>& candidates,
                                        const std::string& where, std::ostream& log) {
  // What a worker found in its file of one candidate: usable, damaged (or missing), or of other options.
  enum Found { usable = 0, damaged = 1, other_options = 2 };
  constexpr double kRanks = 1 << 20;  // agreement value: found * kRanks + rank + 1, the max over workers
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::optional<RankCheckpoint> ck;
    Found found = usable;
    std::string error;
    try {
      ck = read_rank_checkpoint(candidates[i], st.rank);
    } catch (const std::exception& e) {
      found = damaged, error = e.what();
    }
    if (ck) try {
        check_compatible(*ck, candidates[i], st.cfg.canonical_text(), st.workers);
      } catch (const std::exception& e) {
        found = other_options, error = e.what();
      }
    const double agreed = st.strategy->max_over_workers(found == usable ? 0.0 : found * kRanks + st.rank + 1);
    if (agreed == 0) return ResumePoint{std::move(*ck), candidates[i]};
    const auto worst = Found(int(agreed / kRanks));
    const int who = int(agreed - worst * kRanks) - 1;
    if (worst == other_options)  // every worker agrees on the options, so each has the reason itself
      fail_input(!error.empty() ? error : fmt::format("rank {}: {} was written by a run with other options", who,
                                                      candidates[i]));
    // One write (std::cerr is unbuffered: a line of several << could interleave with other ranks' output).
    if (!error.empty()) std::cerr << fmt::format("scalebench: resume: rank {}: {}\n", st.rank, error) << std::flush;
    const bool last = i + 1 == candidates.size();
    if (st.reports())
      log << fmt::format("resume: {} is not usable (rank {}'s file is damaged or missing; its reason is printed "
                         "above){}\n", candidates[i], who, last ? "" : "; trying the previous checkpoint")
          << std::flush;
    if (last)
      fail_input(!error.empty() ? error : fmt::format("resume from {}: no checkpoint every rank can read ({} tried; "
                                                      "rank {}'s file of the oldest is damaged or missing)",
                                                      where, candidates.size(), who));
  }
  return std::nullopt;
}

// --resume: continue from the newest checkpoint every worker can read (auto) or as named
// (resume_candidates, first_usable). Returns the epoch to start with.
int resume_if_asked(RankState& st, EpochRunner& runner, std::ostream& log, TrainObserver* observer) {
  const TrainConfig& cfg = st.cfg;
  st.result.segments = {this_launch(1)};
  const std::string where = runner.checkpointing() || cfg.resume != "auto" ? resume_folder(cfg) : "";
  if (where.empty()) return 1;
  const std::optional<ResumePoint> at = first_usable(st, resume_candidates(st, where), where, log);
  const int found = int(st.strategy->sum_over_workers(at ? 1.0 : 0.0));
  SB_REQUIRE(found == 0 || found == st.workers, "{}: {} of {} workers found a checkpoint", where, found, st.workers);
  if (!at) return 1;
  const RankCheckpoint& ck = at->ck;
  runner.resume(ck);
  RunSegment now = this_launch(runner.segment());
  now.resumed_from = at->step_dir, now.first_epoch = ck.epoch, now.first_step = ck.step;
  now.first_global_step = ck.global_step;
  st.result.segments = ck.segments;  // rank 0's record; the other ranks keep only this launch
  st.result.segments.push_back(std::move(now));
  if (st.reports()) {
    log << fmt::format("resume: continuing from {} at epoch {} step {} (optimizer step {})\n", at->step_dir, ck.epoch,
                       ck.step, ck.global_step)
        << std::flush;
    if (observer)
      for (std::size_t i = 0; i < ck.epochs.size(); ++i) observer->on_epoch(ck.epochs[i], ck.epoch_steps[i]);
  }
  return ck.epoch;
}

// Epoch after epoch until the last, or until the workers agree to stop (preemption): a stop on
// an epoch's last step keeps that epoch (closed and recorded); a stop mid-epoch keeps its steps.
// A stopped run leaves a checkpoint (with a checkpoint folder), so a rerun continues it.
// A target reached (--target-*, the workers agreed at a check) ends the run ok at that step: an
// epoch it cuts short is closed as it stands (its row covers the steps it ran).
void train_epochs(RankState& st, EpochRunner& runner, int first_epoch, TrainObserver* observer) {
  for (int epoch = first_epoch; epoch <= st.cfg.epochs; ++epoch) {
    EpochProgress o = runner.run_steps(epoch);
    const bool last = epoch == st.cfg.epochs && o.steps_done == st.steps;
    if (o.stop && !o.target && !last) {  // on the run's very last step a stop is just the end
      TrainResult& r = st.result;
      r.preempted = true, r.preempted_signal = o.stop_signal, r.preempted_epoch = epoch, r.preempted_step = o.steps_done;
    }
    if (o.stop && !o.target && o.steps_done < st.steps) {  // mid-epoch: no epoch row, the steps are kept
      if (runner.checkpointing()) {
        const double dt = runner.save_checkpoint(o, false);
        if (!o.rows.empty()) o.rows.back().checkpoint_s += dt;
      }
      if (st.reports()) st.result.partial_steps = std::move(o.rows);
      return;
    }
    runner.close(o, observer);
    if (o.target) {  // reached (at the close, or at a check that cut the epoch short): done, ok
      TrainResult& r = st.result;  // a signal on that same step changes nothing: nothing is left to run
      r.preempted = false, r.preempted_signal = 0, r.preempted_epoch = 0, r.preempted_step = 0;
      return;
    }
    if (o.stop) {
      if (runner.checkpointing() && !last) runner.save_checkpoint(o, true);
      return;
    }
  }
}

// An error after training started, in a job of several processes: a peer may be blocked on this
// rank for good (a parameter server polls without a deadline), and unwinding into MPI_Finalize
// would wait for it. So the job ends here: rank 0 records the error, every rank prints its line,
// and the job is aborted — rank 0 first; the others give it a moment to record. Threads (mirrored)
// collapse on their own (threads_world.cpp) and single has no peers: they rethrow.
void end_job_on_error(const RankState& st, comm::Communicator* comm, const std::exception& e, TrainObserver* observer) {
  if (!comm || comm->size() <= 1 || std::string(comm->transport()) == "threads") return;
  if (st.reports() && observer) observer->on_fail(e.what());
  if (!st.reports()) std::this_thread::sleep_for(std::chrono::seconds(2));
  comm->abort(e.what());
}

void log_final(const RankState& st, std::ostream& log) {
  if (!st.reports() || st.result.preempted) return;  // the caller reports a preemption
  if (!st.result.strategy_summary.empty()) log << st.result.strategy_summary << "\n";
  log << format_final(st.result.epochs.back(), st.info) << "\n";
  if (st.result.target.active()) log << "target: " << describe_target(st.result.target) << "\n";
}

}  // namespace

TrainResult train_rank(const TrainConfig& cfg, comm::Communicator* comm, std::ostream& log, TrainObserver* observer,
                       const trace::Provenance* provenance) {
  install_preemption_handler();  // after MPI_Init, which may have installed its own handlers
  if (comm) {
    comm::check_same_everywhere(*comm, "configuration", cfg.canonical_text());
    comm::succeed_everywhere(*comm, [&] { check_rank_inputs(cfg, workers_of_rank(cfg, comm)); });
  }
  if (turn_gate())  // registers this side before its start-up, so a peer sees it die
    SB_REQUIRE((!comm || comm->size() == 1) && workers_of_rank(cfg, comm) == 1,
               "SCALEBENCH_AB_TURN (scalebench ab --interleave slice): only runs of one device take turns on one "
               "CPU ({} ranks, {} workers here); use --interleave run", comm ? comm->size() : 1,
               workers_of_rank(cfg, comm));
  RankState st(cfg, comm, provenance);
  log_setup(st, log);
  if (observer) observer->on_start(st.result);
  st.strategy->start(st.model);
  try {
    if (st.is_server()) return serve(st);
    EpochRunner runner(st, log);
    const int first_epoch = resume_if_asked(st, runner, log, observer);
    if (st.reports() && observer) observer->on_segments(st.result.segments);
    if (first_epoch == 1) dump_weights(st, ".init");
    train_epochs(st, runner, first_epoch, observer);
    st.strategy->finish(st.model);
  } catch (const std::exception& e) {
    end_job_on_error(st, comm, e, observer);
    throw;
  }
  if (TurnGate* gate = turn_gate()) {
    gate->leave();
    st.result.turn_note = gate->note();
    log << st.result.turn_note << "\n";
  }
  st.result.strategy_summary = st.strategy->summary();
  st.result.noise_scale_note = noise_scale_unmeasurable(cfg.strategy_traits(), st.workers, cfg.accumulate);
  dump_weights(st, "");
  if (st.trace) st.trace->write();
  log_final(st, log);
  return std::move(st.result);
}

}  // namespace scalebench
