// threads_coll.cpp — collectives of the threads transport (its "native" ones): barrier, allreduce,
// broadcast, allgather, dup. All ranks publish their arguments, meet, check that everyone called
// the same collective with the same count (a mismatch is the same Error on every rank), then work on
// each other's buffers directly through shared memory.
// Allreduce is a two-phase shared-memory reduce: rank r sums slice r over all buffers (rank order, so
// the bits are the same everywhere), then copies the other slices from their owners. It deliberately
// uses no extra buffer.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "harness/comm/threads_state.h"
#include "kernels/common/check.h"

namespace scalebench::comm::threads_detail {

namespace {

std::string describe(const CollEntry& e) {
  if (e.kind == "allreduce") return fmt::format("allreduce(count {})", e.count);
  if (e.kind == "broadcast") return fmt::format("broadcast(count {}, root {})", e.count, e.root);
  return e.kind;
}

std::size_t slice_begin(std::size_t count, int n, int r) {
  return count * static_cast<std::size_t>(r) / static_cast<std::size_t>(n);
}

}  // namespace

void ThreadsComm::enter(CollEntry e) {
  std::lock_guard lk(w_->mu);
  ctx_->entries[static_cast<std::size_t>(rank_)] = std::move(e);
  ++ctx_->calls[static_cast<std::size_t>(rank_)];
}

void ThreadsComm::sync(const char* what) {
  std::unique_lock lk(w_->mu);
  Context& c = *ctx_;
  c.arrived[static_cast<std::size_t>(rank_)] = 1;
  if (++c.n_arrived == w_->n) {
    std::fill(c.arrived.begin(), c.arrived.end(), 0);
    c.n_arrived = 0;
    ++c.generation;
    w_->cv.notify_all();
    return;
  }
  const std::uint64_t gen = c.generation;
  const std::uint64_t call = c.calls[static_cast<std::size_t>(rank_)];
  w_->wait(
      lk, rank_, [&] { return c.generation != gen; },
      [&] {
        std::vector<int> missing;
        for (int r = 0; r < w_->n; ++r)
          if (!c.arrived[static_cast<std::size_t>(r)]) missing.push_back(r);
        return missing;
      },
      [&] { return fmt::format("in {} (collective call #{})", what, call); });
}

void ThreadsComm::validate() {
  std::lock_guard lk(w_->mu);
  const auto& es = ctx_->entries;
  for (int r = 1; r < w_->n; ++r) {
    const CollEntry& a = es[0];
    const CollEntry& b = es[static_cast<std::size_t>(r)];
    if (a.kind != b.kind || a.count != b.count || a.root != b.root)
      throw Error(fmt::format("threads transport: collective mismatch at call #{}: rank 0 called {}, rank {} called {}",
                              ctx_->calls[static_cast<std::size_t>(rank_)], describe(a), r, describe(b)));
  }
}

void ThreadsComm::barrier() {
  enter({"barrier"});
  sync("barrier");
  validate();
  sync("barrier");
}

void ThreadsComm::allreduce_sum(float* buf, std::size_t count) {
  enter({"allreduce", count, -1, buf});
  sync("allreduce");
  validate();
  const int n = w_->n;
  std::vector<float*> bufs(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) bufs[static_cast<std::size_t>(r)] = static_cast<float*>(ctx_->entries[static_cast<std::size_t>(r)].ptr);
  if (n > 1 && count > 0) {
    // Phase 1: my slice, summed over all ranks in rank order, in cache-sized blocks.
    const std::size_t lo = slice_begin(count, n, rank_), hi = slice_begin(count, n, rank_ + 1);
    constexpr std::size_t kBlock = 2048;
    float acc[kBlock];
    for (std::size_t b = lo; b < hi; b += kBlock) {
      const std::size_t len = std::min(kBlock, hi - b);
      std::memcpy(acc, bufs[0] + b, len * sizeof(float));
      for (int r = 1; r < n; ++r) {
        const float* src = bufs[static_cast<std::size_t>(r)] + b;
        for (std::size_t i = 0; i < len; ++i) acc[i] += src[i];
      }
      std::memcpy(buf + b, acc, len * sizeof(float));
    }
    sync("allreduce");
    // Phase 2: every other slice from the rank that reduced it.
    for (int r = 0; r < n; ++r) {
      if (r == rank_) continue;
      const std::size_t a = slice_begin(count, n, r), z = slice_begin(count, n, r + 1);
      if (z > a) std::memcpy(buf + a, bufs[static_cast<std::size_t>(r)] + a, (z - a) * sizeof(float));
    }
  }
  sync("allreduce");  // nobody returns (and reuses its buffer) while another rank still reads it
}

void ThreadsComm::broadcast(float* buf, std::size_t count, int root) {
  SB_CHECK(root >= 0 && root < w_->n, "threads transport: broadcast root {} out of range [0, {})", root, w_->n);
  enter({"broadcast", count, root, buf});
  sync("broadcast");
  validate();
  if (rank_ != root && count > 0)
    std::memcpy(buf, ctx_->entries[static_cast<std::size_t>(root)].ptr, count * sizeof(float));
  sync("broadcast");
}

std::vector<std::string> ThreadsComm::allgather(std::string_view mine) {
  const std::string text(mine);
  CollEntry e{"allgather"};
  e.text = &text;
  enter(std::move(e));
  sync("allgather");
  validate();
  std::vector<std::string> out(static_cast<std::size_t>(w_->n));
  {
    std::lock_guard lk(w_->mu);
    for (int r = 0; r < w_->n; ++r) out[static_cast<std::size_t>(r)] = *ctx_->entries[static_cast<std::size_t>(r)].text;
  }
  sync("allgather");
  return out;
}

std::unique_ptr<Communicator> ThreadsComm::dup() {
  enter({"dup"});
  sync("dup");
  validate();
  std::shared_ptr<Context> child;
  {
    // The k-th dup() of every rank lands in the same child context; the first rank to get here makes it.
    std::lock_guard lk(w_->mu);
    const std::uint64_t k = ctx_->dups[static_cast<std::size_t>(rank_)]++;
    auto& slot = ctx_->children[k];
    if (!slot) {
      slot = std::make_shared<Context>(w_->n);
      slot->id = w_->next_context_id++;
    }
    child = slot;
  }
  sync("dup");
  return std::make_unique<ThreadsComm>(w_, std::move(child), rank_);
}

}  // namespace scalebench::comm::threads_detail
