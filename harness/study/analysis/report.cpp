// report.cpp — study tables per model × strategy, or one compact table of a swept study (see report.h).
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

// The commit a run's numbers come from: the checkout's HEAD where the binary ran inside one
// (git_sha), else the commit it was built from (git_sha_build, configure time: an installed or
// copied binary records git_sha "unknown"); "" when neither is known (an older study file).
std::string run_commit(const record::Table& t, std::size_t r) {
  const std::string head = t.str("git_sha", r), build = t.str("git_sha_build", r);
  if (!head.empty() && head != "unknown") return head + (t.str("git_dirty", r) == "true" ? " (uncommitted changes)" : "");
  if (!build.empty() && build != "unknown") return build + " (build)";
  return "";
}

// The runs' commit; when they disagree, each with its run count, so a reader sees the mix.
std::string commit_of(const record::Table& t) {
  std::vector<std::pair<std::string, int>> seen;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const std::string c = run_commit(t, r);
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& x) { return x.first == c; });
    if (it == seen.end()) seen.push_back({c, 1});
    else ++it->second;
  }
  const auto name = [](const std::string& c) { return c.empty() ? std::string("unknown") : c; };
  if (seen.size() == 1) return name(seen[0].first);
  std::string s = "runs disagree:";
  for (std::size_t i = 0; i < seen.size(); ++i)
    s += fmt::format("{} {} ({} run{})", i ? "," : "", name(seen[i].first), seen[i].second, seen[i].second == 1 ? "" : "s");
  return s;
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
  return {{"hosts", distinct_values(t, "hostnames")},
          {"cpu", distinct_values(t, "cpu_model")},
          {"gpus", distinct_values(t, "gpu_names")},
          {"fingerprint", distinct_values(t, record::kHostFingerprintKey)},  // the machine type (compare)
          {"commit", commit_of(t) + ", " + distinct_values(t, "scalebench_version")},
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

// A point's status cell: a short error inline; a long one (an MPI rank's message with its source
// location, say) numbered in text and appended to `notes` to go under the table in full, instead of
// being cut to fit the column: the end is often the part that says why.
std::string status_cell(const record::Table& t, const PointRows& p, Format format, std::vector<std::string>& notes) {
  auto [status, error] = status_of(t, p);
  if (!error.empty() && (format != Format::text || error.size() <= kInlineError)) {
    status += ": " + error;
  } else if (!error.empty()) {
    auto same = std::find(notes.begin(), notes.end(), error);
    if (same == notes.end()) same = notes.insert(notes.end(), error);
    status += fmt::format(" [{}]", same - notes.begin() + 1);
  }
  return status;
}

// The swept fields a compact table shows as columns: varied_keys less the per-device batch in a
// strong-scaling study (it follows from N there; the global batch is a column of its own).
std::vector<std::string> swept_fields(const record::Table& t) {
  bool strong = t.rows() > 0;
  for (std::size_t r = 0; r < t.rows(); ++r) strong = strong && t.str("scaling", r) == "strong";
  std::vector<std::string> out;
  for (const std::string& k : varied_keys({&t}))
    if (k != "batch" || !strong) out.push_back(k);
  return out;
}

std::string count(std::int64_t v) { return v > 0 ? std::to_string(v) : "-"; }
std::string general(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

// A swept study's points in one table, the swept fields as columns and each figure once: the
// columns a reader compares across points (report.h says which; --full gives the rest).
std::string compact_table(const record::Table& t, const std::vector<Group>& groups, Format format) {
  const std::vector<std::string> swept = swept_fields(t);
  std::vector<std::string> models, tasks;
  for (const Group& g : groups)
    for (const PointRows& p : g.points) {
      const std::size_t r = p.rows.front();
      if (std::find(models.begin(), models.end(), t.str("model", r)) == models.end()) models.push_back(t.str("model", r));
      if (std::find(tasks.begin(), tasks.end(), t.str("task", r)) == tasks.end()) tasks.push_back(t.str("task", r));
    }
  const bool all_cls = tasks == std::vector<std::string>{"classification"};
  const bool mixed = tasks.size() > 1;
  TextTable tt;
  if (models.size() > 1) tt.header.push_back("model");
  tt.header.insert(tt.header.end(), {"strategy", "N"});
  tt.header.insert(tt.header.end(), swept.begin(), swept.end());
  tt.header.insert(tt.header.end(), {"global batch", "images/s", "95%", "speedup", "efficiency", "95% (%)",
                                     mixed ? "mIoU/accuracy" : all_cls ? "accuracy" : "mIoU", "runs", "flags", "status"});
  std::vector<std::string> notes, noisy;
  for (const Group& g : groups)
    for (const PointRows& p : g.points) {
      const std::size_t r = p.rows.front();
      std::vector<std::string> row;
      if (models.size() > 1) row.push_back(g.model);
      row.insert(row.end(), {g.strategy, std::to_string(t.integer("world_size", r))});
      for (const std::string& k : swept) row.push_back(t.str(k, r).empty() ? "-" : t.str(k, r));
      const bool seg = t.str("task", r) != "classification";
      row.insert(row.end(), {std::to_string(t.integer("global_batch", r)), fixed(point_median(t, p, "images_per_s"), 1),
                             interval(t, p, "images_per_s", 1, 1), fixed(point_median(t, p, "speedup"), 2),
                             percent(point_median(t, p, "efficiency"), 1), interval(t, p, "efficiency", 100, 1),
                             fixed(point_median(t, p, seg ? "final_val_miou" : "final_val_accuracy"), 3),
                             fmt::format("{}/{}", p.ok_rows.size(), p.rows.size()),
                             t.str("flags", r).empty() ? "-" : t.str("flags", r), status_cell(t, p, format, notes)});
      tt.rows.push_back(std::move(row));
      if (t.str("flags", r).find("noisy") != std::string::npos)
        if (const std::string n = ran_under(t, p.rows); !n.empty())
          noisy.push_back(fmt::format("noisy {}: ran under {}", row_label(t, r, swept), n));
    }
  std::string out = render(tt, format);
  for (std::size_t i = 0; i < notes.size(); ++i) out += fmt::format("  [{}] {}\n", i + 1, notes[i]);
  for (const std::string& n : noisy) out += (format == Format::markdown ? "- " : "  ") + n + "\n";
  return out;
}

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

namespace {
// Once under the tables when any point is flagged noisy: what the flag means for the reader, and the
// comparison that still decides on such a host (ab's turns on one CPU, docs/metrics.md).
std::string noisy_hint(const record::Table& t) {
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (t.str("flags", r).find("noisy") != std::string::npos)
      return "\nnoisy points: their timing spread is this host's as much as the code's (a shared or loaded host earns "
             "the flag on every point); to decide whether a change helped on such a host, `scalebench ab SPEC "
             "--interleave slice` runs both sides in turns on one CPU (docs/metrics.md)\n";
  return "";
}
}  // namespace

std::string report(const StudyFile& f, Format format, bool full) {
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
  // A swept study (a table per value of a swept field, report.h): one compact table by default.
  const bool swept = std::any_of(groups.begin(), groups.end(), [](const Group& g) { return !g.series.empty(); });
  if (swept && !full) {
    // The model is a column only when several are swept; one model is named in the heading.
    std::vector<std::string> models;
    for (const Group& g : groups)
      if (std::find(models.begin(), models.end(), g.model) == models.end()) models.push_back(g.model);
    out += fmt::format("\n{}{}points ({} scaling): one row per point, the swept fields as columns; report --full: "
                       "every column, one table per model x strategy x swept values\n",
                       format == Format::markdown ? "### " : "== ", models.size() == 1 ? models[0] + ": " : "",
                       distinct_values(t, "scaling"));
    if (format == Format::markdown) out += "\n";
    return out + compact_table(t, groups, format) + noisy_hint(t) + report_tuning(f, format, false);
  }
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
    std::vector<std::string> notes;
    for (const PointRows& p : g.points) {
      const std::size_t r = p.rows.front();
      const std::string status = status_cell(t, p, format, notes);
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
  return out + noisy_hint(t) + report_tuning(f, format, true);
}

}  // namespace scalebench::study
