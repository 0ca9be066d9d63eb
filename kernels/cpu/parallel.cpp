// parallel.cpp — whether kernels/cpu was built with OpenMP (parallel.h's loops then split over threads).
#include "kernels/cpu/parallel.h"

namespace scalebench::cpu {

bool layer_threads_available() {
#if defined(_OPENMP)
  return true;
#else
  return false;
#endif
}

}  // namespace scalebench::cpu
