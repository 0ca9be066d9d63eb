// mpi_collective.h — internal to the mpi transport: the typed collectives (collective.h) as MPI
// calls on the transport's communicator. MpiComm::collective (mpi_comm.cpp) checks the arguments and
// arms the watchdog around this call. Not for use outside harness/comm/mpi_*.cpp.
#pragma once

#include "harness/comm/collective.h"
#include "harness/comm/mpi_check.h"

namespace scalebench::comm {

void mpi_collective(MPI_Comm comm, int rank, int n, const CollArgs& a);

}  // namespace scalebench::comm
