// turn_gate.h — two runs taking turns on one CPU, for `scalebench ab --interleave slice`
// (harness/study/ab/ab.h): each side computes only while it holds the turn, hands it over at a step
// boundary once its slice is up, and its epoch clock leaves out the time it waited. So the two
// sides of a pair see the host within a slice of each other (a quarter of a second by default),
// where run-by-run alternation sees it seconds apart — on a host whose speed wanders over seconds
// that drift is most of a pair's difference (results/notes/compare-noise-2026-11.md).
// Set up by ab through SCALEBENCH_AB_TURN=FILE:SIDE:SLICE_MS (SIDE a or b; FILE a small file ab
// creates zeroed, which both sides map). Waits happen before a training step and before an
// evaluation, never inside one, so the steps' own times are untouched.
// What it deliberately does not do: more than two sides, runs of several workers (train refuses
// them: their workers would have to agree on the turn), or fairness beyond alternation. A side that
// has not reached its first step within kMeetSeconds, has ended or has died does not hold the other
// up: the other then runs alone, and the run's turn note says how long it waited.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace scalebench {

class TurnGate {
 public:
  // From SCALEBENCH_AB_TURN; nullptr when it is unset or empty. Throws (naming the variable) when it
  // is malformed or the file cannot be mapped.
  static std::unique_ptr<TurnGate> from_env();
  TurnGate(const std::string& file, int side, double slice_s);  // side 0 (a) or 1 (b)
  ~TurnGate();  // leave()
  TurnGate(const TurnGate&) = delete;
  TurnGate& operator=(const TurnGate&) = delete;

  // Before a step or an evaluation: returns once this side holds the turn (handing it over first
  // when its slice is up and the other side is there to take it). Returns the seconds it waited.
  double wait();
  // This side is done (end of training, or on the way out): the other runs on without it.
  void leave();

  // "took turns with the other side of an A/B pair on one CPU (slices of 250 ms): 40 turns, waited
  // 9.8 s (left out of the epoch times)", or "... ran alone ..." when the other never came.
  std::string note() const;
  double waited_s() const { return waited_s_; }
  int turns() const { return turns_; }

 private:
  struct Shared;
  bool other_gone() const;
  void meet();

  std::string file_;
  Shared* shared_ = nullptr;
  int me_ = 0;
  double slice_s_ = 0.25;
  double turn_started_ = 0;   // steady clock, s
  double waited_s_ = 0;
  int turns_ = 0;
  bool met_ = false, alone_ = false, left_ = false;
};

// The process's gate (SCALEBENCH_AB_TURN read once), or nullptr.
TurnGate* turn_gate();

}  // namespace scalebench
