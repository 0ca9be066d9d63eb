// scalar_reduce.h — sums and maxima of one double over all ranks, through allgather so that it
// is exact and identical everywhere (epoch times, loss sums), and of a few doubles (synchronised
// batch-norm statistics, one value per channel). Not for bulk data: gradients go through allreduce.
#pragma once

#include <cstddef>
#include <utility>

#include "harness/comm/communicator.h"

namespace scalebench {

double allreduce_scalar_sum(comm::Communicator& comm, double x);
double allreduce_scalar_max(comm::Communicator& comm, double x);
// Two facts in one collective: {max of max_of, sum of sum_of} over the ranks (the allreduce
// strategies' per-step scalar carries the noise scale's local norm beside the step's health).
std::pair<double, double> allreduce_scalar_max_sum(comm::Communicator& comm, double max_of, double sum_of);
// v[0..n) becomes its sum over the ranks, added in rank order (the same bits on every rank).
void allreduce_sum_doubles(comm::Communicator& comm, double* v, std::size_t n);

}  // namespace scalebench
