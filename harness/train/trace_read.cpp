// trace_read.cpp — read_trace_file: a `train --trace` rank file (or a merged one) back into spans,
// the one reader behind `trace merge` and `scalebench project` (see trace.h). It parses the file
// as JSON (kernels/common/json.h) and reads what trace.cpp writes by name — metadata ("M") events
// skipped, complete ("X") events as spans, otherData's rank and the provenance's config and context
// — and refuses anything else with the file and the member, rather than guessing at other JSON.
#include "harness/train/trace.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"
#include "kernels/common/read_file.h"

namespace scalebench::trace {
namespace {

// otherData.config or .context: an object of strings, integers and doubles (a number with '.' or
// an exponent, as trace.cpp writes every double).
Provenance::Items provenance_items(const json::Value& object) {
  Provenance::Items items;
  for (const auto& [key, v] : object.members()) {
    if (v.raw().is_string()) items.emplace_back(key, v.string());
    else if (v.raw().is_number_integer()) items.emplace_back(key, v.integer());
    else if (v.raw().is_number_float()) items.emplace_back(key, v.number());
    else v.fail(fmt::format("is {}, expected a string or a number", v.raw().type_name()));
  }
  return items;
}

Span span_of(const json::Value& e) {
  Span s;
  s.name = e["name"].string();
  const json::Value cat = e["cat"];
  const auto parsed = parse_cat(cat.string());
  if (!parsed) cat.fail(fmt::format("is '{}', not a span category", cat.string()));
  s.cat = *parsed;
  s.ts_us = e["ts"].number();
  s.dur_us = e["dur"].number();
  e["pid"].integer();
  s.tid = int(e["tid"].integer());
  for (const auto& [key, v] : e["args"].members()) s.args.emplace_back(key, v.integer());
  return s;
}

}  // namespace

std::optional<std::pair<std::int64_t, std::int64_t>> Span::elements() const {
  const auto field = [&](std::string_view key) -> std::optional<std::int64_t> {
    for (const auto& [k, v] : args)
      if (k == key) return v;
    return std::nullopt;
  };
  const auto b = field("begin"), e = field("end");
  if (!b || !e) return std::nullopt;
  return std::pair{*b, *e};
}

TraceFile read_trace_file(const std::string& path, std::string_view who) {
  const std::string text = read_text_file(path, fmt::format("{}: cannot read {}", who, path));
  const std::string not_ours = fmt::format("{}: {} is not a trace written by train --trace", who, path);
  const json::Json doc = json::parse(text, not_ours);
  SB_REQUIRE(doc.is_object() && doc.contains("traceEvents"), "{} (no traceEvents)", not_ours);
  const json::Value top(doc, fmt::format("{}: {}", who, path));
  TraceFile t;
  for (const json::Value& e : top["traceEvents"].elements()) {
    const json::Value ph = e["ph"];
    if (ph.string() == "M") continue;  // names of processes and threads
    if (ph.string() != "X") ph.fail(fmt::format("is '{}': train --trace writes only complete (X) events", ph.string()));
    t.spans.push_back(span_of(e));
  }
  if (const auto other = top.find("otherData")) {
    if (const auto rank = other->find("rank")) {
      t.rank = int(rank->integer());
      if (t.rank < 0) rank->fail("is not a rank");
    }
    if (const auto config = other->find("config")) t.provenance.config = provenance_items(*config);
    if (const auto context = other->find("context")) t.provenance.context = provenance_items(*context);
  }
  return t;
}

}  // namespace scalebench::trace
