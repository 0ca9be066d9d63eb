// scalar_reduce.h — sums and maxima of one double over all ranks, through allgather so that it
// is exact and identical everywhere (epoch times, loss sums). Not for bulk data.
#pragma once

#include "harness/comm/communicator.h"

namespace scalebench {

double allreduce_scalar_sum(comm::Communicator& comm, double x);
double allreduce_scalar_max(comm::Communicator& comm, double x);

}  // namespace scalebench
