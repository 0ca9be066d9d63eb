// scalar_reduce.h — sums and maxima of one double over all ranks, through allgather so that it
// is exact and identical everywhere (epoch times, loss sums), and of a few doubles (synchronised
// batch-norm statistics, one value per channel). Not for bulk data: gradients go through allreduce.
#pragma once

#include <cstddef>

#include "harness/comm/communicator.h"

namespace scalebench {

double allreduce_scalar_sum(comm::Communicator& comm, double x);
double allreduce_scalar_max(comm::Communicator& comm, double x);
// v[0..n) becomes its sum over the ranks, added in rank order (the same bits on every rank).
void allreduce_sum_doubles(comm::Communicator& comm, double* v, std::size_t n);

}  // namespace scalebench
