// test_row_split.cpp — kernels/common/row_split.h, the cut of a per-channel reduction's rows into
// ranges that the GPU's deterministic reductions (bias_grad.cu, batchnorm_*.cu) rely on: every row
// in exactly one range, ranges of at least min_rows (unless there are fewer rows), at most
// max_splits of them, a non-empty last range, and a cut that depends on nothing but its arguments.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/common/row_split.h"

namespace scalebench {
namespace {

TEST(RowSplit, CoversEveryRowOnceWithinItsBounds) {
  for (const std::int64_t rows : {std::int64_t(1), std::int64_t(2), std::int64_t(127), std::int64_t(128),
                                  std::int64_t(129), std::int64_t(2048 * 1024), std::int64_t(2048 * 1024 + 1),
                                  std::int64_t(32) * 256 * 256, std::int64_t(3) << 33})
    for (const std::int64_t min_rows : {std::int64_t(1), std::int64_t(128), std::int64_t(2048)})
      for (const int max_splits : {1, 128, 1024}) {
        const RowSplit s = split_rows(rows, min_rows, max_splits);
        SCOPED_TRACE(testing::Message() << "rows " << rows << " min " << min_rows << " max " << max_splits);
        ASSERT_GE(s.splits, 1);
        EXPECT_LE(s.splits, max_splits);
        EXPECT_GE(s.rows_per_split, std::min(rows, min_rows));
        std::int64_t covered = 0;
        for (int k = 0; k < s.splits; ++k) {
          const std::int64_t in = s.rows_in(rows, k);
          ASSERT_GE(in, 1) << "range " << k << " is empty";
          ASSERT_LE(in, s.rows_per_split);
          if (k + 1 < s.splits) {
            ASSERT_EQ(in, s.rows_per_split) << "only the last range may be short";
          }
          covered += in;
        }
        EXPECT_EQ(covered, rows);
      }
}

TEST(RowSplit, ShortShapesTakeOneRangeAndLongOnesTheCap) {
  EXPECT_EQ(split_rows(100, 2048, 1024).splits, 1);
  EXPECT_EQ(split_rows(100, 2048, 1024).rows_per_split, 2048);
  const RowSplit big = split_rows(std::int64_t(32) * 256 * 256, 2048, 1024);  // a U-Net's first batch norm
  EXPECT_EQ(big.splits, 1024);
  EXPECT_EQ(big.rows_per_split, 2048);
  EXPECT_EQ(split_rows(16348, 2048, 1024).splits, 8);  // the GPU batch norm test's many-range shape
  EXPECT_EQ(split_rows(16348, 128, 1024).splits, 128);
}

}  // namespace
}  // namespace scalebench
