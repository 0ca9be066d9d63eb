// trace.h — the step timeline of `train --trace FILE`: complete ("X") events of the Chrome
// trace-event format (open the file in Perfetto or chrome://tracing), one file per rank
// (trace_path_for_rank), merged by `scalebench trace merge` and read by `scalebench project`,
// both through read_trace_file (trace_read.cpp): one writer, one reader, one vocabulary (SpanCat,
// kPhaseNames, span_name) that docs/trace.md's table describes. Thread-safe: the training thread
// and a strategy's communication thread add spans to the same Trace. Times are microseconds of
// steady_clock (CLOCK_MONOTONIC, one axis for every rank of one host, emulated nodes included).
// Beside the spans, a file carries the run's provenance (Provenance: the run file's /config and
// /context as the recording caller captured them), so that `project` can check its inputs and name
// the hosts and commit it measured.
// It records what it is given; it does not time anything itself, and it writes nothing until write().
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/strategy/bucketer.h"
#include "harness/train/field.h"

namespace scalebench::trace {

using Clock = std::chrono::steady_clock;

// Thread rows of a rank's timeline.
enum Row : int { kTrainRow = 0, kCommRow = 1 };

// The span categories ("cat" in the file), in docs/trace.md's order.
enum class SpanCat { step, phase, forward, layer, allreduce, evaluation };
inline constexpr std::array<std::string_view, 6> kCatNames = {"step",  "phase",     "forward",
                                                              "layer", "allreduce", "evaluation"};
inline std::string_view cat_name(SpanCat c) { return kCatNames[std::size_t(c)]; }
std::optional<SpanCat> parse_cat(std::string_view s);

// The phases of a step (SpanCat::phase), laid end to end in this order; their durations are the run
// file's /steps columns t_data, t_fwd, t_bwd, t_comm_exposed, t_update.
enum class Phase { data, forward, backward, exchange, optimizer };
inline constexpr std::array<std::string_view, 5> kPhaseNames = {"data", "forward", "backward", "exchange", "optimizer"};

// A span's name from its category and subject: step "step 7", forward "forward conv1",
// layer "backward conv1", allreduce "allreduce bucket 2", evaluation "evaluation (epoch 1)",
// phase the phase's own name. subject_of is the inverse (what follows the category's prefix).
std::string span_name(SpanCat c, std::string_view subject);
std::string_view subject_of(SpanCat c, std::string_view name);

// A span's args: named integers (a bucket's bytes, a layer's or bucket's gradient elements).
using SpanArgs = std::vector<std::pair<std::string, std::int64_t>>;

struct Span {
  std::string name;
  SpanCat cat = SpanCat::step;
  double ts_us = 0, dur_us = 0;
  int tid = kTrainRow;
  SpanArgs args;
  double end_us() const { return ts_us + dur_us; }
  // The gradient elements [begin, end) of a layer or bucket span (args "begin", "end"), if it has them.
  std::optional<std::pair<std::int64_t, std::int64_t>> elements() const;
};

// What the run was and what it ran on, as its run file records them: `config` the /config
// attributes (record::config_attrs: every option — batch, accumulate, model, threads, backend … —
// and the run id), `context` the /context ones (record::capture_context: hostnames, git_sha,
// cpu_model …). The caller that records runs (record::run_recorded) fills both from those
// functions, so this file never lists the fields itself. Written as otherData.config and
// otherData.context (numbers as JSON numbers — a double always with a '.' or an
// exponent, a non-finite one as the string "nan"/"inf"/"-inf" — text as JSON strings). Empty in a
// run that was started without one (train() called directly, as tests do) and in traces written
// before scalebench recorded it; readers then find no key.
struct Provenance {
  using Items = std::vector<std::pair<std::string, FieldValue>>;
  Items config, context;
  bool empty() const { return config.empty() && context.empty(); }
  // The value of `key` in `items`, or null.
  static const FieldValue* find(const Items& items, std::string_view key);
};

class Trace {
 public:
  Trace(std::string path, int rank, Provenance provenance = {});
  void add(SpanCat cat, std::string_view subject, Clock::time_point t0, Clock::time_point t1, int tid = kTrainRow,
           SpanArgs args = {});
  // Writes the JSON object {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {"rank": r,
  // "config": {...}, "context": {...}}} (no config/context when the provenance is empty), an event
  // a line (kernels/common/json.h), atomically (kernels/common/write_file.h); throws
  // scalebench::Error naming the file.
  void write() const;
  std::vector<Span> spans() const;

 private:
  std::string path_;
  int rank_;
  Provenance provenance_;
  mutable std::mutex mu_;
  std::vector<Span> spans_;
};

// One rank file as read back: its spans in file order, otherData.rank (-1 when the file has none,
// e.g. a merged file) and its provenance (empty when the file has none). Parses the JSON and reads
// the members write() writes, by name (any layout); refuses events other than write()'s ("X" spans
// of a known category with integer args, "M" names) rather than guessing at other tools' JSON.
// Throws naming `who` ("trace merge", "--trace"), the file and, for a bad member, where it is
// ("traceEvents[4].ts").
struct TraceFile {
  int rank = -1;
  std::vector<Span> spans;
  Provenance provenance;
};
TraceFile read_trace_file(const std::string& path, std::string_view who);

// Each bucket's allreduce as a span "allreduce bucket i" (args: bytes — its float32 gradient bytes,
// not what compression puts on the wire — and its element range), on the communication row when
// overlapped. An empty observer for a null trace.
BucketObserver bucket_observer(Trace* trace);

// FILE for a one-rank run; FILE's stem + ".rank<r>" + extension otherwise (t.json -> t.rank1.json).
std::string trace_path_for_rank(const std::string& file, int rank, int ranks);

// `scalebench trace merge`: one timeline from rank files — each file's events under pid = its rank
// (otherData.rank), with process names "rank r", and the lowest rank's provenance. Throws naming a file that is missing, not JSON of
// this shape, or a rank given twice.
void merge(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace scalebench::trace
