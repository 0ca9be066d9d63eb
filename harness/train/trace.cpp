// trace.cpp — the Chrome trace-event writer and `trace merge` (see trace.h). The files it writes
// hold one event per line; merge reads exactly that layout (files written by --trace), not JSON
// from other tools.
#include "harness/train/trace.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
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

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    SB_REQUIRE(f.good(), "--trace: cannot write {}", tmp);
    f << text;
    f.flush();
    SB_REQUIRE(f.good(), "--trace: cannot write {} (disk full?)", tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  SB_REQUIRE(!ec, "--trace: cannot rename {} to {}: {}", tmp, path, ec.message());
}

std::string metadata(int pid, std::string_view what, std::string_view value, int tid = 0) {
  return fmt::format("{{\"name\": \"{}\", \"ph\": \"M\", \"pid\": {}, \"tid\": {}, \"args\": {{\"name\": {}}}}}", what,
                     pid, tid, json_string(value));
}

}  // namespace

Trace::Trace(std::string path, int rank) : path_(std::move(path)), rank_(rank) {}

void Trace::add(std::string_view name, std::string_view cat, Clock::time_point t0, Clock::time_point t1, int tid,
                std::string args) {
  Span s{.name = std::string(name), .cat = std::string(cat), .ts_us = std::chrono::duration<double, std::micro>(t0.time_since_epoch()).count(),
         .dur_us = std::chrono::duration<double, std::micro>(t1 - t0).count(), .tid = tid, .args = std::move(args)};
  std::lock_guard lock(mu_);
  spans_.push_back(std::move(s));
}

std::vector<Span> Trace::spans() const {
  std::lock_guard lock(mu_);
  return spans_;
}

void Trace::write() const {
  std::ostringstream o;
  o << "{\"traceEvents\": [\n";
  o << metadata(rank_, "process_name", fmt::format("rank {}", rank_)) << ",\n";
  o << metadata(rank_, "thread_name", "training", kTrainRow) << ",\n";
  o << metadata(rank_, "thread_name", "communication", kCommRow);
  for (const Span& s : spans()) {
    o << ",\n"
      << fmt::format("{{\"name\": {}, \"cat\": {}, \"ph\": \"X\", \"ts\": {:.3f}, \"dur\": {:.3f}, \"pid\": {}, "
                     "\"tid\": {}, \"args\": {{{}}}}}",
                     json_string(s.name), json_string(s.cat), s.ts_us, s.dur_us, rank_, s.tid, s.args);
  }
  o << "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"rank\": " << rank_ << "}}\n";
  write_atomically(path_, o.str());
}

BucketObserver bucket_observer(Trace* trace) {
  if (!trace) return {};
  return [trace](const BucketSpan& b) {
    trace->add(fmt::format("allreduce bucket {}", b.index), "allreduce", b.t0, b.t1,
               b.on_comm_thread ? kCommRow : kTrainRow,
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
  static const std::regex rank_line(R"(^"otherData": \{"rank": (\d+)\}\}$)");
  std::map<int, std::vector<std::string>> by_rank;
  for (const auto& in : inputs) {
    std::ifstream f(in);
    SB_REQUIRE(f.good(), "trace merge: cannot read {}", in);
    std::string line;
    std::getline(f, line);
    SB_REQUIRE(line == "{\"traceEvents\": [", "trace merge: {} is not a trace written by train --trace (first line)", in);
    std::vector<std::string> events;
    int rank = -1;
    std::smatch m;
    while (std::getline(f, line)) {
      if (std::regex_match(line, m, rank_line)) rank = std::stoi(m[1]);
      else if (line.rfind("{\"name\": ", 0) == 0) events.push_back(line.back() == ',' ? line.substr(0, line.size() - 1) : line);
    }
    SB_REQUIRE(rank >= 0, "trace merge: {} has no otherData.rank (not written by train --trace, or cut short)", in);
    SB_REQUIRE(!by_rank.count(rank), "trace merge: rank {} given twice ({})", rank, in);
    by_rank[rank] = std::move(events);
  }
  std::ostringstream o;
  o << "{\"traceEvents\": [\n";
  bool first = true;
  for (const auto& [rank, events] : by_rank)
    for (const auto& e : events) o << (first ? "" : ",\n") << e, first = false;
  o << "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"ranks\": " << by_rank.size() << "}}\n";
  write_atomically(output, o.str());
}

}  // namespace scalebench::trace
