// blas_threads.h — how many threads the BLAS fast path may use (OpenBLAS). 0 means all cores.
#pragma once

namespace scalebench::cpu {

void set_blas_threads(int threads);
int blas_threads();

}  // namespace scalebench::cpu
