// test_turn_gate.cpp — the shared turn of an A/B slice pair (harness/train/turn_gate.h): the two
// sides never compute at once, both get turns, a side that left or died does not hold the other up,
// and SCALEBENCH_AB_TURN is parsed at the boundary. No timing is asserted: the steps sleep so that
// slices pass, and only the order of events is checked.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/train/turn_gate.h"
#include "kernels/common/check.h"

namespace scalebench {
namespace {

std::string zeroed_turn_file(const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".bin");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string(64, '\0');
  return path.string();
}

TEST(TurnGate, TheTwoSidesNeverComputeAtOnceAndBothGetTurns) {
  const std::string file = zeroed_turn_file("turns");
  std::atomic<int> computing{0}, most{0};
  std::atomic<int> switches{0}, last_side{-1};
  auto side = [&](int me) {
    TurnGate gate(file, me, 0.02);  // 20 ms slices
    for (int step = 0; step < 40; ++step) {
      gate.wait();
      const int now = ++computing;
      most = std::max(most.load(), now);
      if (last_side.exchange(me) != me) ++switches;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a step
      --computing;
    }
    gate.leave();
    EXPECT_GT(gate.turns(), 1) << "side " << me << " never got the turn back";
    EXPECT_NE(gate.note().find("took turns"), std::string::npos) << gate.note();
  };
  std::thread a(side, 0), b(side, 1);
  a.join();
  b.join();
  EXPECT_EQ(most.load(), 1) << "both sides computed at once";
  EXPECT_GE(switches.load(), 4) << "the turn did not alternate";
  std::filesystem::remove(file);
}

TEST(TurnGate, ASideThatLeftDoesNotHoldTheOtherUp) {
  const std::string file = zeroed_turn_file("left");
  TurnGate b(file, 1, 0.01);
  b.leave();  // ended (or failed) before its first step
  TurnGate a(file, 0, 0.01);
  for (int step = 0; step < 5; ++step) {
    EXPECT_EQ(a.wait(), 0.0) << "step " << step << " waited for a side that had left";
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  std::filesystem::remove(file);
}

// The other side dies holding the turn (no leave()), and stays a zombie until reaped, as ab's B
// does while A runs: the survivor takes the turn instead of waiting for ever (ctest's timeout would
// end this test if it did).
TEST(TurnGate, ASideThatDiedHoldingTheTurnDoesNotHoldTheOtherUp) {
  const std::string file = zeroed_turn_file("died");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TurnGate b(file, 1, 0.05);
    for (int step = 0; step < 3; ++step) {
      b.wait();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::_exit(0);  // holding the turn or about to get it: no leave(), no destructor
  }
  TurnGate a(file, 0, 0.05);
  for (int step = 0; step < 30; ++step) {
    a.wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_GE(a.turns(), 1);
  std::filesystem::remove(file);
}

TEST(TurnGate, TheVariableIsParsedAtTheBoundary) {
  const std::string file = zeroed_turn_file("env");
  for (const std::string bad : std::vector<std::string>{"nonsense", file + ":c:250", file + ":a:0", file + ":a:x", file + ":a:",
                                "/no/such/dir/turn.bin:a:250"}) {
    ::setenv("SCALEBENCH_AB_TURN", bad.c_str(), 1);
    try {
      TurnGate::from_env();
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("SCALEBENCH_AB_TURN"), std::string::npos) << e.what();
    }
  }
  ::setenv("SCALEBENCH_AB_TURN", (file + ":b:250").c_str(), 1);
  EXPECT_NE(TurnGate::from_env(), nullptr);
  ::setenv("SCALEBENCH_AB_TURN", "", 1);
  EXPECT_EQ(TurnGate::from_env(), nullptr);
  ::unsetenv("SCALEBENCH_AB_TURN");
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace scalebench
