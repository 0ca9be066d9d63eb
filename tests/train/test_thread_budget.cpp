// test_thread_budget.cpp — the thread budget from the ranks' affinity masks (harness/train/
// thread_budget.h): ranks with CPUs of their own keep them all, ranks sharing CPUs divide them, only
// the ranks of the same host count; and the run file's per-rank description.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/train/cpu_warnings.h"
#include "harness/train/thread_budget.h"

using namespace scalebench;

namespace {

std::vector<int> budgets(const std::vector<RankCpus>& ranks) {
  std::vector<int> out;
  for (std::size_t r = 0; r < ranks.size(); ++r) out.push_back(shared_cpu_budget(ranks, r));
  return out;
}

}  // namespace

// srun --cpus-per-task=2 --cpu-bind=cores with 2 tasks per node: each rank has 2 CPUs of its own
// and must use both (a rank count on the host gave 2 / 2 = 1).
TEST(ThreadBudget, DisjointMasksKeepTheirCpus) {
  EXPECT_EQ(budgets({{"n1", {0, 1}}, {"n1", {2, 3}}}), (std::vector<int>{2, 2}));
  EXPECT_EQ(budgets({{"n1", {0, 1, 2, 3}}, {"n1", {4, 5, 6, 7}}, {"n1", {8, 9, 10, 11}}}),
            (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(budgets({{"n1", {0}}, {"n1", {1}}}), (std::vector<int>{1, 1}));  // mpirun --bind-to core
}

// mpirun --bind-to none, srun without binding: every rank may run anywhere and they divide the CPUs.
TEST(ThreadBudget, SharedMasksDivide) {
  EXPECT_EQ(budgets({{"n1", {0, 1, 2, 3}}, {"n1", {0, 1, 2, 3}}}), (std::vector<int>{2, 2}));
  EXPECT_EQ(budgets({{"n1", {0, 1, 2, 3}}, {"n1", {0, 1, 2, 3}}, {"n1", {0, 1, 2, 3}}}), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(budgets({{"n1", {0, 1, 2}}, {"n1", {0, 1, 2}}, {"n1", {0, 1, 2}}}), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(budgets({{"n1", {0, 1}}, {"n1", {0, 1}}, {"n1", {0, 1}}}), (std::vector<int>{1, 1, 1}));  // at least 1
  EXPECT_EQ(budgets({{"n1", {0, 1, 2, 3, 4, 5, 6, 7}}}), (std::vector<int>{8}));
}

// Only the ranks of the same host share a CPU number; a partial overlap shares only what overlaps.
TEST(ThreadBudget, OtherHostsAndPartialOverlap) {
  EXPECT_EQ(budgets({{"n1", {0, 1, 2, 3}}, {"n2", {0, 1, 2, 3}}}), (std::vector<int>{4, 4}));
  EXPECT_EQ(budgets({{"n1", {0, 1, 2, 3}}, {"n1", {0, 1, 2, 3}}, {"n2", {0, 1, 2, 3}}}), (std::vector<int>{2, 2, 4}));
  // Rank 0 has CPUs 0-3, rank 1 only 3: rank 0 keeps 0-2 and half of 3.
  EXPECT_EQ(budgets({{"n1", {0, 1, 2, 3}}, {"n1", {3}}}), (std::vector<int>{3, 1}));
  EXPECT_EQ(budgets({{"n1", {}}}), (std::vector<int>{1}));  // no mask read: at least 1
}

TEST(ThreadBudget, DescribesEveryRank) {
  EXPECT_EQ(describe_rank_threads({{"n1", {0, 1}}, {"n1", {2, 3, 5}}}, {2, 3}),
            "rank 0 on n1: 2 threads, CPUs 0-1; rank 1 on n1: 3 threads, CPUs 2-3,5");
  std::vector<RankCpus> many(70, RankCpus{"n", {0}});
  const std::string d = describe_rank_threads(many, std::vector<int>(70, 1));
  EXPECT_NE(d.find("rank 63 on n: 1 thread, CPUs 0; … 6 more ranks"), std::string::npos) << d;
}

TEST(CpuWarnings, PrintedOnceAndKept) {
  clear_cpu_warnings();
  std::ostringstream log;
  warn_cpu(log, "first");
  warn_cpu(log, "second");
  EXPECT_EQ(log.str(), "train: warning: first\ntrain: warning: second\n");
  EXPECT_EQ(cpu_warnings(), "first\nsecond");
  clear_cpu_warnings();
  EXPECT_EQ(cpu_warnings(), "");
}
