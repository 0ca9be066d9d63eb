// report.cpp — study tables per model × strategy (see report.h).
#include "harness/study/analysis/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "harness/record/host_fingerprint.h"
#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/noise_text.h"
#include "harness/study/analysis/metric_table.h"
#include "harness/study/analysis/point_fields.h"
#include "harness/study/analysis/point_stats.h"
#include "harness/study/analysis/stats.h"
#include "harness/strategy/strategy_traits.h"
#include "kernels/common/json.h"

namespace scalebench::study {
namespace {

struct Group {
  std::string model, strategy;
  std::string series;  // the swept fields besides N: "compression=bf16 bucket_mb=1" ("" when none)
  std::vector<PointRows> points;
};

// One table per model × strategy × value of every other swept field (point_fields.h); in strong
// scaling the per-device batch changes with N inside a table, so it does not split tables.
std::vector<Group> groups_of(const record::Table& t) {
  std::vector<Group> gs;
  const std::vector<std::string> varied = varied_keys({&t});
  for (const PointRows& p : group_points(t)) {
    const std::size_t r = p.rows.front();
    const std::string model = t.str("model", r), strategy = t.str("strategy", r);
    std::string series;
    for (const std::string& k : varied)
      if (k != "batch" || t.str("scaling", r) != "strong")
        series += fmt::format("{}{}={}", series.empty() ? "" : " ", k, t.str(k, r));
    auto it = std::find_if(gs.begin(), gs.end(), [&](const Group& g) {
      return g.model == model && g.strategy == strategy && g.series == series;
    });
    if (it == gs.end()) it = gs.insert(gs.end(), Group{model, strategy, series, {}});
    it->points.push_back(p);
  }
  // A strategy's row in kStrategies (DESIGN §4's order); names no row knows after every known one.
  const auto rank = [](const std::string& s) {
    const auto k = find_enum<StrategyKind>(s);
    return k ? std::size_t(*k) : kStrategies.size();
  };
  // Models by name (the study table's row order follows run-id hashes, which mean nothing to a
  // reader), strategies in the order of DESIGN §4.
  std::stable_sort(gs.begin(), gs.end(), [&](const Group& a, const Group& b) {
    return std::tuple(a.model, rank(a.strategy), a.series) < std::tuple(b.model, rank(b.strategy), b.series);
  });
  for (auto& g : gs)
    std::stable_sort(g.points.begin(), g.points.end(), [&](const PointRows& a, const PointRows& b) {
      return std::pair(t.integer("world_size", a.rows[0]), t.integer("global_batch", a.rows[0])) <
             std::pair(t.integer("world_size", b.rows[0]), t.integer("global_batch", b.rows[0]));
    });
  return gs;
}

// Errors up to this many characters stay in the text table's status column; longer ones are
// numbered there and printed in full under the table.
constexpr std::size_t kInlineError = 60;

// A point's status: "ok", or the last not-ok row's status and error when none is ok.
std::pair<std::string, std::string> status_of(const record::Table& t, const PointRows& p) {
  if (!p.ok_rows.empty()) return {"ok", ""};
  const std::size_t r = p.rows.back();
  std::string status = t.str("status", r);
  if (const auto done = t.integer("epochs_done", r); done > 0)
    status += fmt::format(" ({}/{} epochs)", done, t.integer("epochs", r));  // what a killed run kept
  return {status, t.str("error", r)};
}

// Where and from what the numbers come: hosts, processors, the code, when, the file's schema.
std::vector<std::pair<std::string, std::string>> provenance(const StudyFile& f) {
  const record::Table& t = f.runs;
  std::string first, last;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const std::string c = t.str("created_utc", r);
    if (c.empty()) continue;
    if (first.empty() || c < first) first = c;
    if (last.empty() || c > last) last = c;
  }
  std::string commit = distinct_values(t, "git_sha");
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (t.integer("git_dirty", r)) {
      commit += " (uncommitted changes)";
      break;
    }
  return {{"hosts", distinct_values(t, "hostnames")},
          {"cpu", distinct_values(t, "cpu_model")},
          {"gpus", distinct_values(t, "gpu_names")},
          {"fingerprint", distinct_values(t, record::kHostFingerprintKey)},  // the machine type (compare)
          {"commit", commit + ", " + distinct_values(t, "scalebench_version")},
          {"runs", first.empty() ? "-" : first + " .. " + last},
          {"collected", f.attrs.str("created_utc") + ", schema " + f.attrs.str("schema_version") + ", " +
                            f.attrs.str("writer")}};
}

// "[a, b]" from a point's <column>_ci_lo/_hi (collect, point_stats.h); "-" when unbounded.
std::string interval(const record::Table& t, const PointRows& p, const std::string& column, double scale, int decimals) {
  const std::size_t r = p.rows.front();
  const double lo = t.num(column + "_ci_lo", r), hi = t.num(column + "_ci_hi", r);
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "-";
  return "[" + fixed(lo * scale, decimals) + ", " + fixed(hi * scale, decimals) + "]";
}

std::string count(std::int64_t v) { return v > 0 ? std::to_string(v) : "-"; }
std::string general(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

std::string report_json(const StudyFile& f, const std::vector<Group>& groups) {
  using json::number_or_null;
  const record::Table& t = f.runs;
  json::Json provenance_members = json::Json::object();
  for (const auto& [k, v] : provenance(f)) provenance_members[k] = v;
  json::Json doc = {{"study", f.attrs.str("study")}, {"provenance", std::move(provenance_members)},
                    {"runs_duplicate", f.attrs.integer("runs_duplicate")},
                    {"runs_other_data", f.attrs.integer("runs_other_data")}, {"tables", json::Json::array()}};
  for (const Group& gr : groups) {
    json::Json points = json::Json::array();
    for (const PointRows& p : gr.points) {
      const std::size_t r = p.rows.front();
      const auto [status, error] = status_of(t, p);
      json::Json point = {{"devices", t.integer("world_size", r)}, {"global_batch", t.integer("global_batch", r)},
                          {"lr", number_or_null(t.num("lr_effective", r))},
                          {"steps_per_epoch", t.integer("steps_per_epoch", r)}};
      for (const Metric& m : metric_table()) point[m.name] = number_or_null(point_median(t, p, m.name));
      for (const std::string c : {"images_per_s", "epoch_time_s", "speedup", "efficiency"}) {
        point[c + "_ci_lo"] = number_or_null(t.num(c + "_ci_lo", r));
        point[c + "_ci_hi"] = number_or_null(t.num(c + "_ci_hi", r));
      }
      point["flags"] = t.str("flags", r);
      point["ran_under"] = ran_under(t, p.rows);
      point["speedup_baseline"] = t.str("baseline", r);
      point["baseline_images_per_s"] = number_or_null(t.num("baseline_images_per_s", r));
      point["runs"] = p.rows.size();
      point["runs_ok"] = p.ok_rows.size();
      point["status"] = status;
      point["error"] = error;
      points.push_back(std::move(point));
    }
    doc["tables"].push_back({{"model", gr.model}, {"strategy", gr.strategy}, {"series", gr.series},
                             {"scaling", t.str("scaling", gr.points[0].rows[0])}, {"points", std::move(points)}});
  }
  add_report_tuning(f, doc);
  return json::layout(doc);
}

}  // namespace

std::string report(const StudyFile& f, Format format) {
  const record::Table& t = f.runs;
  const auto groups = groups_of(t);
  const auto med = [&](const PointRows& p, const std::string& c) { return point_median(t, p, c); };
  if (format == Format::json) return report_json(f, groups);
  std::string out;
  std::int64_t ok = 0;
  for (std::size_t r = 0; r < t.rows(); ++r) ok += t.str("status", r) == "ok";
  // What collect left out (run_filter.h): a reader of the report alone must see it too.
  const std::int64_t copies = f.attrs.integer("runs_duplicate"), other = f.attrs.integer("runs_other_data");
  out += fmt::format("{}study {}: {} runs, {} ok{}{}\n", format == Format::markdown ? "## " : "", f.attrs.str("study"),
                     t.rows(), ok, copies ? fmt::format("; {} copies of these runs dropped", copies) : "",
                     other ? fmt::format("; {} runs on other data left out", other) : "");
  if (format == Format::markdown) out += "\n";
  for (const auto& [k, v] : provenance(f))
    out += format == Format::markdown ? fmt::format("- {}: {}\n", k, v) : fmt::format("  {:<10} {}\n", k, v);
  out += fmt::format("{}values are medians over a point's ok repetitions, [..] their 95% intervals (- below 6 "
                     "repetitions for images/s; speedup and efficiency from both points' repetitions); speedup is "
                     "images/s over the median images/s of the N=1 runs named under \"vs\"\n",
                     format == Format::markdown ? "\n" : "");
  for (const auto& [flag, rule] : kFlagRules)
    out += fmt::format("{}flag {}: {}\n", format == Format::markdown ? "- " : "  ", flag, rule);
  for (const Group& g : groups) {
    const std::size_t r0 = g.points[0].rows[0];
    const bool seg = t.str("task", r0) != "classification";
    out += fmt::format("\n{}{} - {}{} ({} scaling)\n", format == Format::markdown ? "### " : "== ", g.model, g.strategy,
                       g.series.empty() ? "" : " - " + g.series, t.str("scaling", r0));
    if (format == Format::markdown) out += "\n";
    TextTable tt;
    tt.header = {"N", "global batch", "LR", "steps/epoch", "epoch s", "images/s", "95%", "speedup", "vs", "efficiency",
                 "95% (%)", "TFLOP/s", "MFU", "comm exposed", "val loss", seg ? "mIoU" : "accuracy", "runs", "flags",
                 "status"};
    // A long error (an MPI rank's message with its source location, say) goes under the table in
    // full, numbered, instead of being cut to fit the column: the end is often the part that says why.
    std::vector<std::string> notes;
    for (const PointRows& p : g.points) {
      const std::size_t r = p.rows.front();
      auto [status, error] = status_of(t, p);
      if (!error.empty() && (format != Format::text || error.size() <= kInlineError)) {
        status += ": " + error;
      } else if (!error.empty()) {
        auto same = std::find(notes.begin(), notes.end(), error);
        if (same == notes.end()) same = notes.insert(notes.end(), error);
        status += fmt::format(" [{}]", same - notes.begin() + 1);
      }
      tt.rows.push_back({std::to_string(t.integer("world_size", r)), std::to_string(t.integer("global_batch", r)),
                         general(t.num("lr_effective", r)), count(t.integer("steps_per_epoch", r)),
                         fixed(med(p, "epoch_time_s"), 3), fixed(med(p, "images_per_s"), 1),
                         interval(t, p, "images_per_s", 1, 1), fixed(med(p, "speedup"), 2),
                         t.str("baseline", r).empty() ? "-" : t.str("baseline", r), percent(med(p, "efficiency"), 1),
                         interval(t, p, "efficiency", 100, 1), fixed(med(p, "tflops"), 4), percent(med(p, "mfu"), 1),
                         percent(med(p, "exposed_comm_frac"), 1), fixed(med(p, "final_val_loss"), 4),
                         fixed(med(p, seg ? "final_val_miou" : "final_val_accuracy"), 3),
                         fmt::format("{}/{}", p.ok_rows.size(), p.rows.size()),
                         t.str("flags", r).empty() ? "-" : t.str("flags", r), status});
    }
    out += render(tt, format);
    for (std::size_t i = 0; i < notes.size(); ++i) out += fmt::format("  [{}] {}\n", i + 1, notes[i]);
    // What a noisy point's runs ran under (record/run_noise.h): load, others' CPU, steal, clock.
    for (const PointRows& p : g.points)
      if (const std::size_t r = p.rows.front(); t.str("flags", r).find("noisy") != std::string::npos)
        if (const std::string n = ran_under(t, p.rows); !n.empty())
          out += fmt::format("{}noisy N={}: ran under {}\n", format == Format::markdown ? "- " : "  ",
                             t.integer("world_size", r), n);
  }
  return out + report_tuning(f, format);
}

}  // namespace scalebench::study
