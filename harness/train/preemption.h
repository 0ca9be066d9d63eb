// preemption.h — SIGUSR1 ("the allocation is ending"), SIGTERM (Slurm's time limit, scancel, a
// sweep told to stop) and SIGINT (Ctrl-C) all stop a run the same way: it finishes its current
// step, every worker leaves the loop after the same step, rank 0 records the run file with status
// preempted (naming the signal) and the process exits kExitPreempted (75, EX_TEMPFAIL), so a rerun
// or requeue continues the point. A second SIGTERM or SIGINT kills the process at once (the run
// file's heartbeat then shows it dead). A second one to mpirun reaches no rank: mpirun exits at
// once and Open MPI _exits the ranks (harness/record/run_guard.h records that). Slurm jobs get SIGUSR1 from `#SBATCH --signal=B:USR1@<s>`
// through their batch script; a requeued job reruns the point.
//
// What this room chose:
//   - The handler is installed by every training process (install_preemption_handler(), called by
//     train()), so a stray SIGUSR1 never kills a run without its run file. It only
//     sets a flag (a lock-free atomic: async-signal-safe, and well defined when the mirrored
//     strategy's threads read it). SA_RESTART, so blocking calls resume.
//   - Every run agrees after every step, at no cost of its own (Strategy::agree_stop): the
//     allreduce strategies fold each worker's signal into the one scalar their step already
//     allreduces (the non-finite check), the parameter servers carry it on pushes and replies, and
//     single has no peers. So every run stops mid-epoch within a step (ps-async: within the
//     staleness bound), checkpoints and records, however long its epochs are.
//   - A stop agreed on an epoch's last step completes that epoch (validation, epoch row) first; one
//     agreed on the run's very last step is no stop at all: the run ends ok. One agreed on a target
//     check's step (--eval-every-steps) takes that check first: reaching the target ends the run ok.
// Not here: how a strategy agrees (harness/strategy), how the run file says it (harness/record).
#pragma once

#include <cstdint>

#include "kernels/common/exit_codes.h"

namespace scalebench {

// 75, EX_TEMPFAIL: "try again" (Slurm --requeue, sweep reruns); kernels/common/exit_codes.def.
inline constexpr int kExitPreempted = exit_status(ExitCode::preempted);

// Installs the SIGUSR1/SIGTERM/SIGINT handler (idempotent; installing again after MPI_Init keeps
// it ours: Open MPI installs its own).
void install_preemption_handler();
// True once one of them arrived in this process (since the last clear_preemption_signal()).
bool preemption_signalled();
int preemption_signal();                // the first one's number, 0 before any
const char* signal_name(int sig);       // "SIGTERM", "SIGUSR1", "SIGINT"; "a stop request" otherwise
void clear_preemption_signal();  // tests
// A descriptor that becomes readable (poll POLLIN) when the first stop signal arrives, so a
// thread can react at once without polling the flag: the run file's stop mark (harness/record/
// stop_mark.h). Do not read it. -1 before install_preemption_handler().
int preemption_wakeup_fd();

// Test hook: SCALEBENCH_STEP_SLEEP_S=S makes every step sleep S seconds before it starts — a step
// longer than mpirun's kill timeout, so the ranks cannot reach an agreed stop before mpirun kills
// them (tests/mpi/preempt_test.sh, case launcher). Unset: nothing.
void sleep_in_step_for_tests();

// Test hook: SCALEBENCH_SIGNAL_IN_STEP=N raises SIGTERM in this process as optimizer step N starts
// (once), as a scheduler's preemption arriving during that step would: the step completes and
// carries the stop. Lands a preemption on a chosen step (a --eval-every-steps check step:
// tests/cli/cli_test.sh train_to_target). Unset: nothing.
void signal_in_step_for_tests(std::int64_t step);

}  // namespace scalebench
