// commbench_coll_format.cpp — the text of commbench's --coll tables, in nccl-tests' layout so that
// tools and eyes used to all_reduce_perf & co. read them unchanged: the column widths of its
// header and lines (size, count, type, redop, root, then time algbw busbw #wrong out of place and
// in place), numbers squeezed into their columns as it does, and after each collective the two
// summary lines ("# Out of bounds values : N OK|FAILED", "# Avg bus bandwidth    : X") and
// "# Collective test concluded: NAME". The average is over every line half of the collective (all
// sizes and types, out of place and in place), as nccl-tests averages over one program's run.
// It deliberately prints no per-call spread (that is in the JSON, time_min_us/time_max_us).
#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "harness/comm/commbench.h"

namespace scalebench::comm {

namespace {

// `v` in `width` characters: two decimals if they fit, then one, then none, then exponent form.
std::string squeeze(double v, int width) {
  for (int dec = 2; dec >= 0; --dec) {
    std::string s = fmt::format("{:>{}.{}f}", v, width, dec);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return fmt::format("{:>{}.{}e}", v, width, width >= 7 ? 1 : 0);
}

std::string half_line(const CollRow& r) {
  return fmt::format("  {}  {}  {}  {:>6}", squeeze(r.time_us, 7), squeeze(r.algbw_gbps, 6), squeeze(r.busbw_gbps, 6),
                     r.wrong);
}

}  // namespace

void write_coll_header(std::ostream& out, const CommbenchReport& rep, Coll c) {
  const CollInfo& ci = coll_info(c);
  const auto& o = rep.opts;
  out << "#\n"
      << fmt::format("# scalebench commbench: {}  transport {}  ranks {}  nodes {}  warmup {}  iters {}{}\n", ci.name,
                     rep.transport, rep.ranks, rep.nodes, o.warmup, o.iters,
                     o.gap_ms > 0 ? fmt::format("  gap {} ms of compute before each call (not timed)", o.gap_ms)
                                  : std::string())
      << fmt::format("# time: max over ranks of the mean per call; algbw = size/time; busbw = algbw * {}; "
                     "#wrong: elements off their exact value, all ranks\n",
                     ci.formula)
      << "#\n"
      << fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          \n",
                     "", "", "", "", "")
      << fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n", "size",
                     "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong")
      << fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n", "(B)",
                     "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")
      << std::flush;
}

void write_coll_line(std::ostream& out, const CollRow& oop, const CollRow& ip) {
  const CollInfo& ci = coll_info(oop.coll);
  out << fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", oop.bytes, oop.count, comm_type_name(oop.type),
                     ci.reduces ? "sum" : "none", oop.root)
      << half_line(oop) << half_line(ip) << "\n"
      << std::flush;
}

double avg_busbw(const std::vector<CollRow>& rows) {
  double s = 0;
  for (const auto& r : rows) s += r.busbw_gbps;
  return rows.empty() ? 0 : s / double(rows.size());
}

void write_coll_summary(std::ostream& out, const std::vector<CollRow>& rows) {
  std::size_t wrong = 0;
  for (const auto& r : rows) wrong += r.wrong;
  out << fmt::format("# {:<20} : {} {}\n", "Out of bounds values", wrong, wrong ? "FAILED" : "OK")
      << fmt::format("# {:<20} : {:g} \n", "Avg bus bandwidth", avg_busbw(rows)) << "#\n"
      << fmt::format("# Collective test concluded: {}\n", rows.empty() ? "" : coll_info(rows[0].coll).name) << std::flush;
}

}  // namespace scalebench::comm
