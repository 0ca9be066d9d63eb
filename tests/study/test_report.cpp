// test_report.cpp — report tables: one per model × strategy, points ordered by N, repetitions
// aggregated by their median, failed points shown with their error; markdown and JSON shapes.
#include <array>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/point_stats.h"
#include "harness/study/analysis/report.h"
#include "kernels/common/json.h"

namespace json = scalebench::json;

using namespace scalebench::study;
using scalebench::record::Attrs;

namespace {

void row(StudyFile& f, const std::string& model, const std::string& task, const std::string& strategy, int n, double ips,
         const std::string& status = "ok") {
  Attrs r;
  r.set("point_id", model + strategy + std::to_string(n));
  r.set("model", model);
  r.set("task", task);
  r.set("strategy", strategy);
  r.set("scaling", "weak");
  r.set("status", status);
  r.set("error", status == "ok" ? "" : "no such strategy");
  r.set("world_size", n);
  r.set("global_batch", 8 * n);
  r.set("lr_effective", 0.05 * n);
  r.set("steps_per_epoch", std::int64_t(100 / n));
  r.set("images_per_s", ips);
  r.set("speedup", ips / 100);
  r.set("efficiency", ips / 100 / n);
  r.set("final_val_miou", 0.5);
  r.set("final_val_accuracy", 0.75);
  f.runs.append(r);
}

StudyFile sample() {
  StudyFile f;
  f.attrs.set("study", "rep");
  row(f, "unet", "segmentation", "ring", 2, 180);
  row(f, "unet", "segmentation", "single", 1, 90);
  row(f, "unet", "segmentation", "single", 1, 110);
  row(f, "unet", "segmentation", "single", 1, 100);  // median of 90, 110, 100 = 100
  row(f, "unet", "segmentation", "ring", 1, 100);
  row(f, "unet", "segmentation", "ring", 4, 0, "failed");
  row(f, "vgg11", "classification", "single", 1, 400);
  return f;
}

}  // namespace

TEST(Report, TextTables) {
  const std::string t = report(sample(), Format::text);
  EXPECT_NE(t.find("study rep: 7 runs, 6 ok"), std::string::npos) << t;
  const auto single = t.find("== unet - single"), ring = t.find("== unet - ring"), vgg = t.find("== vgg11 - single");
  ASSERT_NE(single, std::string::npos) << t;
  ASSERT_NE(ring, std::string::npos) << t;
  ASSERT_NE(vgg, std::string::npos) << t;
  EXPECT_LT(single, ring);  // single first, then the strategies in their usual order
  EXPECT_LT(ring, vgg);
  EXPECT_NE(t.find("100.0"), std::string::npos);         // median images/s of the three repetitions
  EXPECT_NE(t.find("3/3"), std::string::npos);           // runs ok / runs
  EXPECT_NE(t.find("failed: no such strategy"), std::string::npos) << t;
  EXPECT_NE(t.find("90.0%"), std::string::npos) << t;    // ring N=2 efficiency 180/100/2
  EXPECT_NE(t.find("accuracy"), std::string::npos);      // the VGG table shows accuracy, not mIoU
  const auto n1 = t.find("\n1 ", ring), n2 = t.find("\n2 ", ring), n4 = t.find("\n4 ", ring);
  EXPECT_TRUE(n1 < n2 && n2 < n4) << t;                  // ordered by N
}

TEST(Report, MarkdownAndJson) {
  const std::string md = report(sample(), Format::markdown);
  EXPECT_NE(md.find("### unet - ring"), std::string::npos) << md;
  EXPECT_NE(md.find("| N | global batch |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ---: | ---: |"), std::string::npos) << md;
  const json::Json js = json::parse(report(sample(), Format::json), "report --format json");
  EXPECT_EQ(js.begin().key(), "study");
  EXPECT_EQ(js["study"], "rep");
  EXPECT_EQ(js["provenance"].begin().key(), "hosts") << js;
  ASSERT_TRUE(js["tables"].is_array()) << js;
  EXPECT_EQ(js["steps_to_target"], json::Json::array()) << js;  // no target: the sections are there, empty
  EXPECT_EQ(js["selection"]["candidates"], json::Json::array()) << js;
  const json::Json* ring = nullptr;
  for (const json::Json& t : js["tables"])
    if (t["model"] == "unet" && t["strategy"] == "ring") ring = &t;
  ASSERT_NE(ring, nullptr) << js;
  const json::Json& points = (*ring)["points"];
  ASSERT_EQ(points.size(), 3u) << js;
  EXPECT_EQ(points[0]["devices"], 1);
  EXPECT_EQ(points[0]["global_batch"], 8);
  EXPECT_EQ(points[0]["lr"], 0.05);
  EXPECT_EQ(points[1]["images_per_s"], 180.0);
  EXPECT_TRUE(points[1]["images_per_s_ci_lo"].is_null()) << js;  // 3 repetitions: no 95% interval
  EXPECT_EQ(points[1]["flags"], "") << js;
  EXPECT_EQ(points[1]["runs"], 1);
  EXPECT_EQ(points[1]["status"], "ok");
  EXPECT_EQ(points[2]["devices"], 4);
  EXPECT_EQ(points[2]["status"], "failed");
  EXPECT_EQ(points[2]["error"], "no such strategy");
  EXPECT_EQ(points[2]["runs_ok"], 0);
  EXPECT_TRUE(points[2]["images_per_s"].is_null()) << js;  // NaN → null
}

// collect's point statistics as the report shows them: six repetitions give a 95 % interval of
// the median images/s (the extremes: 1 − 2/64 ≥ 95 %), and the efficiency interval comes from both
// points; the flag rules are stated above the tables and each flagged point names its flags.
TEST(Report, IntervalsAndFlags) {
  StudyFile f;
  f.attrs.set("study", "ci");
  for (int i = 0; i < 6; ++i) {
    Attrs r;
    for (int n : {1, 2}) {
      r.set("point_id", "p" + std::to_string(n));
      r.set("group_id", "g");
      r.set("model", "unet");
      r.set("task", "segmentation");
      r.set("strategy", "ring");
      r.set("scaling", "weak");
      r.set("status", "ok");
      r.set("world_size", n);
      r.set("global_batch", 8 * n);
      r.set("images_per_s", n == 1 ? 100.0 + i : 250.0 + i);  // N=2 super-linear: efficiency ≈ 1.24
      r.set("epoch_time_s", 0.5);                             // too short to time
      r.set("measured_epochs", 1.0);
      r.set("measured_steps", 100.0);
      r.set("step_time_cv", n == 1 ? 0.05 : 0.3);  // N=2: steps too uneven to trust
      r.set("comm_bytes_per_step", n == 1 ? 0.0 : 1e6);
      r.set("exposed_comm_frac", 0.1);  // at N=1 ring sends nothing: impossible
      f.runs.append(r);
    }
  }
  add_speedup(f.runs);
  add_point_stats(f.runs);
  const std::string t = report(f, Format::text);
  EXPECT_NE(t.find("flag efficiency>1: efficiency above 1 beyond its 95 % interval"), std::string::npos) << t;
  EXPECT_NE(t.find("[100.0, 105.0]"), std::string::npos) << t;  // N=1: min and max of 6
  EXPECT_NE(t.find("short phase"), std::string::npos) << t;     // N=1
  EXPECT_NE(t.find("short noisy efficiency>1"), std::string::npos) << t;  // N=2
}

// The spread rule of `noisy` (images/s over repetitions) on its own, and a point that breaks no
// rule carries no flag.
TEST(Report, NoisyBySpreadAndQuietPointsUnflagged) {
  StudyFile f;
  const double quiet[] = {100, 101, 99, 100, 102, 100}, loud[] = {100, 150, 70, 120, 90, 130};
  for (int i = 0; i < 6; ++i)
    for (const char* id : {"quiet", "loud"}) {
      Attrs r;
      r.set("point_id", id), r.set("group_id", id), r.set("model", "m"), r.set("strategy", "single");
      r.set("status", "ok"), r.set("world_size", 1);
      r.set("images_per_s", std::string(id) == "quiet" ? quiet[i] : loud[i]);
      r.set("epoch_time_s", 2.0), r.set("measured_epochs", 2.0), r.set("measured_steps", 100.0);
      r.set("step_time_cv", 0.05), r.set("comm_bytes_per_step", 0.0), r.set("exposed_comm_frac", 0.0);
      f.runs.append(r);
    }
  add_speedup(f.runs);
  add_point_stats(f.runs);
  for (std::size_t r = 0; r < f.runs.rows(); ++r)
    EXPECT_EQ(f.runs.str("flags", r), f.runs.str("point_id", r) == "quiet" ? "" : "noisy") << r;
}

// A failed point's whole error reaches the reader: a long one (here the shape of an MPI rank's
// message, its reason after the source location) is numbered in the status column and printed in
// full under the table; points with the same error share the note.
TEST(Report, LongErrorsInFullUnderTheTable) {
  const std::string why =
      "rank 1: harness/comm/mpi_world.cpp:212: MPI_Allreduce: MPI_ERR_TRUNCATE: message truncated; the ranks' "
      "gradient buckets differ (bucket_mb must be the same on every rank)";
  StudyFile f;
  f.attrs.set("study", "err");
  for (int n : {2, 4}) {
    Attrs r;
    r.set("point_id", "ring" + std::to_string(n));
    r.set("model", "unet");
    r.set("task", "segmentation");
    r.set("strategy", "ring");
    r.set("scaling", "weak");
    r.set("status", "failed");
    r.set("error", why);
    r.set("world_size", n);
    f.runs.append(r);
  }
  const std::string t = report(f, Format::text);
  EXPECT_NE(t.find("failed [1]"), std::string::npos) << t;
  EXPECT_NE(t.find("\n  [1] " + why + "\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("[2]"), std::string::npos) << t;  // one note for the two points
  EXPECT_NE(report(f, Format::markdown).find("failed: " + why), std::string::npos);
}

// Issue 47: the provenance names the machine type (host fingerprint), and a point flagged noisy
// says what its runs ran under (the run files' noise_* columns); a quiet point says nothing.
TEST(Report, FingerprintAndWhatANoisyPointRanUnder) {
  StudyFile f = sample();
  f.runs.add("host_fingerprint", scalebench::record::Column::Kind::str);
  for (std::size_t r = 0; r < f.runs.rows(); ++r) f.runs.find("host_fingerprint")->s[r] = "1c0ffee5";
  add_point_stats(f.runs);
  for (const char* c : {"noise_load1_start", "noise_load1_end", "noise_others_cpu_frac", "noise_cpus"})
    f.runs.add(c, scalebench::record::Column::Kind::f64);
  for (std::size_t r = 0; r < f.runs.rows(); ++r) {
    f.runs.find("noise_load1_start")->f[r] = 1.5;
    f.runs.find("noise_load1_end")->f[r] = 4.3;
    f.runs.find("noise_others_cpu_frac")->f[r] = 0.55;
    f.runs.find("noise_cpus")->f[r] = 2;
  }
  // The three single N=1 runs (90, 110, 100) spread by about 10 %: flag noisy; make it certain.
  for (std::size_t r = 0; r < f.runs.rows(); ++r)
    if (f.runs.str("strategy", r) == "single" && f.runs.str("model", r) == "unet") f.runs.find("flags")->s[r] = "noisy";
  const std::string t = report(f, Format::text);
  EXPECT_NE(t.find("  fingerprint 1c0ffee5\n"), std::string::npos) << t;
  const auto line = t.find("  noisy N=1: ran under load 1.5..4.3 on 2 CPUs, others' CPU <=55%");
  ASSERT_NE(line, std::string::npos) << t;
  EXPECT_GT(line, t.find("== unet - single"));
  EXPECT_LT(line, t.find("== unet - ring"));
  EXPECT_EQ(t.find("noisy N=2"), std::string::npos) << t;  // a quiet point says nothing
  // Once, under the tables: what decides on such a host.
  const std::string hint = "noisy points: their timing spread is this host's";
  ASSERT_NE(t.find(hint), std::string::npos) << t;
  EXPECT_EQ(t.find(hint, t.find(hint) + 1), std::string::npos) << t;
  EXPECT_NE(t.find("`scalebench ab SPEC --interleave slice`"), std::string::npos) << t;
  for (std::size_t r = 0; r < f.runs.rows(); ++r) f.runs.find("flags")->s[r] = "";
  EXPECT_EQ(report(f, Format::text).find(hint), std::string::npos);  // no noisy point, no hint
}

// Issue 49: the commit comes from the run files. A binary outside a git tree records git_sha
// "unknown" but the commit it was built from (git_sha_build); a dirty checkout says so; runs from
// different commits say that they disagree, with their counts.
TEST(Report, CommitFromTheRunFiles) {
  const auto commit_line = [](const std::vector<std::array<const char*, 3>>& runs) {
    StudyFile f;
    for (const auto& [sha, dirty, build] : runs) {
      Attrs r;
      r.set("point_id", "p"), r.set("model", "m"), r.set("strategy", "single"), r.set("status", "ok");
      r.set("world_size", 1), r.set("git_sha", sha), r.set("git_dirty", dirty), r.set("git_sha_build", build);
      r.set("scalebench_version", "0.1.0");
      f.runs.append(r);
    }
    const std::string t = report(f, Format::text);
    const auto at = t.find("  commit");
    return at == std::string::npos ? t : t.substr(at, t.find('\n', at) - at);
  };
  EXPECT_EQ(commit_line({{"unknown", "unknown", "5a615b4"}, {"unknown", "unknown", "5a615b4"}}),
            "  commit     5a615b4 (build), 0.1.0");
  EXPECT_EQ(commit_line({{"c0ffee1", "true", "5a615b4"}}), "  commit     c0ffee1 (uncommitted changes), 0.1.0");
  EXPECT_EQ(commit_line({{"c0ffee1", "false", "c0ffee1"}, {"unknown", "unknown", "5a615b4"}, {"c0ffee1", "false", ""}}),
            "  commit     runs disagree: c0ffee1 (2 runs), 5a615b4 (build) (1 run), 0.1.0");
  EXPECT_EQ(commit_line({{"", "", ""}}), "  commit     unknown, 0.1.0");  // a file from before the columns
}

namespace {

// A study shaped like studies/strategy-axes.toml, cut down: single at N=1 and ring at N=1, 2 ×
// compression none/bf16, each at per-device batch 2 and 4 (weak scaling): 6 tables in full.
StudyFile swept() {
  StudyFile f;
  f.attrs.set("study", "axes");
  const auto add = [&](const std::string& strategy, int n, const std::string& comp, int batch) {
    Attrs r;
    r.set("point_id", fmt::format("{}{}{}{}", strategy, n, comp, batch));
    r.set("group_id", fmt::format("g{}{}", comp, batch));
    r.set("model", "unet"), r.set("task", "segmentation"), r.set("strategy", strategy), r.set("scaling", "weak");
    r.set("status", "ok"), r.set("world_size", n), r.set("batch", batch), r.set("global_batch", batch * n);
    r.set("compression", comp), r.set("lr_effective", 0.05), r.set("steps_per_epoch", std::int64_t(10));
    r.set("images_per_s", 100.0 * n * batch * (comp == "bf16" ? 1.2 : 1.0) * (n == 2 ? 0.9 : 1.0));
    r.set("final_val_miou", 0.5);
    f.runs.append(r);
  };
  for (int batch : {2, 4}) {
    add("single", 1, "none", batch);
    for (const char* comp : {"none", "bf16"})
      for (int n : {1, 2}) add("ring", n, comp, batch);
  }
  add_speedup(f.runs);
  add_point_stats(f.runs);
  return f;
}

// The words of the k-th line (1-based) that starts with `start`.
std::vector<std::string> words_of_line(const std::string& text, const std::string& start, int k = 1) {
  std::size_t at = 0;
  for (int i = 0; i < k; ++i) {
    at = text.find("\n" + start, i ? at + 1 : 0);
    if (at == std::string::npos) return {};
  }
  std::istringstream line(text.substr(at + 1, text.find('\n', at + 1) - at - 1));
  std::vector<std::string> words;
  for (std::string w; line >> w;) words.push_back(w);
  return words;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t k = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++k;
  return k;
}

}  // namespace

// Issue 49: a swept study reads as one compact table by default — one row per point, the swept
// fields as columns, each figure once — and as one table per swept value with --full; JSON is
// complete either way.
TEST(Report, SweptStudyCompactByDefaultFullOnRequest) {
  const StudyFile f = swept();
  const std::string compact = report(f, Format::text), full = report(f, Format::text, true);
  EXPECT_EQ(count_of(compact, "\n== "), 1u) << compact;  // one table
  EXPECT_NE(compact.find("== unet: points (weak scaling): one row per point"), std::string::npos) << compact;
  const std::vector<std::string> header = words_of_line(compact, "strategy ");
  ASSERT_GE(header.size(), 7u) << compact;
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 7),
            (std::vector<std::string>{"strategy", "N", "batch", "compression", "global", "batch", "images/s"}))
      << compact;
  EXPECT_EQ(count_of(compact.substr(compact.find("\n== ")), "images/s"), 1u) << compact;  // each figure once
  EXPECT_EQ(count_of(compact, "\nring "), 8u) << compact;    // one row per point
  EXPECT_EQ(count_of(compact, "\nsingle "), 2u) << compact;
  EXPECT_EQ(compact.find("steps/epoch"), std::string::npos) << compact;  // --full's columns
  const std::vector<std::string> row = words_of_line(compact, "ring ", 6);  // batch=4 bf16 N=2
  ASSERT_GE(row.size(), 5u) << compact;
  EXPECT_EQ(std::vector<std::string>(row.begin(), row.begin() + 5),
            (std::vector<std::string>{"ring", "2", "4", "bf16", "8"})) << compact;
  EXPECT_EQ(count_of(full, "\n== unet - ring - batch="), 4u) << full;  // a table per swept value
  EXPECT_EQ(count_of(full, "\n== unet - single - batch="), 2u) << full;
  EXPECT_NE(full.find("steps/epoch"), std::string::npos) << full;
  const std::string md = report(f, Format::markdown);
  EXPECT_NE(md.find("| strategy | N | batch | compression | global batch |"), std::string::npos) << md;
  for (bool all : {false, true}) {
    const json::Json js = json::parse(report(f, Format::json, all), "report --format json");
    EXPECT_EQ(js["tables"].size(), 6u) << js;
    EXPECT_TRUE(js["tables"][0]["points"][0].contains("tflops")) << js;  // every figure
  }
  // A study that sweeps nothing but N (sample(): model, strategy, N) keeps its tables.
  EXPECT_EQ(report(sample(), Format::text), report(sample(), Format::text, true));
}

// A study with a target and a [select] by steps to target: the compact report prints the steps of
// each configuration once (the selection lists every candidate with them); --full both tables.
TEST(Report, StepsToTargetOnceWhenCompact) {
  StudyFile f = swept();
  for (const char* c : {"target_value", "steps_to_target_olympic", "steps_to_target_lo", "steps_to_target_hi"})
    f.runs.add(c, scalebench::record::Column::Kind::f64);
  for (const char* c : {"config_id", "target_metric"}) f.runs.add(c, scalebench::record::Column::Kind::str);
  for (std::size_t r = 0; r < f.runs.rows(); ++r) {
    f.runs.find("target_value")->f[r] = 0.45;
    f.runs.find("steps_to_target_olympic")->f[r] = 412;
    f.runs.find("config_id")->s[r] = f.runs.str("point_id", r);
    f.runs.find("target_metric")->s[r] = "final_val_miou";
  }
  Attrs s;
  s.set("cell", "b=2"), s.set("grid", "lr"), s.set("candidate", "lr=0.05"), s.set("score", 412.0);
  s.set("runs", 3), s.set("eligible", 1), s.set("selected", 1);
  f.selection.append(s);
  f.attrs.set("select_objective", "steps_to_target");
  const std::string compact = report(f, Format::text), full = report(f, Format::text, true);
  EXPECT_EQ(compact.find("== steps to target"), std::string::npos) << compact;
  EXPECT_NE(compact.find("== selection"), std::string::npos) << compact;
  EXPECT_NE(full.find("== steps to target"), std::string::npos) << full;
  EXPECT_NE(full.find("== selection"), std::string::npos) << full;
}
