// consistency.cpp — check_same_everywhere (see consistency.h). Rank 0's text is the reference,
// because rank 0 is the rank that writes the result file.
#include "harness/comm/consistency.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/common/check.h"

namespace scalebench::comm {

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::vector<std::string_view> lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto nl = s.find('\n');
    out.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "rank 2 has `batch = 16` where rank 0 has `batch = 8` (field batch)".
std::string first_difference(std::string_view ref, std::string_view other, int r) {
  const auto a = lines(ref), b = lines(other);
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string_view la = i < a.size() ? a[i] : "<missing>", lb = i < b.size() ? b[i] : "<missing>";
    if (la == lb) continue;
    std::string field;
    const std::string_view keyed = i < a.size() ? la : lb;
    if (const auto eq = keyed.find('='); eq != std::string_view::npos) field = fmt::format(" (field {})", trim(keyed.substr(0, eq)));
    return fmt::format("rank {} has '{}' where rank 0 has '{}'{}", r, lb, la, field);
  }
  return fmt::format("rank {} differs from rank 0", r);
}

}  // namespace

void check_same_everywhere(Communicator& comm, std::string_view what, std::string_view text) {
  const std::uint64_t mine = fnv1a(text);
  const auto digests = comm.allgather(std::string_view(reinterpret_cast<const char*>(&mine), sizeof(mine)));
  bool same = true;
  for (const auto& d : digests) same = same && d == digests[0];
  if (same) return;
  const auto texts = comm.allgather(text);  // everyone takes this branch: they all saw the same digests
  std::vector<std::string> diffs;
  std::string ranks;
  for (int r = 1; r < comm.size(); ++r) {
    if (texts[static_cast<std::size_t>(r)] == texts[0]) continue;
    ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    diffs.push_back(first_difference(texts[0], texts[static_cast<std::size_t>(r)], r));
  }
  std::string detail;
  for (const auto& d : diffs) detail += "; " + d;
  // Every rank computed the same texts, so the same message: printed once.
  fail_everywhere(comm, fmt::format("{} differs across ranks: rank(s) {} disagree with rank 0{}", what, ranks, detail));
}

void succeed_everywhere(Communicator& comm, const std::function<void()>& check) {
  std::string mine;
  try {
    check();
  } catch (const ReportedError&) {
    throw;  // already collective
  } catch (const Error& e) {
    mine = e.what();
    if (mine.empty()) mine = "(an error without a message)";
  }
  const auto all = comm.allgather(mine);  // every rank reaches this, failed or not
  // Each distinct reason once, in rank order, with the ranks that gave it.
  std::vector<std::pair<std::string, std::vector<int>>> reasons;
  int failed = 0;
  for (int r = 0; r < comm.size(); ++r) {
    const std::string& text = all[static_cast<std::size_t>(r)];
    if (text.empty()) continue;
    ++failed;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& x) { return x.first == text; });
    if (it == reasons.end()) reasons.push_back({text, {r}});
    else it->second.push_back(r);
  }
  if (failed == 0) return;
  std::string msg;
  for (const auto& [text, ranks] : reasons) {
    if (!msg.empty()) msg += "; ";
    if (failed < comm.size() || reasons.size() > 1) msg += fmt::format("rank(s) {}: ", fmt::join(ranks, ", "));
    msg += text;
  }
  fail_everywhere(comm, msg);
}

void fail_everywhere(Communicator& comm, const std::string& msg) {
  if (comm.rank() == 0) {
    std::string line;
    for (const char c : msg) line += c == '\n' ? std::string("\\n") : std::string(1, c);  // one line
    std::fflush(stdout);
    std::fprintf(stderr, "scalebench: error: %s\n", line.c_str());
    std::fflush(stderr);
  }
  // No rank leaves before rank 0's line is out: a rank that exits non-zero first makes mpirun (or
  // srun's kill-on-bad-exit) end the job, rank 0 included, before it could print.
  comm.allgather("");
  throw ReportedError(msg);
}

}  // namespace scalebench::comm
