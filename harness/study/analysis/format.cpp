// format.cpp — text and Markdown tables, number cells (see format.h).
#include "harness/study/analysis/format.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

bool numeric(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789.-+%eE") == std::string::npos;
}

}  // namespace

Format parse_format(const std::string& s) {
  if (s == "text") return Format::text;
  if (s == "markdown") return Format::markdown;
  if (s == "json") return Format::json;
  fail_input(fmt::format("--format '{}' is unknown (text, markdown or json)", s));
}

std::string render(const TextTable& t, Format f) {
  const std::size_t nc = t.header.size();
  std::string out;
  // A column is right-aligned, header included, when every cell but the "-" placeholders is a number.
  std::vector<bool> right(nc, false);
  for (std::size_t c = 0; c < nc; ++c) {
    bool any = false, all = true;
    for (const auto& r : t.rows) {
      const std::string v = c < r.size() ? r[c] : "";
      if (v == "-") continue;
      any = true;
      all = all && numeric(v);
    }
    right[c] = any && all;
  }
  if (f == Format::markdown) {
    auto line = [&](const std::vector<std::string>& cells) {
      out += "|";
      for (std::size_t c = 0; c < nc; ++c) {
        std::string v = c < cells.size() ? cells[c] : "";
        std::replace(v.begin(), v.end(), '|', '/');
        out += " " + v + " |";
      }
      out += "\n";
    };
    line(t.header);
    out += "|";
    for (std::size_t c = 0; c < nc; ++c) out += right[c] ? " ---: |" : " --- |";
    out += "\n";
    for (const auto& r : t.rows) line(r);
    return out;
  }
  std::vector<std::size_t> w(nc, 0);
  for (std::size_t c = 0; c < nc; ++c) w[c] = t.header[c].size();
  for (const auto& r : t.rows)
    for (std::size_t c = 0; c < nc && c < r.size(); ++c) w[c] = std::max(w[c], r[c].size());
  auto line = [&](const std::vector<std::string>& cells, bool) {
    std::string l;
    for (std::size_t c = 0; c < nc; ++c) {
      const std::string v = c < cells.size() ? cells[c] : "";
      const std::size_t pad = w[c] - std::min(w[c], v.size());
      const bool right_here = right[c];
      l += (c ? "  " : "") + (right_here ? std::string(pad, ' ') + v : v + (c + 1 < nc ? std::string(pad, ' ') : ""));
    }
    out += l + "\n";
  };
  line(t.header, true);
  for (const auto& r : t.rows) line(r, false);
  return out;
}

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  return std::fabs(v) < 1e9 ? fmt::format("{:.{}f}", v, decimals) : fmt::format("{:.3g}", v);
}

std::string percent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "-";
  const double p = 100.0 * fraction;
  return std::fabs(p) < 1e5 ? fmt::format("{:.{}f}%", p, decimals) : fmt::format("{:.3g}%", p);
}

std::string signed_percent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "-";
  const double p = 100.0 * fraction;
  return std::fabs(p) < 1e5 ? fmt::format("{:+.{}f}%", p, decimals) : fmt::format("{:+.3g}%", p);
}

}  // namespace scalebench::study
