// report_tuning.cpp — report's sections for a study with a target or a [select] (tuning.h): steps
// to target per configuration (olympic mean over its runs, their range, how many did not reach
// it) and, with a selection, every candidate of every cell with its score, the grid and the
// winner; compact (report.h): with a selection by steps to target, only its table (every
// configuration is a candidate there, scored by the same steps), so each figure is printed once.
// Reads only the study file's columns and /selection; computes nothing collect did not.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "harness/study/analysis/point_fields.h"
#include "harness/study/analysis/report.h"
#include "kernels/common/json.h"

namespace scalebench::study {
namespace {

// "412", "not reached" (+inf) or "-" (NaN).
std::string steps(double v) {
  if (std::isinf(v) && v > 0) return "not reached";
  return std::isfinite(v) ? fmt::format("{:.0f}", v) : "-";
}
std::string score(double v, const std::string& objective) {
  return objective == "steps_to_target" ? steps(v) : fixed(v, 3);
}
// A /selection row's eligibility; a study file from before the column existed: eligible.
bool eligible(const record::Table& sel, std::size_t r) {
  return !sel.find("eligible") || sel.integer("eligible", r) != 0;
}
json::Json json_steps(double v) { return std::isinf(v) && v > 0 ? json::Json("not reached") : json::number_or_null(v); }

// One row per configuration (config_id): its first row.
std::vector<std::size_t> configurations(const record::Table& t) {
  std::vector<std::size_t> out;
  std::map<std::string, bool> seen;
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (std::isfinite(t.num("target_value", r)) && !seen[t.str("config_id", r)]) {
      seen[t.str("config_id", r)] = true;
      out.push_back(r);
    }
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(t.integer("global_batch", a), t.integer("world_size", a)) <
           std::pair(t.integer("global_batch", b), t.integer("world_size", b));
  });
  return out;
}

std::vector<std::string> shown_keys(const record::Table& t) {
  std::vector<std::string> out;
  for (const std::string& k : varied_keys({&t}))
    if (k != "seed") out.push_back(k);
  return out;
}

}  // namespace

void add_report_tuning(const StudyFile& f, json::Json& doc) {
  const record::Table& t = f.runs;
  const record::Table& sel = f.selection;
  json::Json steps = json::Json::array(), candidates = json::Json::array();
  for (const std::size_t r : configurations(t))
    steps.push_back({{"configuration", row_label(t, r, shown_keys(t))}, {"global_batch", t.integer("global_batch", r)},
                     {"world_size", t.integer("world_size", r)}, {"target", json::number_or_null(t.num("target_value", r))},
                     {"target_metric", t.str("target_metric", r)}, {"runs", t.integer("config_runs", r)},
                     {"seeds", t.integer("config_seeds", r)}, {"not_reached", t.integer("target_not_reached", r)},
                     {"steps_olympic", json_steps(t.num("steps_to_target_olympic", r))},
                     {"steps_lo", json_steps(t.num("steps_to_target_lo", r))},
                     {"steps_hi", json_steps(t.num("steps_to_target_hi", r))}, {"selected", t.integer("selected", r) != 0}});
  for (std::size_t r = 0; r < sel.rows(); ++r)
    candidates.push_back({{"cell", sel.str("cell", r)}, {"global_batch", sel.integer("global_batch", r)},
                          {"grid", sel.str("grid", r)}, {"candidate", sel.str("candidate", r)},
                          {"score", json_steps(sel.num("score", r))}, {"score_lo", json_steps(sel.num("score_lo", r))},
                          {"score_hi", json_steps(sel.num("score_hi", r))}, {"runs", sel.integer("runs", r)},
                          {"not_reached", sel.integer("not_reached", r)}, {"not_ok", sel.integer("not_ok", r)},
                          {"eligible", eligible(sel, r)}, {"selected", sel.integer("selected", r) != 0}});
  doc["steps_to_target"] = std::move(steps);
  doc["selection"] = {{"objective", f.attrs.str("select_objective")}, {"tuned", f.attrs.str("select_tuned")},
                      {"candidates", std::move(candidates)}};
}

std::string report_tuning(const StudyFile& f, Format format, bool full) {
  const record::Table& t = f.runs;
  const auto rows = configurations(t);
  const record::Table& sel = f.selection;
  const std::string objective = f.attrs.str("select_objective");
  std::string out;
  const bool md = format == Format::markdown;
  if (!rows.empty() && (full || !sel.rows() || objective != "steps_to_target")) {
    out += fmt::format("\n{}steps to target ({} >= {}): the olympic mean over a configuration's ok runs (its seeds; "
                       "the lowest and highest dropped when there are 3 or more), [..] the lowest and highest run; a "
                       "run that did not reach the target counts as the highest\n",
                       md ? "### " : "== ", t.str("target_metric", rows[0]), t.str("target_value", rows[0]));
    if (md) out += "\n";
    TextTable tt;
    tt.header = {"configuration", "global batch", "runs", "seeds", "not reached", "steps to target", "range",
                 sel.rows() ? "selected" : "-"};
    if (!sel.rows()) tt.header.pop_back();
    const auto keys = shown_keys(t);
    for (std::size_t r : rows) {
      tt.rows.push_back({row_label(t, r, keys), std::to_string(t.integer("global_batch", r)),
                         std::to_string(t.integer("config_runs", r)), std::to_string(t.integer("config_seeds", r)),
                         std::to_string(t.integer("target_not_reached", r)), steps(t.num("steps_to_target_olympic", r)),
                         "[" + steps(t.num("steps_to_target_lo", r)) + ", " + steps(t.num("steps_to_target_hi", r)) + "]"});
      if (sel.rows()) tt.rows.back().push_back(t.integer("selected", r) ? "yes" : "");
    }
    out += render(tt, format);
  }
  if (sel.rows()) {
    out += fmt::format("\n{}selection: per cell, the eligible candidate with the best {} (olympic mean over its "
                       "runs) is selected; eligible: every run ended ok and as many runs as the cell's others; tuned "
                       "over {}\n",
                       md ? "### " : "== ", objective, f.attrs.str("select_tuned"));
    if (md) out += "\n";
    TextTable tt;
    tt.header = {"cell", "grid", "candidate", objective, "range", "runs", "not reached", "not ok", "selected"};
    for (std::size_t r = 0; r < sel.rows(); ++r)
      tt.rows.push_back({sel.str("cell", r), sel.str("grid", r), sel.str("candidate", r),
                         score(sel.num("score", r), objective),
                         "[" + score(sel.num("score_lo", r), objective) + ", " + score(sel.num("score_hi", r), objective) + "]",
                         std::to_string(sel.integer("runs", r)), std::to_string(sel.integer("not_reached", r)),
                         std::to_string(sel.integer("not_ok", r)),
                         sel.integer("selected", r) ? "WINNER" : eligible(sel, r) ? "" : "ineligible"});
    out += render(tt, format);
  }
  return out;
}

}  // namespace scalebench::study
