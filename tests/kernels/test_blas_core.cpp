// test_blas_core.cpp — the core-type choice of kernels/cpu/blas_core.h: which OpenBLAS kernels a
// CPU's vector features call for, and the vector level of OpenBLAS's core names. The re-execution
// itself is tested end to end (cli.blas_core), since it replaces the process.
#include <gtest/gtest.h>

#include <string>

#include "kernels/cpu/blas_core.h"
#include "kernels/cpu/blas_vendor.h"

namespace scalebench::cpu {
namespace {

TEST(BlasCore, BestCoreFollowsTheVectorFeatures) {
  EXPECT_EQ(best_blas_core({}), "");
  EXPECT_EQ(best_blas_core({.avx = true}), "Sandybridge");
  EXPECT_EQ(best_blas_core({.avx = true, .avx2 = true}), "Sandybridge");  // no FMA: no Haswell kernels
  EXPECT_EQ(best_blas_core({.avx = true, .avx2 = true, .fma = true}), "Haswell");
  EXPECT_EQ(best_blas_core({.avx = true, .avx2 = true, .fma = true, .avx512 = true}), "SkylakeX");
}

TEST(BlasCore, LevelsOfOpenBlasCoreNames) {
  EXPECT_EQ(blas_core_level("Prescott"), 0);
  EXPECT_EQ(blas_core_level("Nehalem"), 0);
  EXPECT_EQ(blas_core_level("unknown"), 0);
  EXPECT_EQ(blas_core_level("Sandybridge"), 1);
  EXPECT_EQ(blas_core_level("Haswell"), 2);
  EXPECT_EQ(blas_core_level("Zen"), 2);
  EXPECT_EQ(blas_core_level("SkylakeX"), 3);
  EXPECT_EQ(blas_core_level("cooperlake"), 3);  // OPENBLAS_CORETYPE is matched without case
  EXPECT_EQ(blas_core_level("SapphireRapids"), 3);
}

// OpenBLAS names the kernel set it loaded; other libraries have no such notion and say "" (a build
// with BLIS through -DBLA_VENDOR=FLAME failed here before the test asked which library it has).
TEST(BlasCore, TheLoadedCoreHasANameUnderOpenBlasOnly) {
  if (std::string(blas_api_name()) == "openblas") EXPECT_FALSE(blas_core().empty());
  else EXPECT_EQ(blas_core(), "") << blas_api_name();
}

}  // namespace
}  // namespace scalebench::cpu
