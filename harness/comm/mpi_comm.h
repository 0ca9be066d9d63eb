// mpi_comm.h — the `mpi` transport: a Communicator over a duplicate of MPI_COMM_WORLD (so our tags
// and collectives never meet anyone else's), with MPI_ERRORS_RETURN so every failure becomes an
// Error through MPI_CHECK. Blocking waits in our own point-to-point code poll MPI_Test against the
// communicator's deadline and MPI_Abort the job naming the silent peer; the native collectives are
// plain blocking MPI calls, watched by a watchdog thread with the same deadline (MPI_THREAD_MULTIPLE
// only). A rank that dies is handled by the MPI runtime, which ends the whole job.
//
// Thread level: MpiSession asks for MPI_THREAD_MULTIPLE and requires at least MPI_THREAD_SERIALIZED
// (a strategy's background communication thread may then call MPI, one thread at a time).
// Caps::concurrent_comms says whether two communicators may be driven from two threads at once
// (only under MPI_THREAD_MULTIPLE). It deliberately does not handle device (GPU) buffers.
#pragma once

#include <memory>

#include "harness/comm/communicator.h"

namespace scalebench::comm {

// Initialises MPI unless it already is (e.g. by a test's main); finalises only what it initialised.
// Create one in main() only for commands whose transport is mpi, before any mpi communicator.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int thread_level() const { return level_; }  // MPI_THREAD_* actually provided

 private:
  bool owner_ = false;
  int level_ = 0;
};

// True between MPI_Init and MPI_Finalize.
bool mpi_active();

// True once MPI_Init has run in this process, after MPI_Finalize too: whether this rank has joined
// its job's world, so an error it reaches may be its own rather than one every rank reached alike
// from the same command line (harness/main.cpp's report_error prints those once for the job).
bool mpi_started();

// A communicator over all ranks of the job (a duplicate of MPI_COMM_WORLD). Requires MPI to be
// initialised (an MpiSession, or the caller's own MPI_Init_thread with >= MPI_THREAD_SERIALIZED).
std::unique_ptr<Communicator> make_mpi_world(CommOptions opts = {});

}  // namespace scalebench::comm
