// blas_threads.cpp — the BLAS thread count (through the vendor's call: blas_vendor.h) and the
// affinity mask the budget is taken from.
#include "kernels/cpu/blas_threads.h"

#include <sched.h>

#include <thread>

#include <fmt/format.h>

#include "kernels/cpu/blas_vendor.h"

namespace scalebench::cpu {

void set_blas_threads(int threads) { blas_vendor_set_threads(threads > 0 ? threads : usable_cpus()); }

int blas_threads() { return blas_vendor_threads(); }

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return int(std::max(1u, std::thread::hardware_concurrency()));  // no mask to read: every CPU
}

std::string usable_cpu_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return "unknown";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int end = c;
    while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) ++end;
    out += (out.empty() ? "" : ",") + (end == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, end));
    c = end;
  }
  return out;
}

std::vector<int> usable_cpu_ids() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> ids;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return ids;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) ids.push_back(c);
  return ids;
}

}  // namespace scalebench::cpu
