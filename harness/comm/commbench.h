// commbench.h — the collective benchmark behind `scalebench commbench` (DESIGN §5, §7): sweeps
// message sizes for each chosen allreduce algorithm on one transport and prints an nccl-tests-like
// table (one row per size) and, on request, JSON.
// Per size and algorithm: one verification call on inputs whose float sum is exact (the max error
// must be 0), `warmup` untimed calls, a barrier, `iters` timed calls — back to back, or with
// `gap_ms` of busy compute before each call (untimed: a calibration whose calls follow compute, as
// a training step's exchange does on a node whose CPU quota the compute spent). time = max over
// ranks of the mean per call; algbw = bytes/time; busbw = algbw * 2(n-1)/n; cpu (JSON only) = max
// over ranks of the process's CPU time (user + system, all threads) per call — with the threads
// transport every rank is a thread of one process, so that is all ranks' CPU together. For the ring
// (host transports) the JSON also has rank 0's duration of every step of every timed call (step_us).
// After the sweep, the training step's per-step agreement is timed the same way (agree_us).
// --coll: for each collective (collectives.def) and --dtype, a table in nccl-tests' layout (size,
// count, type, redop, root, then time/algbw/busbw/#wrong out of place and in place) from the
// transport's own typed collective (Communicator::collective), and after each collective the
// "# Avg bus bandwidth" line sites grep; verification counts the elements off their exact value.
// It deliberately does not initialise MPI unless the transport is mpi (or nccl under an MPI
// launcher, for the unique id).
// nccl (GPU builds): device buffers, native algorithm only (ring/hierarchical reduce on the host);
// one process per GPU under mpirun/srun (or with SCALEBENCH_NCCL_ID_FILE), else --ranks GPUs driven
// by this one process. Each timed call includes its completion wait (the Communicator interface is
// host-synchronous), unlike nccl-tests, which syncs once after all iterations.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "harness/comm/allreduce.h"
#include "harness/comm/collective.h"

namespace scalebench::comm {

struct CommbenchOptions {
  std::string transport = "threads";       // threads | mpi | nccl (GPU builds)
  std::vector<Coll> colls = {Coll::allreduce};  // --coll (collectives.def); allreduce also runs the --algo table
  std::vector<DType> types = {DType::f32};     // --dtype (collective.h's kCommTypes) for the --coll tables
  std::vector<std::string> algos = {"native", "ring"};  // allreduce algorithms compared (float32, in place); empty: none
  std::string sizes = "4K:256M";           // "LO:HI[:FACTOR]" (factor 2 by default) or "A,B,C"; K/M/G = 2^10/20/30
  int ranks = 2;                           // threads, and nccl outside a launcher (GPUs); mpi takes the job's size
  int warmup = 5;
  int iters = 20;
  std::size_t chunk_bytes = AllreduceOptions{}.chunk_bytes;
  int depth = AllreduceOptions{}.depth;
  int ranks_per_node = 0;                  // hierarchical: 0 groups by host name
  double timeout_s = 300.0;
  double spin_us = CommOptions{}.spin_s * 1e6;  // mpi: busy-poll time before a wait yields (CommOptions)
  double gap_ms = 0;                       // busy compute (wall clock) before each warm-up and timed call; not timed
  std::string json_path;                   // empty: no JSON file
};

struct CommbenchRow {
  std::string algo;
  std::size_t bytes = 0;
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0, max_abs_err = 0;
  double cpu_us = 0;  // process CPU per call (see above; the gap's excluded)
  double time_min_us = 0, time_max_us = 0;  // spread: the fastest / slowest timed call, each a max over ranks
  // ring on a host transport: each timed call's 2(n-1) step durations on rank 0, calls in order
  // (AllreduceOptions::step_ends; JSON only) — the per-step spread `scalebench project` reads. Empty
  // for the other algorithms and on nccl.
  std::vector<double> step_us;
};

// One line half of a --coll table (nccl-tests' columns): one collective, type, size, in or out of place.
struct CollRow {
  Coll coll = Coll::allreduce;
  DType type = DType::f32;
  bool in_place = false;
  int root = -1;                 // -1: not rooted
  std::size_t bytes = 0;         // max(send, receive) bytes of a rank, as nccl-tests' size column
  std::size_t count = 0;         // NCCL's count (elements per rank block)
  double time_us = 0, time_min_us = 0, time_max_us = 0;  // as CommbenchRow's
  double algbw_gbps = 0, busbw_gbps = 0;                  // algbw = bytes/time; busbw = algbw * factor(n)
  std::size_t wrong = 0;         // elements off their exact value, summed over ranks
};

struct CommbenchReport {
  std::string transport;
  int ranks = 0;
  std::vector<std::string> hostnames;
  int nodes = 0;
  CommbenchOptions opts;
  std::vector<CommbenchRow> rows;  // size-major, algorithms in option order
  // The training step's agreement (harness/strategy/scalar_reduce.h): one allgather_fixed of
  // Communicator::kAgreeBytes a rank, timed as the allreduce calls are (the gap before each, warm-up
  // calls, the mean per call, max over ranks), after the sweep. `scalebench project` prices each step's
  // agreement at N from it.
  double agree_us = 0;
  std::vector<CollRow> coll_rows;  // the --coll tables: collective-major, then type, size; out of place first
};

// "4K:256M" -> 4096, 8192, ..., 268435456. Error naming the bad part on malformed input, zero,
// sizes that are not a whole number of floats, or LO > HI.
std::vector<std::size_t> parse_sizes(std::string_view spec);

// Validates the options, runs the sweep, writes the table to `out` (rank 0 only) and the JSON file.
// Returns 0; throws Error on bad options, on any non-zero verification error, or on transport failure
// (on mpi with more than one rank a mid-run failure aborts the job instead, naming the rank).
int commbench_main(const CommbenchOptions& opts, std::ostream& out);

// Formatting (commbench_format.cpp), exposed for tests.
void write_table_header(std::ostream& out, const CommbenchReport& rep);
void write_table_row(std::ostream& out, const CommbenchReport& rep, const std::vector<CommbenchRow>& same_size);
void write_agreement(std::ostream& out, const CommbenchReport& rep);  // the line after the table
std::string to_json(const CommbenchReport& rep);
// The --coll tables (commbench_coll_format.cpp): header of one collective's table, one line (a size:
// out of place and in place), the closing summary (nccl-tests' "Out of bounds values" and
// "Avg bus bandwidth" lines over every row of that collective).
void write_coll_header(std::ostream& out, const CommbenchReport& rep, Coll c);
void write_coll_line(std::ostream& out, const CollRow& out_of_place, const CollRow& in_place);
void write_coll_summary(std::ostream& out, const std::vector<CollRow>& rows_of_one_collective);
double avg_busbw(const std::vector<CollRow>& rows);  // mean busbw over the rows (nccl-tests' average)

}  // namespace scalebench::comm
