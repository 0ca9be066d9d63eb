// train_config.cpp — option validation with one-line errors.
#include "harness/train/train_config.h"

#include "kernels/common/check.h"
#include "models/lr_schedule.h"

namespace scalebench {

void TrainConfig::validate() const {
  SB_REQUIRE(!data.empty(), "--data is required (an HDF5 dataset; make one with `scalebench datagen`)");
  SB_REQUIRE(epochs >= 1, "--epochs {} must be >= 1", epochs);
  SB_REQUIRE(batch >= 1, "--batch {} must be >= 1", batch);
  SB_REQUIRE(val_fraction > 0 && val_fraction < 1, "--val-fraction {} must be in (0, 1)", val_fraction);
  SB_REQUIRE(max_steps >= 0, "--max-steps {} must be >= 0", max_steps);
  SB_REQUIRE(threads >= 0, "--threads {} must be >= 0", threads);
  SB_REQUIRE(backend == "cpu" || backend == "cuda", "--backend '{}' is unknown (cpu or cuda)", backend);
  SB_REQUIRE(backend == "cpu", "--backend cuda: this build has no CUDA backend yet");
  SB_REQUIRE(precision == "fp32", "--precision '{}': the CPU backend trains in fp32 only", precision);
  static const char* known[] = {"single", "mirrored", "multiworker", "ring", "hierarchical", "ps-sync", "ps-async"};
  bool ok = false;
  for (const char* k : known) ok = ok || strategy == k;
  SB_REQUIRE(ok, "--strategy '{}' is unknown (single, mirrored, multiworker, ring, hierarchical, ps-sync, ps-async)",
             strategy);
  SB_REQUIRE(strategy == "single", "--strategy {}: only 'single' is available in this version", strategy);
  parse_lr_scaling(lr_scaling);
}

}  // namespace scalebench
