// summary.h — the /summary attributes of a run file, computed from its /epochs and /steps tables
// with the definitions of DESIGN §5 (docs/results-schema.md repeats them):
//   measured epochs     every epoch but the first (warm-up) when there are ≥ 2; else the one epoch
//   epoch_time_s        mean wall_s of the measured epochs
//   images_per_s        Σ images / Σ wall_s over the measured epochs (never a mean of rates)
//   tflops              train FLOPs per image × images_per_s / 1e12
//   mfu                 tflops·1e12 / peak_flops (peak of all devices of the run; NaN when unknown)
//   sgemm_tflops        the start-up sgemm rate / 1e12 (CPU backend; NaN otherwise), with sgemm_method
//   exposed_comm_frac   Σ t_comm_exposed / Σ t_total over the measured epochs' steps
//   step_time_*         the distribution of t_total over the measured epochs' steps (the warm-up
//                       rule is the epochs': the first epoch's steps are left out when there are
//                       ≥ 2 epochs): median, interquartile range (type-7 quantiles), coefficient of
//                       variation (sample sd / mean); measured_steps counts them
//   comm_bytes_per_step as the strategy reports it (0 for single)
//   final_*             the last epoch's values (final_val_miou NaN for classification)
//   b_simple            the last epoch's gradient noise scale (NaN when not measured)
//   peak_mem_bytes      as given (getrusage ru_maxrss of rank 0, see peak_rss_bytes)
//   target_*            with --target-miou/--target-accuracy (summarize_target): the target, whether
//                       it was reached, steps/epochs/images/seconds to it, the best value and when
// Pure: no I/O, so tests check it against hand-computed values.
#pragma once

#include <cstdint>
#include <string>

#include "harness/record/table.h"
#include "harness/train/target.h"

namespace scalebench::record {

struct SummaryInputs {
  double train_flops_per_image = 0;
  double peak_flops = kNaN;        // all devices of the run together
  std::string peak_method;         // how peak_flops was obtained
  double sgemm_flops = kNaN;       // CPU backend: the start-up sgemm rate, all devices together
  std::string sgemm_method;
  std::int64_t comm_bytes_per_step = 0;
  std::int64_t peak_mem_bytes = 0;
};

Attrs summarize(const Table& epochs, const Table& steps, const SummaryInputs& in);

// A run with a target (nothing without one): target_metric (val_miou | val_accuracy), target_value,
// target_reached (1/0), target_checks (held-out checks taken); at the first check that reached it
// steps_to_target (optimizer steps), epochs_to_target (fractional), images_to_target (all workers),
// seconds_to_target (training time, validation and checkpoint writes left out) — NaN when not
// reached; target_best with target_best_step and target_best_epochs (the earliest of equal bests).
void summarize_target(const TargetTracker& t, Attrs& s);

// Peak resident set size of this process so far, in bytes (Linux ru_maxrss is in KiB).
std::int64_t peak_rss_bytes();

}  // namespace scalebench::record
