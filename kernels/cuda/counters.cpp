// counters.cpp — the call counters (see counters.h).
#include "kernels/cuda/counters.h"

#include <atomic>

namespace scalebench::cuda {
namespace {
std::atomic<std::int64_t> g_alloc{0}, g_free{0}, g_sync{0}, g_desc{0}, g_lagged{0}, g_graph{0};
}  // namespace

CallCounts call_counts() {
  return {g_alloc.load(std::memory_order_relaxed), g_free.load(std::memory_order_relaxed), g_sync.load(std::memory_order_relaxed),
          g_desc.load(std::memory_order_relaxed), g_lagged.load(std::memory_order_relaxed),
          g_graph.load(std::memory_order_relaxed)};
}
void count_allocation() { g_alloc.fetch_add(1, std::memory_order_relaxed); }
void count_free() { g_free.fetch_add(1, std::memory_order_relaxed); }
void count_sync() { g_sync.fetch_add(1, std::memory_order_relaxed); }
void count_descriptor() { g_desc.fetch_add(1, std::memory_order_relaxed); }
void count_lagged_wait() { g_lagged.fetch_add(1, std::memory_order_relaxed); }
void count_graph_launch() { g_graph.fetch_add(1, std::memory_order_relaxed); }

}  // namespace scalebench::cuda
