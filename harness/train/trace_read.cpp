// trace_read.cpp — read_trace_file: a `train --trace` rank file (or a merged one) back into spans,
// the one reader behind `trace merge` and `scalebench project` (see trace.h). It reads the exact
// one-event-per-line layout trace.cpp writes — header, metadata ("M") and complete ("X") events,
// footer with otherData (the rank, and the provenance's config and context lines) — and refuses
// anything else with the file and line, rather than guessing at other JSON.
#include <charconv>
#include <cmath>
#include <fstream>

#include "harness/train/trace.h"
#include "kernels/common/check.h"

namespace scalebench::trace {
namespace {

// A cursor over one event line; every method returns false on a mismatch and leaves the line bad.
struct Cursor {
  std::string_view s;
  bool ok = true;

  bool lit(std::string_view l) {
    if (ok && s.substr(0, l.size()) == l) s.remove_prefix(l.size());
    else ok = false;
    return ok;
  }
  std::string str() {  // a JSON string as json_string() writes it: \" \\ and \u00XX escapes
    std::string o;
    if (!lit("\"")) return o;
    while (!s.empty() && s.front() != '"') {
      char c = s.front();
      s.remove_prefix(1);
      if (c == '\\') {
        if (s.empty()) return ok = false, o;
        c = s.front();
        s.remove_prefix(1);
        if (c == 'u') {
          unsigned v = 0;
          if (s.size() < 4 || std::from_chars(s.data(), s.data() + 4, v, 16).ptr != s.data() + 4) return ok = false, o;
          s.remove_prefix(4);
          c = char(v);
        }
      }
      o += c;
    }
    lit("\"");
    return o;
  }
  template <class T>
  T num() {
    T v{};
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (!ok || r.ec != std::errc()) return ok = false, v;
    s.remove_prefix(std::size_t(r.ptr - s.data()));
    return v;
  }
  // A flat JSON object of strings and numbers as trace.cpp's json_object writes it: a number with
  // '.' or an exponent is a double, other numbers integers, strings strings.
  Provenance::Items object() {
    Provenance::Items items;
    if (!lit("{")) return items;
    if (ok && !s.empty() && s.front() == '}') return lit("}"), items;
    for (bool more = true; ok && more;) {
      std::string key = str();
      lit(": ");
      if (!ok || s.empty()) return ok = false, items;
      if (s.front() == '"') {
        items.emplace_back(std::move(key), str());
      } else {
        const std::string_view token = s.substr(0, s.find_first_of(",}"));
        if (token.find_first_of(".eE") == std::string_view::npos) items.emplace_back(std::move(key), num<std::int64_t>());
        else items.emplace_back(std::move(key), num<double>());
      }
      more = ok && !s.empty() && s.front() == ',';
      if (more) lit(", ");
    }
    lit("}");
    return items;
  }
  std::string_view until_end(std::string_view tail) {  // the rest before `tail` (and an optional ',')
    if (!s.empty() && s.back() == ',') s.remove_suffix(1);
    if (!ok || s.size() < tail.size() || s.substr(s.size() - tail.size()) != tail) return ok = false, std::string_view{};
    return s.substr(0, s.size() - tail.size());
  }
};

}  // namespace

std::optional<std::pair<std::int64_t, std::int64_t>> Span::elements() const {
  const auto field = [&](std::string_view key) -> std::optional<std::int64_t> {
    const std::string k = fmt::format("\"{}\": ", key);
    const auto at = args.find(k);
    if (at == std::string::npos) return std::nullopt;
    std::int64_t v = 0;
    const char* p = args.data() + at + k.size();
    if (std::from_chars(p, args.data() + args.size(), v).ec != std::errc()) return std::nullopt;
    return v;
  };
  const auto b = field("begin"), e = field("end");
  if (!b || !e) return std::nullopt;
  return std::pair{*b, *e};
}

TraceFile read_trace_file(const std::string& path, std::string_view who) {
  std::ifstream f(path);
  SB_REQUIRE(f.good(), "{}: cannot read {}", who, path);
  std::string line;
  std::getline(f, line);
  SB_REQUIRE(line == "{\"traceEvents\": [", "{}: {} is not a trace written by train --trace (first line)", who, path);
  TraceFile t;
  bool closed = false;
  for (int n = 2; std::getline(f, line); ++n) {
    if (closed) {
      if (line.rfind("\"otherData\": {\"rank\": ", 0) == 0) {
        Cursor c{line};
        c.lit("\"otherData\": {\"rank\": ");
        const int rank = c.num<int>();
        SB_REQUIRE(c.ok && rank >= 0, "{}: {} line {}: otherData.rank is not a rank", who, path, n);
        t.rank = rank;
        continue;
      }
      for (auto [name, items] : {std::pair{"config", &t.provenance.config}, {"context", &t.provenance.context}})
        if (const std::string key = fmt::format("\"{}\": ", name); line.rfind(key, 0) == 0) {
          Cursor c{line};
          c.lit(key);
          *items = c.object();
          SB_REQUIRE(c.ok, "{}: {} line {}: otherData.{} is not an object of strings and numbers", who, path, n, name);
        }
      continue;  // "displayTimeUnit", a merged file's "ranks", the closing brace
    }
    if (line == "],") {
      closed = true;
      continue;
    }
    Cursor c{line};
    c.lit("{\"name\": ");
    Span s;
    s.name = c.str();
    if (c.ok && c.s.substr(0, 11) == ", \"ph\": \"M\"") continue;  // names of processes and threads
    c.lit(", \"cat\": ");
    const std::string cat = c.str();
    const auto parsed = parse_cat(cat);
    SB_REQUIRE(!c.ok || parsed, "{}: {} line {}: unknown span category '{}'", who, path, n, cat);
    if (parsed) s.cat = *parsed;
    c.lit(", \"ph\": \"X\", \"ts\": ");
    s.ts_us = c.num<double>();
    c.lit(", \"dur\": ");
    s.dur_us = c.num<double>();
    c.lit(", \"pid\": ");
    c.num<int>();
    c.lit(", \"tid\": ");
    s.tid = c.num<int>();
    c.lit(", \"args\": {");
    s.args = std::string(c.until_end("}}"));
    SB_REQUIRE(c.ok, "{}: {} line {}: not an event as train --trace writes it: {}", who, path, n, line.substr(0, 80));
    t.spans.push_back(std::move(s));
  }
  SB_REQUIRE(closed, "{}: {} ends before its event list is closed (cut short?)", who, path);
  return t;
}

}  // namespace scalebench::trace
