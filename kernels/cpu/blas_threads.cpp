// blas_threads.cpp — OpenBLAS thread control (openblas_* are OpenBLAS extensions in its cblas.h).
#include "kernels/cpu/blas_threads.h"

#include <cblas.h>

#include <thread>

namespace scalebench::cpu {

void set_blas_threads(int threads) {
  openblas_set_num_threads(threads > 0 ? threads : int(std::thread::hardware_concurrency()));
}

int blas_threads() { return openblas_get_num_threads(); }

}  // namespace scalebench::cpu
