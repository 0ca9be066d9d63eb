// late_steps.cpp — the book of steps read one step late (see late_steps.h).
#include "harness/train/late_steps.h"

#include <algorithm>

#include "kernels/common/check.h"

namespace scalebench {

bool late_steps_apply(const TrainConfig& c) {
  return c.backend == Backend::cuda && c.strategy == StrategyKind::single &&
         c.on_nonfinite == NonFinitePolicy::fail && c.accumulate == 1 && c.trace.empty();
}

void LateSteps::begin(std::int64_t row) {
  SB_CHECK(current_ < 0, "LateSteps::begin: step {} still open", slots_[std::size_t(current_)].row);
  const int k = int(begun_ % LateReads::kSlots);
  Slot& s = slots_[std::size_t(k)];
  SB_CHECK(!s.queued, "LateSteps::begin: slot {} still holds the unread step of row {}", k, s.row);
  s = Slot{.open = true, .row = row, .order = begun_++};
  current_ = k;
  reads_.mark(k, Mark::start);
}

void LateSteps::mark(Mark m) {
  SB_CHECK(current_ >= 0 && m > Mark::start && m < Mark::end, "LateSteps::mark {} outside a step", int(m));
  reads_.mark(current_, m);
}

void LateSteps::finish(const float* grads, std::int64_t n, double comm_exposed, bool replayed) {
  SB_CHECK(current_ >= 0, "LateSteps::finish outside a step");
  Slot& s = slots_[std::size_t(current_)];
  if (grads) reads_.scan(current_, grads, n);
  reads_.mark(current_, Mark::end);
  s.open = false;
  s.queued = true;
  s.scanned = grads != nullptr;
  s.comm_exposed = comm_exposed;
  s.replayed = replayed;
  current_ = -1;
}

bool LateSteps::pending() const {
  return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.queued; });
}

std::vector<LateSteps::Settled> LateSteps::settle() {
  std::vector<int> order;
  for (int k = 0; k < LateReads::kSlots; ++k)
    if (slots_[std::size_t(k)].queued) order.push_back(k);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return slots_[std::size_t(a)].order < slots_[std::size_t(b)].order; });
  std::vector<Settled> out;
  for (const int k : order) {
    Slot& s = slots_[std::size_t(k)];
    reads_.wait(k);
    const auto span = [&](Mark a, Mark b) { return reads_.seconds(k, a, b); };
    Settled r{.row = s.row, .replayed = s.replayed};
    r.times.data = span(Mark::start, Mark::data);
    r.times.fwd = span(Mark::data, Mark::forward);
    r.times.bwd = span(Mark::forward, Mark::backward);
    // As epoch.cpp's time_update: what follows backward and is not the exposed exchange is the update.
    r.times.comm_exposed = s.comm_exposed;
    r.times.update = std::max(0.0, span(Mark::backward, Mark::end) - s.comm_exposed);
    if (s.scanned) r.scan = reads_.scanned(k);
    s.queued = false;
    out.push_back(r);
  }
  return out;
}

}  // namespace scalebench
