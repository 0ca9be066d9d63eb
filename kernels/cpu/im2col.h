// im2col.h — private helpers of the BLAS convolution path: unfold a band of output rows of one
// image into a column matrix and fold such a matrix back (accumulating). Not part of the kernel API;
// no batching, no threading (the sgemm that follows is where the time goes and OpenBLAS threads it).
#pragma once

#include "kernels/cpu/conv2d.h"

namespace scalebench::cpu::detail {

// x [c_in, h_in, w_in] -> col [c_in·k_h·k_w, (oh_end − oh_begin)·w_out] for output rows
// [oh_begin, oh_end); row (ci, kh, kw), column (oh − oh_begin, ow). Padding positions become 0.
void im2col(const Conv2dParams& p, const float* x, float* col, int oh_begin, int oh_end);

// Inverse scatter of the same band: dx [c_in, h_in, w_in] += col. The caller zeroes dx once; bands
// may touch the same input rows, which is why this accumulates.
void col2im_add(const Conv2dParams& p, const float* col, float* dx, int oh_begin, int oh_end);

// Output rows per band so that one band's column matrix (at least min_cols columns, at most
// about budget_floats floats) stays cache-resident.
int band_rows(const Conv2dParams& p, long budget_floats, long min_cols);

}  // namespace scalebench::cpu::detail
