// mpi_session.cpp — MPI start-up and shut-down for the mpi transport (see mpi_comm.h for the
// thread-level requirement). Nothing else in scalebench calls MPI_Init, so commands that do not use
// the mpi transport never touch MPI.
#include <fmt/format.h>

#include "harness/comm/mpi_check.h"
#include "harness/comm/mpi_comm.h"

namespace scalebench::comm {

bool mpi_active() {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up && !down;
}

bool mpi_started() {
  int up = 0;
  MPI_Initialized(&up);
  return up != 0;
}

MpiSession::MpiSession() {
  int up = 0;
  MPI_Initialized(&up);
  if (up) {
    MPI_CHECK(MPI_Query_thread(&level_));
  } else {
    // argc/argv are optional since MPI-2; mpirun passes everything through the environment.
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &level_);
    if (rc != MPI_SUCCESS) throw Error(fmt::format("MPI_Init_thread failed (code {}) on {}", rc, hostname()));
    owner_ = true;
  }
  if (level_ < MPI_THREAD_SERIALIZED) {
    // Clean up before failing so the process can still print its error and exit normally.
    if (owner_) MPI_Finalize();
    owner_ = false;
    throw Error(fmt::format("mpi transport needs MPI_THREAD_SERIALIZED or better; this MPI provides level {}", level_));
  }
}

MpiSession::~MpiSession() {
  if (owner_ && mpi_active()) MPI_Finalize();
}

}  // namespace scalebench::comm
