// commbench_detail.h — internal to commbench (commbench.cpp, commbench_coll.cpp): the pieces both
// sweeps share — the gap of busy compute, process CPU time, reductions of a timing over the ranks,
// and where a benchmark buffer lives. Not for use outside harness/comm/commbench*.cpp.
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include "harness/comm/commbench.h"
#include "harness/comm/commbench_nccl.h"

namespace scalebench::comm::bench_detail {

double process_cpu_s();
void busy_gap(double ms);
double max_over_ranks(Communicator& comm, double v);
double sum_over_ranks(Communicator& comm, double v);

// Each timed call's wall seconds on this rank -> the max over ranks of the mean per call, of the
// fastest call and of the slowest call, in microseconds (collective: every rank calls it). Each is a
// max over ranks, so min <= mean <= max holds as for one rank.
struct Spread {
  double mean_us = 0, min_us = 0, max_us = 0;
};
Spread spread_over_ranks(Communicator& comm, const std::vector<double>& call_s);

std::unique_ptr<BenchBuffer> make_buffer(Communicator& comm, std::vector<float>& host);

// The --coll tables (commbench_coll.cpp): runs every collective and type of `o` and prints them.
void sweep_collectives(Communicator& comm, const CommbenchOptions& o, CommbenchReport& rep, std::ostream& out);

}  // namespace scalebench::comm::bench_detail
