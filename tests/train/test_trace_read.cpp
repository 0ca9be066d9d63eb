// test_trace_read.cpp — the trace file round trip (harness/train/trace.h): what Trace::write puts
// in a file, read_trace_file gives back (names with quotes and control characters, categories,
// rows, args, element ranges); the span vocabulary's names parse back to their subjects; merge
// keeps every span under its rank; and a malformed, cut-short or unknown-category file is refused
// with one error naming the file (and the line).
#include <gtest/gtest.h>

#include <fstream>

#include "harness/train/trace.h"
#include "kernels/common/check.h"
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
  t.add(SpanCat::layer, "conv \"a\"\\b\tc", at_us(1100), at_us(1200), kTrainRow, "\"begin\": 10, \"end\": 250");
  t.add(SpanCat::allreduce, "0", at_us(1150), at_us(1300), kCommRow, "\"bytes\": 960, \"begin\": 10, \"end\": 250");
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
  std::ifstream f(d / "m.json");
  std::string text((std::istreambuf_iterator<char>(f)), {});
  EXPECT_NE(text.find("\"ph\": \"X\", \"ts\": 0.000, \"dur\": 5.000, \"pid\": 0,"), std::string::npos);
  EXPECT_EQ(text.find("\"pid\": 1, \"tid\": 0, \"args\": {}},\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0"),
            std::string::npos);  // ranks in order: rank 0's events first
  EXPECT_NE(error_of([&] { merge({d / "t.rank0.json", d / "t.rank0.json"}, d / "x.json"); }).find("rank 0 given twice"),
            std::string::npos);
}

TEST(TraceRead, RefusesWhatTrainDidNotWrite) {
  sbtest::TempDir d;
  Trace t(d / "t.json", 0);
  t.add(SpanCat::step, "1", at_us(0), at_us(1));
  t.write();
  std::ifstream f(d / "t.json");
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);) lines.push_back(l);
  const auto write_with = [&](std::size_t i, const std::string& line, const std::string& name) {
    std::ofstream o(d / name);
    for (std::size_t k = 0; k < lines.size(); ++k)
      o << (k == i ? line : lines[k]) << "\n";
    return d / name;
  };
  // lines: header, 3 metadata, the step, "],", displayTimeUnit, otherData
  ASSERT_EQ(lines.size(), 8u);
  const std::string step = lines[4];
  std::string bad_cat = step;
  bad_cat.replace(bad_cat.find("\"step\", \"ph\""), 6, "\"stop\"");
  EXPECT_NE(error_of([&] { read_trace_file(write_with(4, bad_cat, "c.json"), "who"); })
                .find("who: " + d / "c.json" + " line 5: unknown span category 'stop'"),
            std::string::npos);
  std::string bad_ts = step;
  bad_ts.replace(bad_ts.find("\"ts\": ") + 6, 1, "x");
  EXPECT_NE(error_of([&] { read_trace_file(write_with(4, bad_ts, "b.json"), "who"); }).find("line 5: not an event"),
            std::string::npos);
  {
    std::ofstream cut(d / "cut.json");  // the events, but the file ends before "],"
    for (std::size_t k = 0; k < 5; ++k) cut << lines[k] << "\n";
  }
  EXPECT_NE(error_of([&] { read_trace_file(d / "cut.json", "who"); }).find("cut short"), std::string::npos);
  EXPECT_NE(error_of([&] { read_trace_file(d / "missing.json", "who"); }).find("who: cannot read"), std::string::npos);
}

}  // namespace
