// preemption.h — SIGUSR1 ("the allocation is ending"), SIGTERM (Slurm's time limit, scancel, a
// sweep told to stop) and SIGINT (Ctrl-C) all stop a run the same way: it finishes its current
// step, every worker leaves the loop after the same step, rank 0 records the run file with status
// preempted (naming the signal) and the process exits kExitPreempted (75, EX_TEMPFAIL), so a rerun
// or requeue continues the point. A second SIGTERM or SIGINT kills the process at once (the run
// file's heartbeat then shows it dead). Slurm jobs get SIGUSR1 from `#SBATCH --signal=B:USR1@<s>`
// through their batch script; a requeued job reruns the point.
//
// What this room chose:
//   - The handler is installed by every training process (install_preemption_handler(), called by
//     train()), armed or not, so a stray SIGUSR1 never kills a run without its run file. It only
//     sets a flag (a lock-free atomic: async-signal-safe, and well defined when the mirrored
//     strategy's threads read it). SA_RESTART, so blocking calls resume.
//   - Armed runs (environment SCALEBENCH_PREEMPTIBLE=1, which the Slurm script exports, or the
//     train option --preemptible, a run option that is not part of the run id) agree after EVERY
//     step, outside the timed step phases: Strategy::agree_stop() ORs the flag over the workers — a
//     one-double allgather per step for the synchronous multi-rank strategies (microseconds on a
//     node; it does count in the epoch's wall time). They stop mid-epoch within one step.
//   - Unarmed runs pay nothing per step: the synchronous strategies agree once per epoch, after its
//     last step, so a signalled unarmed run stops after a complete, recorded epoch. Where the
//     agreement costs nothing (single; ps-sync/ps-async, whose pushes and replies carry the flag
//     and the server's decision), every run agrees after every step.
//   - A stop agreed on an epoch's last step completes that epoch (validation, epoch row) first; one
//     agreed on the run's very last step is no stop at all: the run ends ok.
// Not here: how a strategy agrees (harness/strategy), how the run file says it (harness/record).
#pragma once

namespace scalebench {

inline constexpr int kExitPreempted = 75;  // EX_TEMPFAIL: "try again" (Slurm --requeue, sweep reruns)

// Installs the SIGUSR1/SIGTERM/SIGINT handler (idempotent; installing again after MPI_Init keeps
// it ours: Open MPI installs its own).
void install_preemption_handler();
// True once one of them arrived in this process (since the last clear_preemption_signal()).
bool preemption_signalled();
int preemption_signal();                // the first one's number, 0 before any
const char* signal_name(int sig);       // "SIGTERM", "SIGUSR1", "SIGINT"; "a stop request" otherwise
void clear_preemption_signal();  // tests

// --preemptible: arm this process (the environment variable arms it too).
void arm_preemption(bool on = true);
// arm_preemption() was called, or SCALEBENCH_PREEMPTIBLE is set to something other than "" or "0".
bool preemption_armed();

}  // namespace scalebench
