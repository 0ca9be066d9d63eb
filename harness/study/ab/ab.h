// ab.h — `scalebench ab SPEC`: an A/B run in one go. Every point of the spec is run `pairs` times
// on each of two sides — two option sets (--a/--b 'key=value ...'), two binaries (--a-binary/
// --b-binary), two environments (--a-env/--b-env KEY=VALUE, or a command prefix --a-wrap/--b-wrap
// such as 'taskset -c 1') — alternating run by run: pair k of a point runs A then B when k is odd,
// B then A when k is even (ABBA: a steady drift of the host costs both sides alike). Run files go to
// <output>/a/runs/ and <output>/b/runs/, each side is collected into <output>/a.h5 and <output>/b.h5
// (ordinary study files: report and compare read them), and the paired verdicts (paired.h) are
// printed. With --interleave slice the two runs of a pair start together on one CPU and take turns
// at step boundaries (harness/train/turn_gate.h): the pair's runs then see the host within a slice
// of each other rather than a run apart; B's lines go to its log (<output>/b/runs/<id>.log) and are
// printed when the pair ends. A rerun into the same folder skips runs whose file says ok (as sweep does), so an
// interrupted A/B finishes where it stopped.
// What it deliberately does not do: gate (its exit status says whether every run ran, not how the
// sides compare; compare is the gate), decide quality metrics (compare a.h5 b.h5 does), or launch
// through Slurm (the pairs must alternate on one host).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/study/analysis/format.h"
#include "harness/study/spec/spec.h"

namespace scalebench::study {

enum class AbInterleave { run, slice };

struct AbSide {
  std::string set;                 // "key=value key=value": train options (harness/train/train_fields.cpp)
  std::string binary;              // the scalebench binary ("" = this one)
  std::vector<std::string> env;    // KEY=VALUE for the side's runs
  std::string wrap;                // a command prefix, split at spaces (no quoting): "taskset -c 1"
};

struct AbOptions {
  AbSide a, b;
  int pairs = 10;
  std::string output;              // "" = the spec's [study] output + "-ab"
  double alpha = 0.01;
  std::vector<std::string> thresholds;  // compare's --threshold syntax: the "no change" bands
  Format format = Format::text;    // the printed table: text or markdown (<output>/verdicts.json is always JSON)
  bool dry_run = false;            // print the runs in order with their commands; run nothing
  // run: pair k runs its sides one after the other (ABBA). slice: both runs of a pair start
  // together, pinned to `cpus`, and take turns every slice_ms (harness/train/turn_gate.h).
  AbInterleave interleave = AbInterleave::run;
  double slice_ms = 250;
  std::string cpus;                // "" = the last CPU of this process's affinity mask
};

// Exit status: 0 when every run ended ok, 1 when one failed (its pair is left out of the verdicts),
// 128 + N when stopped by signal N (a rerun finishes). Bad input (an unknown option key, a key that
// the spec's points set themselves) throws naming it, before anything runs.
// `spec_as_given`: the spec as loaded, any --set applied; `spec_path` names it in ab.toml.
int run_ab(const SweepSpec& spec_as_given, const std::string& spec_path, const AbOptions& opt, std::ostream& out);

}  // namespace scalebench::study
