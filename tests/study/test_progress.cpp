// test_progress.cpp — the sweep's study-level progress line: counts, elapsed time and the estimate
// of the time left from the points this sweep ran (times passed in, no clock, no sleeping; < 1 s).
#include <gtest/gtest.h>

#include "harness/study/progress.h"

using namespace scalebench::study;

TEST(StudyProgress, ElapsedAndTimeLeft) {
  StudyProgress p(6, 100.0);
  EXPECT_EQ(p.line(100.0), "study 0/6 done, 0s elapsed, ETA after the first point");
  p.point_done(false, 0);  // ok before: skipped, takes no time and says nothing about the others
  EXPECT_EQ(p.line(101.0), "study 1/6 done, 1s elapsed, ETA after the first point");
  p.point_done(true, 30.0);
  p.point_done(true, 90.0);  // mean 60 s a point run, 3 left
  EXPECT_EQ(p.line(221.0), "study 3/6 done, 2m01s elapsed, ~3m00s left");
  p.point_done(true, 60.0);
  p.point_done(true, 60.0);
  p.point_done(true, 60.0);
  EXPECT_EQ(p.line(400.0), "study 6/6 done, 5m00s elapsed");
}

TEST(StudyProgress, ShortDurations) {
  EXPECT_EQ(short_duration(0.4), "0s");
  EXPECT_EQ(short_duration(59.6), "1m00s");
  EXPECT_EQ(short_duration(125), "2m05s");
  EXPECT_EQ(short_duration(3725), "1h02m");
  EXPECT_EQ(short_duration(-3), "0s");
}
