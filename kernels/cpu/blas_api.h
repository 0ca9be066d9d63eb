// blas_api.h — the CBLAS declarations (cblas_sgemm, ...) of whichever BLAS the build found through
// CMake's FindBLAS (CMakeLists.txt): <cblas.h> of OpenBLAS, FlexiBLAS, LibSci or netlib, or MKL's
// <mkl_cblas.h>. Include this instead of <cblas.h>. Vendor extensions (thread count, build string,
// kernel set) are not here: kernels/cpu/blas_vendor.h.
#pragma once

#if defined(SCALEBENCH_MKL_CBLAS)
#include <mkl_cblas.h>
#else
#include <cblas.h>
#endif
