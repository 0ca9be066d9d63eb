// trace.cpp — the span vocabulary, the Chrome trace-event writer and `trace merge` (see trace.h).
// Events are built as JSON (kernels/common/json.h), an event a line. Not here: reading
// (trace_read.cpp).
#include "harness/train/trace.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "kernels/common/check.h"
#include "kernels/common/json.h"
#include "kernels/common/write_file.h"

namespace scalebench::trace {
namespace {

json::Json metadata(int pid, std::string_view what, std::string_view value, int tid = 0) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", std::string(value)}}}};
}

// One rank's events: the process and thread names, then every span (ts and dur to the nanosecond).
void add_rank_events(json::Json& events, int rank, const std::vector<Span>& spans) {
  events.push_back(metadata(rank, "process_name", fmt::format("rank {}", rank)));
  events.push_back(metadata(rank, "thread_name", "training", kTrainRow));
  events.push_back(metadata(rank, "thread_name", "communication", kCommRow));
  for (const Span& s : spans) {
    json::Json args = json::Json::object();
    for (const auto& [k, v] : s.args) args[k] = v;
    events.push_back({{"name", s.name}, {"cat", cat_name(s.cat)}, {"ph", "X"}, {"ts", json::rounded(s.ts_us, 3)},
                      {"dur", json::rounded(s.dur_us, 3)}, {"pid", rank}, {"tid", s.tid}, {"args", std::move(args)}});
  }
}

// A provenance value as trace.h's Provenance says: a double always with '.' or an exponent
// (nlohmann writes a whole double as 8.0, so it reads back as a double), a non-finite one as a
// string (JSON has no NaN).
json::Json json_value(const FieldValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d)) return std::isnan(*d) ? "nan" : *d > 0 ? "inf" : "-inf";
    return *d;
  }
  return std::get<std::string>(v);
}

json::Json json_object(const Provenance::Items& items) {
  json::Json o = json::Json::object();
  for (const auto& [k, v] : items) o[k] = json_value(v);
  return o;
}

// otherData: the rank (or ranks), then config and context, or nothing of them.
json::Json other_data(const char* key, std::int64_t value, const Provenance& p) {
  json::Json o = {{key, value}};
  if (!p.empty()) o["config"] = json_object(p.config), o["context"] = json_object(p.context);
  return o;
}

void write_document(const std::string& path, json::Json events, json::Json other_data, const std::string& who) {
  const json::Json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}, {"otherData", std::move(other_data)}};
  write_file_atomically(path, json::layout(doc), {.who = who});
}

// The prefix of a category's span names (phases are named by the phase alone).
std::string_view prefix(SpanCat c) {
  switch (c) {
    case SpanCat::step: return "step ";
    case SpanCat::phase: return "";
    case SpanCat::forward: return "forward ";
    case SpanCat::layer: return "backward ";
    case SpanCat::allreduce: return "allreduce bucket ";
    case SpanCat::evaluation: return "evaluation (epoch ";
  }
  return "";
}

}  // namespace

std::optional<SpanCat> parse_cat(std::string_view s) {
  const auto it = std::find(kCatNames.begin(), kCatNames.end(), s);
  if (it == kCatNames.end()) return std::nullopt;
  return SpanCat(it - kCatNames.begin());
}

std::string span_name(SpanCat c, std::string_view subject) {
  return std::string(prefix(c)) + std::string(subject) + (c == SpanCat::evaluation ? ")" : "");
}

std::string_view subject_of(SpanCat c, std::string_view name) {
  const std::string_view p = prefix(c);
  if (name.substr(0, p.size()) != p) return name;
  name.remove_prefix(p.size());
  if (c == SpanCat::evaluation && !name.empty() && name.back() == ')') name.remove_suffix(1);
  return name;
}

const FieldValue* Provenance::find(const Items& items, std::string_view key) {
  for (const auto& [k, v] : items)
    if (k == key) return &v;
  return nullptr;
}

Trace::Trace(std::string path, int rank, Provenance provenance)
    : path_(std::move(path)), rank_(rank), provenance_(std::move(provenance)) {}

void Trace::add(SpanCat cat, std::string_view subject, Clock::time_point t0, Clock::time_point t1, int tid,
                SpanArgs args) {
  Span s{.name = span_name(cat, subject), .cat = cat,
         .ts_us = std::chrono::duration<double, std::micro>(t0.time_since_epoch()).count(),
         .dur_us = std::chrono::duration<double, std::micro>(t1 - t0).count(), .tid = tid, .args = std::move(args)};
  std::lock_guard lock(mu_);
  spans_.push_back(std::move(s));
}

std::vector<Span> Trace::spans() const {
  std::lock_guard lock(mu_);
  return spans_;
}

void Trace::write() const {
  json::Json events = json::Json::array();
  add_rank_events(events, rank_, spans());
  write_document(path_, std::move(events), other_data("rank", rank_, provenance_), "--trace");
}

BucketObserver bucket_observer(Trace* trace) {
  if (!trace) return {};
  return [trace](const BucketSpan& b) {
    trace->add(SpanCat::allreduce, std::to_string(b.index), b.t0, b.t1, b.on_comm_thread ? kCommRow : kTrainRow,
               SpanArgs{{"bytes", (b.end - b.begin) * 4}, {"begin", b.begin}, {"end", b.end}});
  };
}

std::string trace_path_for_rank(const std::string& file, int rank, int ranks) {
  if (ranks <= 1) return file;
  const std::filesystem::path p(file);
  return (p.parent_path() / (p.stem().string() + fmt::format(".rank{}", rank) + p.extension().string())).string();
}

void merge(const std::vector<std::string>& inputs, const std::string& output) {
  SB_REQUIRE(!inputs.empty(), "trace merge: no input files");
  std::map<int, TraceFile> by_rank;
  for (const auto& in : inputs) {
    TraceFile t = read_trace_file(in, "trace merge");
    SB_REQUIRE(t.rank >= 0, "trace merge: {} has no otherData.rank (not written by train --trace, or cut short)", in);
    SB_REQUIRE(!by_rank.count(t.rank), "trace merge: rank {} given twice ({})", t.rank, in);
    by_rank[t.rank] = std::move(t);
  }
  json::Json events = json::Json::array();
  for (const auto& [rank, t] : by_rank) add_rank_events(events, rank, t.spans);
  write_document(output, std::move(events),
                 other_data("ranks", std::int64_t(by_rank.size()), by_rank.begin()->second.provenance), "trace merge");
}

}  // namespace scalebench::trace
