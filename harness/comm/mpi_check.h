// mpi_check.h — MPI_CHECK(call): turns a failed MPI call into scalebench::Error carrying file:line,
// the call, MPI's own error text, and the failing rank and host. Only effective on communicators
// whose error handler is MPI_ERRORS_RETURN (the mpi transport sets that on its communicators);
// under the default MPI_ERRORS_ARE_FATAL the library aborts before we see the code.
// Lives here, not in kernels/common/check.h, so that check.h stays free of MPI headers.
// This is the one place scalebench includes <mpi.h>: include this header instead, so that the MPI
// C++ bindings (removed from the standard, and unlinked by MPI::MPI_C) stay out.
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <string>

#include "harness/comm/communicator.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

[[noreturn]] inline void mpi_fail(int rc, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  int rank = -1, up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fail_at(file, line, fmt::format("{} failed: {} (rank {} on {})", call, text, rank, hostname()));
}

}  // namespace scalebench::comm

#define MPI_CHECK(call)                                                          \
  do {                                                                           \
    const int sb_mpi_rc_ = (call);                                               \
    if (sb_mpi_rc_ != MPI_SUCCESS)                                               \
      ::scalebench::comm::mpi_fail(sb_mpi_rc_, #call, __FILE__, __LINE__);       \
  } while (0)
