// test_late_steps.cpp — the book of steps read one step late (harness/train/late_steps.h) against a
// fake device (a timeline the test sets, a scan taken when queued): the trainer's interleaving (the
// next step begun before the previous is settled) gives each step its own phases and scan, oldest
// first, each once; a slot still unread is never overwritten; and which runs go through it
// (late_steps_apply). The cuda device's side is tests/gpu/train/test_step_sync_free.cpp.
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "harness/train/late_steps.h"
#include "kernels/common/check.h"

namespace scalebench {
namespace {

struct FakeReads final : LateReads {
  double now = 0;                               // the fake device timeline
  std::map<std::pair<int, int>, double> at;     // (slot, mark) -> when
  std::array<NonFinite, kSlots> scan_result{};  // taken when queued, as the device's copy is
  std::vector<int> waits;
  void mark(int slot, int k) override { at[{slot, k}] = now; }
  void scan(int slot, const float* x, std::int64_t n) override {
    scan_result[std::size_t(slot)] = {};
    for (std::int64_t i = 0; i < n; ++i)
      if (!std::isfinite(x[i])) {
        scan_result[std::size_t(slot)] = {i, x[i]};
        break;
      }
  }
  void wait(int slot) override { waits.push_back(slot); }
  double seconds(int slot, int from, int to) override { return at.at({slot, to}) - at.at({slot, from}); }
  NonFinite scanned(int slot) override { return scan_result[std::size_t(slot)]; }
};

using M = LateSteps::Mark;

// One step's marks at start + the given offsets (data, forward, backward, end).
void run_step(FakeReads& f, LateSteps& book, std::int64_t row, double start, std::array<double, 4> at,
              const std::vector<float>& grads, double comm = 0, bool begin = true) {
  f.now = start;
  if (begin) book.begin(row);
  f.now = start + at[0];
  book.mark(M::data);
  f.now = start + at[1];
  book.mark(M::forward);
  f.now = start + at[2];
  book.mark(M::backward);
  f.now = start + at[3];
  book.finish(grads.data(), std::int64_t(grads.size()), comm, false);
}

TEST(LateSteps, EachStepSettlesItsOwnPhasesAndScanOnceOldestFirst) {
  FakeReads f;
  LateSteps book(f);
  const std::vector<float> finite{1, 2, 3}, bad{1, 2, std::numeric_limits<float>::infinity(), NAN};
  run_step(f, book, 0, 0, {1, 3, 6, 10}, finite, 0.5);
  EXPECT_TRUE(book.pending());
  // The trainer's order: the next step begins (its slot, its start and data marks) before the
  // previous one is settled.
  f.now = 10;
  book.begin(1);
  f.now = 12;
  book.mark(M::data);
  auto s = book.settle();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].row, 0);
  EXPECT_DOUBLE_EQ(s[0].times.data, 1);
  EXPECT_DOUBLE_EQ(s[0].times.fwd, 2);
  EXPECT_DOUBLE_EQ(s[0].times.bwd, 3);
  EXPECT_DOUBLE_EQ(s[0].times.comm_exposed, 0.5);
  EXPECT_DOUBLE_EQ(s[0].times.update, 3.5);  // 4 after backward, less the exposed exchange
  EXPECT_EQ(s[0].scan.index, -1);
  EXPECT_EQ(f.waits, std::vector<int>{0});
  EXPECT_FALSE(book.pending());  // the open step is not pending until it ends
  f.now = 15;
  book.mark(M::forward);
  f.now = 20;
  book.mark(M::backward);
  f.now = 21;
  book.finish(bad.data(), std::int64_t(bad.size()), 0, true);
  s = book.settle();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].row, 1);
  EXPECT_DOUBLE_EQ(s[0].times.data, 2);
  EXPECT_DOUBLE_EQ(s[0].times.fwd, 3);
  EXPECT_DOUBLE_EQ(s[0].times.bwd, 5);
  EXPECT_DOUBLE_EQ(s[0].times.update, 1);
  EXPECT_TRUE(s[0].replayed);
  EXPECT_EQ(s[0].scan.index, 2);
  EXPECT_TRUE(std::isinf(s[0].scan.value));
  EXPECT_TRUE(book.settle().empty()) << "a step settled twice";

  // Two steps ended before one settle (an epoch's end after a graph step): both, oldest first, and
  // a step without a scan (its own check already failed) reads none.
  run_step(f, book, 2, 30, {1, 2, 3, 4}, bad);
  f.now = 40;
  book.begin(3);
  f.now = 41;
  book.mark(M::data);
  f.now = 42;
  book.mark(M::forward);
  f.now = 43;
  book.mark(M::backward);
  f.now = 44;
  book.finish(nullptr, 0, 0, false);
  s = book.settle();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].row, 2);
  EXPECT_EQ(s[0].scan.index, 2);
  EXPECT_DOUBLE_EQ(s[0].times.fwd, 1);
  EXPECT_EQ(s[1].row, 3);
  EXPECT_EQ(s[1].scan.index, -1);
  EXPECT_DOUBLE_EQ(s[1].times.data, 1);
}

TEST(LateSteps, NeverOverwritesAStepNotYetRead) {
  FakeReads f;
  LateSteps book(f);
  const std::vector<float> g{0};
  run_step(f, book, 0, 0, {1, 2, 3, 4}, g);
  run_step(f, book, 1, 4, {1, 2, 3, 4}, g);
  EXPECT_THROW(book.begin(2), Error) << "a third step took a slot whose step was never settled";
  EXPECT_EQ(book.settle().size(), 2u);
  book.begin(2);
  EXPECT_THROW(book.begin(3), Error) << "a step began inside another";
  LateSteps idle(f);
  EXPECT_THROW(idle.mark(M::data), Error);
  EXPECT_THROW(idle.finish(nullptr, 0, 0, false), Error);
}

TEST(LateSteps, AppliesToOneCudaWorkerThatFailsOnNonFiniteSteps) {
  TrainConfig c;
  c.backend = Backend::cuda;
  EXPECT_TRUE(late_steps_apply(c));
  auto with = [&](auto change) {
    TrainConfig d = c;
    change(d);
    return late_steps_apply(d);
  };
  EXPECT_FALSE(with([](TrainConfig& d) { d.backend = Backend::cpu; }));
  EXPECT_FALSE(with([](TrainConfig& d) { d.strategy = StrategyKind::ring; }));
  EXPECT_FALSE(with([](TrainConfig& d) { d.on_nonfinite = NonFinitePolicy::skip; }));
  EXPECT_FALSE(with([](TrainConfig& d) { d.accumulate = 2; }));
  EXPECT_FALSE(with([](TrainConfig& d) { d.trace = "t.json"; }));
}

}  // namespace
}  // namespace scalebench
