// commbench_format.cpp — size-list parsing and the text/JSON output of commbench. No communication.
// The text table follows nccl-tests' layout (size, count, then per algorithm time / algbw / busbw /
// error) so people used to reading those tables can read this one; JSON (kernels/common/json.h)
// carries the same numbers, at fixed decimals (times to the nanosecond).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ostream>

#include "harness/comm/commbench.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"

namespace scalebench::comm {

namespace {

std::size_t parse_size(std::string_view s, std::string_view spec) {
  std::size_t i = 0;
  std::size_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    SB_REQUIRE(v < (std::size_t{1} << 50), "--sizes '{}': '{}' is too large", spec, s);
    v = v * 10 + static_cast<std::size_t>(s[i++] - '0');
  }
  SB_REQUIRE(i > 0, "--sizes '{}': '{}' is not a size (expected e.g. 4096, 4K, 256M, 1G)", spec, s);
  std::size_t mult = 1;
  if (i < s.size()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(s[i++])));
    mult = u == 'K' ? 1u << 10 : u == 'M' ? 1u << 20 : u == 'G' ? 1u << 30 : 0;
    if (i < s.size() && (s[i] == 'B' || s[i] == 'b')) ++i;  // "4KB" reads as 4K
    SB_REQUIRE(mult != 0 && i == s.size(), "--sizes '{}': '{}' has an unknown unit (use K, M or G)", spec, s);
  }
  SB_REQUIRE(v <= (std::size_t{1} << 40) / mult, "--sizes '{}': '{}' is larger than 1 TiB", spec, s);
  const std::size_t bytes = v * mult;
  SB_REQUIRE(bytes > 0, "--sizes '{}': sizes must be > 0", spec);
  SB_REQUIRE(bytes % sizeof(float) == 0, "--sizes '{}': {} bytes is not a whole number of floats", spec, bytes);
  return bytes;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) return out;
    s.remove_prefix(p + 1);
  }
}

}  // namespace

std::vector<std::size_t> parse_sizes(std::string_view spec) {
  SB_REQUIRE(!spec.empty(), "--sizes is empty (expected e.g. 4K:256M or 4K,1M)");
  std::vector<std::size_t> out;
  if (spec.find(':') != std::string_view::npos) {
    const auto parts = split(spec, ':');
    SB_REQUIRE(parts.size() <= 3, "--sizes '{}': expected LO:HI or LO:HI:FACTOR", spec);
    const std::size_t lo = parse_size(parts[0], spec), hi = parse_size(parts[1], spec);
    std::size_t factor = 2;
    if (parts.size() == 3) {
      factor = 0;
      for (char c : parts[2]) {
        SB_REQUIRE(std::isdigit(static_cast<unsigned char>(c)) && factor < 1000, "--sizes '{}': bad factor '{}'", spec, parts[2]);
        factor = factor * 10 + static_cast<std::size_t>(c - '0');
      }
      SB_REQUIRE(factor >= 2, "--sizes '{}': the factor must be an integer >= 2", spec);
    }
    SB_REQUIRE(lo <= hi, "--sizes '{}': the lower bound is above the upper bound", spec);
    for (std::size_t b = lo; b <= hi; b *= factor) {
      SB_REQUIRE(b % sizeof(float) == 0, "--sizes '{}': {} bytes is not a whole number of floats", spec, b);
      out.push_back(b);
    }
  } else {
    for (auto p : split(spec, ',')) out.push_back(parse_size(p, spec));
  }
  return out;
}

void write_table_header(std::ostream& out, const CommbenchReport& rep) {
  const auto& o = rep.opts;
  std::vector<std::string> hosts;  // distinct, in rank order
  for (const auto& h : rep.hostnames)
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  std::string host_list;
  for (std::size_t i = 0; i < hosts.size() && i < 4; ++i) host_list += (i ? "," : "") + hosts[i];
  if (hosts.size() > 4) host_list += fmt::format(",... ({} hosts)", hosts.size());
  out << fmt::format("# scalebench commbench: allreduce (sum, float32, in place)  transport {}  ranks {}  nodes {}  host {}\n",
                     rep.transport, rep.ranks, rep.nodes, host_list);
  out << fmt::format("# chunk {} B  depth {}  ranks_per_node {}  warmup {}  iters {}  spin {}{}\n", o.chunk_bytes, o.depth,
                     o.ranks_per_node == 0 ? std::string("by-host") : std::to_string(o.ranks_per_node), o.warmup, o.iters,
                     fmt::format("{} us", o.spin_us),
                     o.gap_ms > 0 ? fmt::format("  gap {} ms of compute before each call (not timed)", o.gap_ms) : std::string());
  out << "# time: max over ranks of the mean per call; algbw = bytes/time; busbw = algbw*2(n-1)/n; err: max |result - exact|\n";
  std::string l1 = fmt::format("#{:>11} {:>11}", "", ""), l2 = fmt::format("#{:>11} {:>11}", "size(B)", "count");
  for (const auto& a : o.algos) {
    l1 += fmt::format("  {:^44}", a);
    l2 += fmt::format("  {:>10} {:>11} {:>11} {:>9}", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "err");
  }
  const bool ratio = o.algos.size() > 1 && o.algos[0] == "native";
  for (std::size_t i = 1; ratio && i < o.algos.size(); ++i) l2 += fmt::format("  {:>10}", o.algos[i].substr(0, 4) + "/nat");
  out << l1 << "\n" << l2 << "\n";
}

void write_table_row(std::ostream& out, const CommbenchReport& rep, const std::vector<CommbenchRow>& same_size) {
  std::string line = fmt::format("{:>12} {:>11}", same_size.at(0).bytes, same_size[0].bytes / sizeof(float));
  for (const auto& r : same_size)
    line += fmt::format("  {:>10.1f} {:>11.3f} {:>11.3f} {:>9.3g}", r.time_us, r.algbw_gbps, r.busbw_gbps, r.max_abs_err);
  const bool ratio = same_size.size() > 1 && same_size[0].algo == "native" && same_size[0].algbw_gbps > 0;
  for (std::size_t i = 1; ratio && i < same_size.size(); ++i)
    line += fmt::format("  {:>10.2f}", same_size[i].algbw_gbps / same_size[0].algbw_gbps);
  out << line << "\n" << std::flush;
}

void write_agreement(std::ostream& out, const CommbenchReport& rep) {
  out << fmt::format("# agreement (a training step's one scalar collective: an allgather of {} bytes a rank): {:.1f} us\n",
                     Communicator::kAgreeBytes, rep.agree_us)
      << std::flush;
}

std::string to_json(const CommbenchReport& rep) {
  using json::rounded;
  const auto& o = rep.opts;
  json::Json doc = {{"benchmark", "allreduce"}, {"transport", rep.transport}, {"ranks", rep.ranks}, {"nodes", rep.nodes},
                    {"hostnames", rep.hostnames}, {"chunk_bytes", o.chunk_bytes}, {"depth", o.depth},
                    {"ranks_per_node", o.ranks_per_node}, {"warmup", o.warmup}, {"iters", o.iters},
                    {"spin_us", o.spin_us}, {"gap_ms", o.gap_ms}, {"agree_us", rounded(rep.agree_us, 3)},
                    {"busbw_factor", "2(n-1)/n"}, {"results", json::Json::array()}};
  for (const auto& r : rep.rows) {
    json::Json row = {{"algo", r.algo}, {"bytes", r.bytes}, {"count", r.bytes / sizeof(float)},
                      {"time_us", rounded(r.time_us, 3)}, {"algbw_GBps", rounded(r.algbw_gbps, 6)},
                      {"busbw_GBps", rounded(r.busbw_gbps, 6)}, {"max_abs_err", json::number_or_null(r.max_abs_err)},
                      {"cpu_us", rounded(r.cpu_us, 3)}, {"time_min_us", rounded(r.time_min_us, 3)},
                      {"time_max_us", rounded(r.time_max_us, 3)}};
    if (!r.step_us.empty()) {
      json::Json& steps = row["step_us"] = json::Json::array();
      for (double v : r.step_us) steps.push_back(rounded(v, 2));
    }
    doc["results"].push_back(std::move(row));
  }
  // The --coll tables: one object per line half; busbw_factor and the per-collective average as printed.
  doc["collectives"] = json::Json::array();
  json::Json avg = json::Json::object();
  for (Coll c : o.colls) {
    std::vector<CollRow> of_c;
    for (const auto& r : rep.coll_rows)
      if (r.coll == c) of_c.push_back(r);
    if (!of_c.empty()) avg[std::string(coll_info(c).name)] = rounded(avg_busbw(of_c), 6);
  }
  for (const auto& r : rep.coll_rows) {
    const CollInfo& ci = coll_info(r.coll);
    doc["collectives"].push_back(json::Json{
        {"collective", std::string(ci.name)}, {"type", std::string(comm_type_name(r.type))}, {"redop", ci.reduces ? "sum" : "none"},
        {"root", r.root}, {"in_place", r.in_place}, {"bytes", r.bytes}, {"count", r.count},
        {"time_us", rounded(r.time_us, 3)}, {"time_min_us", rounded(r.time_min_us, 3)},
        {"time_max_us", rounded(r.time_max_us, 3)}, {"algbw_GBps", rounded(r.algbw_gbps, 6)},
        {"busbw_GBps", rounded(r.busbw_gbps, 6)}, {"busbw_factor", std::string(ci.formula)}, {"wrong", r.wrong}});
  }
  doc["avg_busbw_GBps"] = std::move(avg);
  return json::layout(doc);
}

}  // namespace scalebench::comm
