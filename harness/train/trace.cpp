// trace.cpp — the span vocabulary, the Chrome trace-event writer and `trace merge` (see trace.h).
// Every event is one line; trace_read.cpp reads exactly that layout back. Not here: parsing.
#include "harness/train/trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kernels/common/check.h"

namespace scalebench::trace {
namespace {

std::string json_string(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) o += fmt::format("\\u{:04x}", int(c));
    else o += c;
  }
  return o + "\"";
}

void write_atomically(const std::string& path, const std::string& text, std::string_view who) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    SB_REQUIRE(f.good(), "{}: cannot write {}", who, tmp);
    f << text;
    f.flush();
    SB_REQUIRE(f.good(), "{}: cannot write {} (disk full?)", who, tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  SB_REQUIRE(!ec, "{}: cannot rename {} to {}: {}", who, tmp, path, ec.message());
}

std::string metadata(int pid, std::string_view what, std::string_view value, int tid = 0) {
  return fmt::format("{{\"name\": \"{}\", \"ph\": \"M\", \"pid\": {}, \"tid\": {}, \"args\": {{\"name\": {}}}}}", what,
                     pid, tid, json_string(value));
}

// One rank's events as lines joined by ",\n": the process and thread names, then every span.
std::string rank_events(int rank, const std::vector<Span>& spans) {
  std::string o = metadata(rank, "process_name", fmt::format("rank {}", rank)) + ",\n" +
                  metadata(rank, "thread_name", "training", kTrainRow) + ",\n" +
                  metadata(rank, "thread_name", "communication", kCommRow);
  for (const Span& s : spans)
    o += fmt::format(",\n{{\"name\": {}, \"cat\": \"{}\", \"ph\": \"X\", \"ts\": {:.3f}, \"dur\": {:.3f}, \"pid\": {}, "
                     "\"tid\": {}, \"args\": {{{}}}}}",
                     json_string(s.name), cat_name(s.cat), s.ts_us, s.dur_us, rank, s.tid, s.args);
  return o;
}

// A provenance value as trace.h's Provenance says: a double always with '.' or an exponent (so it
// reads back as a double), a non-finite one as a string (JSON has no NaN).
std::string json_value(const FieldValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d)) return json_string(std::isnan(*d) ? "nan" : *d > 0 ? "inf" : "-inf");
    std::string t = fmt::format("{}", *d);
    if (t.find_first_of(".eE") == std::string::npos) t += ".0";
    return t;
  }
  return json_string(std::get<std::string>(v));
}

std::string json_object(const Provenance::Items& items) {
  std::string o = "{";
  for (const auto& [k, v] : items) o += (o.size() > 1 ? ", " : "") + json_string(k) + ": " + json_value(v);
  return o + "}";
}

// otherData's members after the rank (or ranks): a line each for config and context, or nothing.
std::string provenance_members(const Provenance& p) {
  if (p.empty()) return "";
  return ",\n\"config\": " + json_object(p.config) + ",\n\"context\": " + json_object(p.context);
}

std::string document(const std::string& events, std::string_view other_data) {
  return "{\"traceEvents\": [\n" + events + "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": {" +
         std::string(other_data) + "}}\n";
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
                std::string args) {
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
  write_atomically(path_,
                   document(rank_events(rank_, spans()), fmt::format("\"rank\": {}", rank_) + provenance_members(provenance_)),
                   "--trace");
}

BucketObserver bucket_observer(Trace* trace) {
  if (!trace) return {};
  return [trace](const BucketSpan& b) {
    trace->add(SpanCat::allreduce, std::to_string(b.index), b.t0, b.t1, b.on_comm_thread ? kCommRow : kTrainRow,
               fmt::format("\"bytes\": {}, \"begin\": {}, \"end\": {}", (b.end - b.begin) * 4, b.begin, b.end));
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
  std::string events;
  for (const auto& [rank, t] : by_rank) events += (events.empty() ? "" : ",\n") + rank_events(rank, t.spans);
  write_atomically(output,
                   document(events, fmt::format("\"ranks\": {}", by_rank.size()) +
                                        provenance_members(by_rank.begin()->second.provenance)),
                   "trace merge");
}

}  // namespace scalebench::trace
