// test_baseline_ids.cpp — the committed baseline still matches what `make demo` runs: expanding
// studies/cpu-demo.toml with today's code gives exactly the point ids stored in
// results/baselines/cpu-demo.h5. A field added to the run ids at a non-default value for every run
// (as compression once was) changes every id, and compare then matches nothing; this fails first.
#include <gtest/gtest.h>

#include <set>

#include "harness/record/run_config.h"
#include "harness/study/spec/spec.h"
#include "harness/study/analysis/study_file.h"

using namespace scalebench;

TEST(BaselineIds, DemoSpecExpandsToTheCommittedBaselinesPoints) {
  const std::string root = SB_SOURCE_DIR;
  const study::SweepSpec spec = study::load_spec(root + "/studies/cpu-demo.toml");
  const auto points = study::expand(spec);  // every run: repetitions x the spec's points
  std::set<std::string> want;
  for (const auto& p : points) want.insert(record::point_id(p));
  const study::StudyFile base = study::read_study_file(root + "/results/baselines/cpu-demo.h5");
  std::set<std::string> have;
  for (std::size_t r = 0; r < base.runs.rows(); ++r) have.insert(base.runs.str("point_id", r));
  // A point's id leaves its repetition out (its runs share it): distinct points must keep distinct ids.
  ASSERT_EQ(want.size() * std::size_t(spec.repetitions), points.size()) << "point ids of the demo spec collide";
  EXPECT_EQ(have, want) << "the demo spec's point ids differ from results/baselines/cpu-demo.h5: a change to "
                           "record::result_fields changed the ids (add new fields only when not at their default)";
}
