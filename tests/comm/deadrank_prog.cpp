// deadrank_prog.cpp — the victim job for the dead-rank check (deadrank_check.cpp runs it under
// mpirun -np 4). Ranks loop over native and ring allreduces; after a few, rank 2 either dies by
// SIGKILL before a native allreduce ("kill": the MPI runtime must end the job and name rank 2), or
// stops taking part without dying, before a ring allreduce ("stall": the Request watchdog must abort
// the job after the 3 s timeout naming a silent peer) or before a native one ("stall-native": the
// collective watchdog thread must abort it).
// It must never reach "finished" in either mode.

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "harness/comm/allreduce.h"
#include "harness/comm/mpi_check.h"
#include "harness/comm/mpi_comm.h"

using namespace scalebench::comm;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "kill";  // kill | stall (in the ring) | stall-native
  const int victim_iteration = mode == "stall" ? 6 : 5;
  try {
    MpiSession session;
    auto comm = make_mpi_world(CommOptions{mode == "kill" ? 300.0 : 3.0});
    AllreduceOptions o;
    o.algo = AllreduceAlgo::ring;
    o.chunk_bytes = 4096;
    Allreducer ring(*comm, o);
    std::vector<float> buf(50000, 1.0f);
    for (int it = 0; it < 1000; ++it) {
      // Odd iterations are native (MPI_Allreduce), even ones our ring.
      if (it == victim_iteration && comm->rank() == 2) {
        std::fprintf(stderr, "deadrank: rank 2 %s before a %s allreduce\n", mode == "kill" ? "raises SIGKILL" : "stalls",
                     it % 2 ? "native" : "ring");
        std::fflush(stderr);
        if (mode == "kill") std::raise(SIGKILL);
        std::this_thread::sleep_for(std::chrono::seconds(600));
      }
      if (it % 2) comm->allreduce_sum(buf.data(), buf.size());
      else ring(buf.data(), buf.size());
      std::fill(buf.begin(), buf.end(), 1.0f);
    }
    std::printf("deadrank: rank %d finished\n", comm->rank());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "deadrank: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
