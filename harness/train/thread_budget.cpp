// thread_budget.cpp — the thread budget from the ranks' affinity masks (see thread_budget.h).
#include "harness/train/thread_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "kernels/cpu/blas_threads.h"

namespace scalebench {
namespace {

constexpr std::size_t kMaskBytes = 1024 / 8;  // CPU_SETSIZE bits: what sched_getaffinity reports
constexpr std::size_t kListed = 64;          // ranks named in the context

std::mutex g_mu;
std::string g_note;

// "0-1,4"
std::string cpu_ranges(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    std::size_t end = i;
    while (end + 1 < cpus.size() && cpus[end + 1] == cpus[end] + 1) ++end;
    if (!out.empty()) out += ',';
    out += end == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[end]);
    i = end;
  }
  return out.empty() ? "unknown" : out;
}

}  // namespace

int shared_cpu_budget(const std::vector<RankCpus>& ranks, std::size_t me) {
  if (me >= ranks.size()) return 1;
  std::map<int, int> holders;  // CPU -> ranks on this host whose masks hold it
  for (const RankCpus& r : ranks)
    if (r.host == ranks[me].host)
      for (int c : r.cpus) ++holders[c];
  double share = 0;
  for (int c : ranks[me].cpus) share += 1.0 / holders[c];
  // The small margin keeps 3 x (1/3) at 1: the shares are sums of unit fractions.
  return std::max(1, int(std::floor(share + 1e-9)));
}

std::vector<RankCpus> gather_rank_cpus(comm::Communicator& world) {
  const std::vector<std::string> hosts = world.allgather(comm::hostname());
  std::vector<std::uint8_t> mine(kMaskBytes, 0), all(kMaskBytes * std::size_t(world.size()), 0);
  for (int c : cpu::usable_cpu_ids())
    if (std::size_t(c) < kMaskBytes * 8) mine[std::size_t(c) / 8] |= std::uint8_t(1u << (c % 8));
  world.allgather_fixed(mine.data(), kMaskBytes, all.data());
  std::vector<RankCpus> ranks(std::size_t(world.size()));
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    ranks[r].host = hosts[r];
    for (std::size_t c = 0; c < kMaskBytes * 8; ++c)
      if (all[r * kMaskBytes + c / 8] & (1u << (c % 8))) ranks[r].cpus.push_back(int(c));
  }
  return ranks;
}

std::string describe_rank_threads(const std::vector<RankCpus>& ranks, const std::vector<int>& threads) {
  std::string out;
  const std::size_t n = std::min({ranks.size(), threads.size(), kListed});
  for (std::size_t r = 0; r < n; ++r)
    out += fmt::format("{}rank {} on {}: {} thread{}, CPUs {}", r ? "; " : "", r, ranks[r].host, threads[r],
                       threads[r] == 1 ? "" : "s", cpu_ranges(ranks[r].cpus));
  if (ranks.size() > n) out += fmt::format("; … {} more ranks", ranks.size() - n);
  return out;
}

void set_rank_threads_note(std::string note) {
  std::lock_guard lock(g_mu);
  g_note = std::move(note);
}

std::string rank_threads_note() {
  std::lock_guard lock(g_mu);
  return g_note;
}

}  // namespace scalebench
