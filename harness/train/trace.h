// trace.h — the step timeline of `train --trace FILE`: complete ("X") events of the Chrome
// trace-event format (open the file in Perfetto or chrome://tracing), one file per rank
// (trace_path_for_rank), merged by `scalebench trace merge`. Thread-safe: the training thread and
// a strategy's communication thread add spans to the same Trace. Times are microseconds of
// steady_clock (CLOCK_MONOTONIC, one axis for every rank of one host, emulated nodes included). It records what it is given; it does not time anything itself,
// and it writes nothing until write().
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "harness/strategy/bucketer.h"

namespace scalebench::trace {

using Clock = std::chrono::steady_clock;

// Thread rows of a rank's timeline.
enum Row : int { kTrainRow = 0, kCommRow = 1 };

struct Span {
  std::string name, cat;
  double ts_us = 0, dur_us = 0;
  int tid = kTrainRow;
  std::string args;  // a JSON object's members without braces ("\"bytes\": 4096"), or empty
};

class Trace {
 public:
  Trace(std::string path, int rank);
  void add(std::string_view name, std::string_view cat, Clock::time_point t0, Clock::time_point t1, int tid = kTrainRow,
           std::string args = {});
  // Writes the JSON object {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {"rank": r}}
  // atomically (a temporary file renamed); throws scalebench::Error naming the file.
  void write() const;
  std::vector<Span> spans() const;

 private:
  std::string path_;
  int rank_;
  mutable std::mutex mu_;
  std::vector<Span> spans_;
};

// Each bucket's allreduce as a span "allreduce bucket i" (args: bytes — its float32 gradient bytes,
// not what compression puts on the wire — and its element range), on the communication row when
// overlapped. An empty observer for a null trace.
BucketObserver bucket_observer(Trace* trace);

// FILE for a one-rank run; FILE's stem + ".rank<r>" + extension otherwise (t.json -> t.rank1.json).
std::string trace_path_for_rank(const std::string& file, int rank, int ranks);

// `scalebench trace merge`: one timeline from rank files — each file's events under pid = its rank
// (otherData.rank), with process names "rank r". Throws naming a file that is missing, not JSON of
// this shape, or a rank given twice.
void merge(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace scalebench::trace
