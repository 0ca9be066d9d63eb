// scalar_reduce.cpp — scalar reductions over allgathered bytes, summed in rank order.
#include "harness/strategy/scalar_reduce.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace scalebench {
namespace {
std::vector<double> gather(comm::Communicator& comm, double x) {
  std::string mine(sizeof(double), '\0');
  std::memcpy(mine.data(), &x, sizeof(double));
  std::vector<double> out;
  for (const auto& s : comm.allgather(mine)) {
    double v = 0;
    std::memcpy(&v, s.data(), sizeof(double));
    out.push_back(v);
  }
  return out;
}
}  // namespace

double allreduce_scalar_sum(comm::Communicator& comm, double x) {
  double s = 0;
  for (double v : gather(comm, x)) s += v;
  return s;
}

double allreduce_scalar_max(comm::Communicator& comm, double x) {
  const auto all = gather(comm, x);
  return *std::max_element(all.begin(), all.end());
}

}  // namespace scalebench
