// scalar_reduce.cpp — reductions of doubles over allgathered bytes, summed in rank order.
#include "harness/strategy/scalar_reduce.h"

#include <algorithm>

namespace scalebench {
namespace {
// Every rank's v[0..n), rank after rank: one collective of fixed size (allgather_fixed).
std::vector<double> gather(comm::Communicator& comm, const double* v, std::size_t n) {
  if (comm.size() == 1) return std::vector<double>(v, v + n);  // no collective (a GPU round trip on nccl)
  std::vector<double> out(n * std::size_t(comm.size()));
  comm.allgather_fixed(v, n * sizeof(double), out.data());
  return out;
}
std::vector<double> gather(comm::Communicator& comm, double x) { return gather(comm, &x, 1); }
}  // namespace

double allreduce_scalar_sum(comm::Communicator& comm, double x) {
  allreduce_sum_doubles(comm, &x, 1);
  return x;
}

void allreduce_sum_doubles(comm::Communicator& comm, double* v, std::size_t n) {
  const std::vector<double> all = gather(comm, v, n);
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::size_t at = i; at < all.size(); at += n) s += all[at];
    v[i] = s;
  }
}

double allreduce_scalar_max(comm::Communicator& comm, double x) {
  const auto all = gather(comm, x);
  return *std::max_element(all.begin(), all.end());
}

std::pair<double, double> allreduce_scalar_max_sum(comm::Communicator& comm, double max_of, double sum_of) {
  const double mine[2] = {max_of, sum_of};
  static_assert(sizeof(mine) == comm::Communicator::kAgreeBytes, "commbench times the agreement with blocks of this size");
  const auto all = gather(comm, mine, 2);
  double mx = all[0], sum = 0;
  for (std::size_t at = 0; at < all.size(); at += 2) mx = std::max(mx, all[at]), sum += all[at + 1];
  return {mx, sum};
}

}  // namespace scalebench
