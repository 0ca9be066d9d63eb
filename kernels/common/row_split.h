// row_split.h — how a deterministic per-channel reduction cuts the n·hw positions ("rows") of an
// activation into equal ranges: each range gets one partial result per channel, and the partials
// are then added in range order. The cut depends only on the shape (never on the GPU), so the
// summation tree, and with it every bit of the result, is the same run to run and GPU to GPU.
// Used by kernels/cuda/bias_grad.cu and kernels/cuda/batchnorm_*.cu; plain C++ so that the CPU
// tests hold it (tests/kernels/test_row_split.cpp). Not here: the reductions themselves.
#pragma once

#include <algorithm>
#include <cstdint>

namespace scalebench {

struct RowSplit {
  std::int64_t rows_per_split = 1;  // every range but the last has exactly this many rows
  int splits = 1;                   // ranges; the last holds rows − (splits − 1)·rows_per_split ≥ 1

  // Rows of range s (0 ≤ s < splits).
  std::int64_t rows_in(std::int64_t rows, int s) const {
    return std::min(rows_per_split, rows - std::int64_t(s) * rows_per_split);
  }
};

// Ranges of at least min_rows rows (fewer only when there are fewer rows), at most max_splits of
// them (longer ranges when there are many rows). rows ≥ 1, min_rows ≥ 1, max_splits ≥ 1.
inline RowSplit split_rows(std::int64_t rows, std::int64_t min_rows, int max_splits) {
  const std::int64_t per = std::max(min_rows, (rows + max_splits - 1) / max_splits);
  return {per, static_cast<int>((rows + per - 1) / per)};
}

}  // namespace scalebench
