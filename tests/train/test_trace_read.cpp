// test_trace_read.cpp — the trace file round trip (harness/train/trace.h): what Trace::write puts
// in a file, read_trace_file gives back (names with quotes and control characters, categories,
// rows, args, element ranges); the span vocabulary's names parse back to their subjects; merge
// keeps every span under its rank; and a malformed, cut-short or unknown-category file is refused
// with one error naming the file (and the member).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "harness/train/trace.h"
#include "kernels/common/check.h"
#include "kernels/common/json.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;
using namespace scalebench::trace;

namespace {

Clock::time_point at_us(double us) {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(us)));
}

using sbtest::error_of;

TEST(TraceRead, ReadsBackWhatWriteWrote) {
  sbtest::TempDir d;
  Trace t(d / "t.json", 3);
  t.add(SpanCat::step, "7", at_us(1000.5), at_us(2000.25));
  t.add(SpanCat::layer, "conv \"a\"\\b\tc", at_us(1100), at_us(1200), kTrainRow, {{"begin", 10}, {"end", 250}});
  t.add(SpanCat::allreduce, "0", at_us(1150), at_us(1300), kCommRow, {{"bytes", 960}, {"begin", 10}, {"end", 250}});
  t.write();
  const TraceFile r = read_trace_file(d / "t.json", "test");
  EXPECT_EQ(r.rank, 3);
  ASSERT_EQ(r.spans.size(), 3u);
  const auto original = t.spans();
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.spans[i].name, original[i].name);
    EXPECT_EQ(r.spans[i].cat, original[i].cat);
    EXPECT_EQ(r.spans[i].tid, original[i].tid);
    EXPECT_EQ(r.spans[i].args, original[i].args);
    EXPECT_NEAR(r.spans[i].ts_us, original[i].ts_us, 5e-4);  // written with 3 decimals
    EXPECT_NEAR(r.spans[i].dur_us, original[i].dur_us, 5e-4);
  }
  EXPECT_EQ(r.spans[1].name, "backward conv \"a\"\\b\tc");
  EXPECT_EQ(subject_of(SpanCat::layer, r.spans[1].name), "conv \"a\"\\b\tc");
  ASSERT_TRUE(r.spans[2].elements());
  EXPECT_EQ(*r.spans[2].elements(), (std::pair<std::int64_t, std::int64_t>{10, 250}));
  EXPECT_FALSE(r.spans[0].elements());
}

TEST(TraceRead, EveryCategoryNameParsesBackToItsSubject) {
  for (std::size_t i = 0; i < kCatNames.size(); ++i) {
    const auto c = SpanCat(i);
    EXPECT_EQ(parse_cat(kCatNames[i]), c);
    EXPECT_EQ(subject_of(c, span_name(c, "12")), "12") << kCatNames[i];
  }
  EXPECT_EQ(span_name(SpanCat::evaluation, "2"), "evaluation (epoch 2)");
  EXPECT_EQ(span_name(SpanCat::phase, kPhaseNames[std::size_t(Phase::exchange)]), "exchange");
  EXPECT_FALSE(parse_cat("Step"));
}

TEST(TraceRead, MergeKeepsEverySpanUnderItsRank) {
  sbtest::TempDir d;
  for (int r = 0; r < 2; ++r) {
    Trace t(d / fmt::format("t.rank{}.json", r), r);
    for (int s = 0; s <= r; ++s) t.add(SpanCat::step, std::to_string(s), at_us(10 * s), at_us(10 * s + 5));
    t.write();
  }
  merge({d / "t.rank1.json", d / "t.rank0.json"}, d / "m.json");
  const TraceFile m = read_trace_file(d / "m.json", "test");
  EXPECT_EQ(m.rank, -1);  // a merged file has "ranks", not "rank"
  EXPECT_EQ(m.spans.size(), 3u);
  const json::Json doc = json::read_file(d / "m.json", "test");
  EXPECT_EQ(doc["otherData"], json::Json({{"ranks", 2}}));
  // ranks in order, each with its names first: rank 0's 3 names and step, then rank 1's
  std::vector<std::pair<int, std::string>> events;
  for (const json::Json& e : doc["traceEvents"]) events.emplace_back(e["pid"].get<int>(), e["ph"].get<std::string>());
  EXPECT_EQ(events, (std::vector<std::pair<int, std::string>>{
                        {0, "M"}, {0, "M"}, {0, "M"}, {0, "X"}, {1, "M"}, {1, "M"}, {1, "M"}, {1, "X"}, {1, "X"}}));
  EXPECT_EQ(doc["traceEvents"][3], json::Json::parse(R"({"name": "step 0", "cat": "step", "ph": "X", "ts": 0.0,
                                                         "dur": 5.0, "pid": 0, "tid": 0, "args": {}})"));
  EXPECT_NE(error_of([&] { merge({d / "t.rank0.json", d / "t.rank0.json"}, d / "x.json"); }).find("rank 0 given twice"),
            std::string::npos);
}

TEST(TraceRead, RefusesWhatTrainDidNotWrite) {
  sbtest::TempDir d;
  Trace t(d / "t.json", 0);
  t.add(SpanCat::step, "1", at_us(0), at_us(1));
  t.write();
  const json::Json good = json::read_file(d / "t.json", "test");
  ASSERT_EQ(good["traceEvents"].size(), 4u);  // 3 names, the step
  const auto write_with = [&](const std::string& name, const std::function<void(json::Json&)>& change) {
    json::Json doc = good;
    change(doc);
    std::ofstream(d / name) << json::layout(doc);
    return d / name;
  };
  const auto error = [&](const std::string& path) { return error_of([&] { read_trace_file(path, "who"); }); };
  EXPECT_EQ(error(write_with("c.json", [](json::Json& j) { j["traceEvents"][3]["cat"] = "stop"; })),
            "who: " + d / "c.json" + ": traceEvents[3].cat is 'stop', not a span category");
  EXPECT_EQ(error(write_with("b.json", [](json::Json& j) { j["traceEvents"][3]["ts"] = "x"; })),
            "who: " + d / "b.json" + ": traceEvents[3].ts is string (\"x\"), expected a number");
  EXPECT_EQ(error(write_with("n.json", [](json::Json& j) { j["traceEvents"][3].erase("dur"); })),
            "who: " + d / "n.json" + ": traceEvents[3] has no \"dur\"");
  EXPECT_EQ(error(write_with("a.json", [](json::Json& j) { j["traceEvents"][3]["args"] = {{"begin", 1.5}}; })),
            "who: " + d / "a.json" + ": traceEvents[3].args.begin is number (1.5), expected an integer");
  EXPECT_EQ(error(write_with("p.json", [](json::Json& j) { j["traceEvents"][3]["ph"] = "B"; })),
            "who: " + d / "p.json" + ": traceEvents[3].ph is 'B': train --trace writes only complete (X) events");
  EXPECT_EQ(error(write_with("r.json", [](json::Json& j) { j["otherData"]["rank"] = -2; })),
            "who: " + d / "r.json" + ": otherData.rank is not a rank");
  EXPECT_EQ(error(write_with("o.json", [](json::Json& j) { j = {{"events", j["traceEvents"]}}; })),
            "who: " + d / "o.json" + " is not a trace written by train --trace (no traceEvents)");
  {
    std::ofstream cut(d / "cut.json");  // the first event, and the file ends
    const std::string text = json::layout(good);
    cut << text.substr(0, text.find("},") + 2);
  }
  const std::string cut = error(d / "cut.json");
  EXPECT_EQ(cut.rfind("who: " + d / "cut.json" + " is not a trace written by train --trace: not JSON (", 0), 0u) << cut;
  EXPECT_NE(cut.find("cut short"), std::string::npos) << cut;
  EXPECT_NE(error(d / "missing.json").find("who: cannot read"), std::string::npos);
  // any layout of the same JSON reads the same (the members are read by name)
  std::ofstream(d / "one-line.json") << good.dump();
  EXPECT_EQ(read_trace_file(d / "one-line.json", "who").spans.size(), 1u);
}

}  // namespace
