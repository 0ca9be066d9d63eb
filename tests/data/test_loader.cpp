// test_loader.cpp — DataLoader: batch count and content, the ranks' union covering the split,
// determinism, error propagation from the prefetch thread, and clean shutdown mid-epoch.
// Runs each behaviour with the prefetch thread and with synchronous reads (prefetch = 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "data_test_util.h"
#include "harness/data/loader.h"
#include "harness/data/particle_gen.h"

namespace sd = scalebench::data;

namespace {

constexpr int kSize = 16;

// One small segmentation file per test binary run (written once, read by many tests), removed with
// its directory when the process exits (a function-local static: after every test has run).
const std::string& dataset_path() {
  static const sbtest::ScratchDir dir;
  static const std::string path = [] {
    const std::string p = dir.file("loader.h5");
    sd::GenConfig cfg;
    cfg.n = 24;
    cfg.size = kSize;
    sd::write_dataset(cfg, p, 0);
    return p;
  }();
  return path;
}

sd::SamplerConfig split(std::int64_t begin, std::int64_t end, int world, int rank) {
  sd::SamplerConfig c;
  c.begin = begin;
  c.end = end;
  c.world = world;
  c.rank = rank;
  c.seed = 5;
  return c;
}

std::vector<std::vector<std::int64_t>> epoch_indices(sd::DataLoader& dl, int epoch) {
  std::vector<std::vector<std::int64_t>> out;
  dl.start_epoch(epoch);
  sd::Batch b;
  while (dl.next(b)) out.push_back(b.indices);
  return out;
}

class Loader : public testing::TestWithParam<int> {};  // parameter: prefetch depth

}  // namespace

TEST_P(Loader, YieldsBatchesPerEpochWithTheRightContent) {
  // 20 samples over 3 ranks: 7 per rank (padded), batch 3 → 2 batches, the 7th index dropped.
  sd::DataLoader dl(dataset_path(), split(2, 22, 3, 1), 3, GetParam());
  EXPECT_EQ(dl.batches_per_epoch(), 2);
  EXPECT_EQ(dl.info().height, kSize);
  const auto expected = sd::ShardedSampler(split(2, 22, 3, 1)).indices(4);
  sd::Dataset ds(dataset_path());
  dl.start_epoch(4);
  sd::Batch b;
  int batches = 0;
  while (dl.next(b)) {
    ASSERT_EQ(b.size, 3);
    ASSERT_EQ(b.indices.size(), 3u);
    EXPECT_TRUE(std::equal(b.indices.begin(), b.indices.end(), expected.begin() + batches * 3));
    std::vector<float> img(3 * kSize * kSize);
    std::vector<std::int32_t> lab(3 * kSize * kSize);
    ds.read(b.indices, img.data(), lab.data());
    EXPECT_EQ(b.images, img);
    EXPECT_EQ(b.labels, lab);
    ++batches;
  }
  EXPECT_EQ(batches, 2);
  EXPECT_FALSE(dl.next(b));  // stays exhausted
}

TEST_P(Loader, RanksTogetherCoverTheSplitExactly) {
  // 18 samples, 3 ranks, batch 3: every index of [3, 21) exactly once per epoch.
  for (int epoch : {0, 1}) {
    std::multiset<std::int64_t> seen;
    for (int r = 0; r < 3; ++r) {
      sd::DataLoader dl(dataset_path(), split(3, 21, 3, r), 3, GetParam());
      for (const auto& batch : epoch_indices(dl, epoch)) seen.insert(batch.begin(), batch.end());
    }
    std::multiset<std::int64_t> want;
    for (std::int64_t i = 3; i < 21; ++i) want.insert(i);
    EXPECT_EQ(seen, want) << "epoch " << epoch;
  }
}

TEST_P(Loader, DeterministicAndEpochsDiffer) {
  sd::DataLoader a(dataset_path(), split(0, 24, 2, 0), 4, GetParam());
  sd::DataLoader b(dataset_path(), split(0, 24, 2, 0), 4, GetParam());
  const auto a0 = epoch_indices(a, 0);
  EXPECT_EQ(a0, epoch_indices(b, 0));
  EXPECT_NE(a0, epoch_indices(a, 1));
  EXPECT_EQ(a0, epoch_indices(a, 0));  // an epoch can be replayed
}

TEST_P(Loader, RestartingAnEpochInFlightIsSafe) {
  sd::DataLoader dl(dataset_path(), split(0, 24, 1, 0), 2, GetParam());
  dl.start_epoch(0);
  sd::Batch b;
  ASSERT_TRUE(dl.next(b));
  dl.start_epoch(1);  // epoch 0 abandoned with batches still queued
  std::vector<std::int64_t> got;
  while (dl.next(b)) got.insert(got.end(), b.indices.begin(), b.indices.end());
  EXPECT_EQ(got, sd::ShardedSampler(split(0, 24, 1, 0)).indices(1));
}

TEST_P(Loader, DestroyedMidEpoch) {
  // Must neither hang nor crash: the producer is blocked on a full queue when we leave.
  for (int k = 0; k < 20; ++k) {
    sd::DataLoader dl(dataset_path(), split(0, 24, 1, 0), 1, GetParam());
    dl.start_epoch(k);
    if (k % 2) {
      sd::Batch b;
      ASSERT_TRUE(dl.next(b));
    }
  }
  sd::DataLoader never_started(dataset_path(), split(0, 24, 1, 0), 1, GetParam());
  sd::Batch b;
  sbtest::expect_error([&] { never_started.next(b); }, {"before start_epoch"});
}

TEST_P(Loader, ReadErrorIsRethrownFromNext) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("corrupt.h5");
  sbtest::FileSpec spec;
  spec.image_dims = {8, 1, 8, 8};
  spec.label_dims = {8, 8, 8};
  spec.fletcher32 = true;
  sbtest::write_spec(path, spec);
  sbtest::corrupt_image_chunk(path, 5);
  ASSERT_FALSE(testing::Test::HasFatalFailure());

  auto c = split(0, 8, 1, 0);
  c.shuffle = false;  // batches {0,1}, {2,3}, {4,5}: the third fails
  sd::DataLoader dl(path, c, 2, GetParam());
  dl.start_epoch(0);
  sd::Batch b;
  ASSERT_TRUE(dl.next(b));
  ASSERT_TRUE(dl.next(b));
  sbtest::expect_error([&] { dl.next(b); }, {path, "/images sample 5"});
  sbtest::expect_error([&] { dl.next(b); }, {"/images sample 5"});  // sticky until a new epoch
  // A new epoch starts cleanly and fails at the same place again.
  dl.start_epoch(1);
  ASSERT_TRUE(dl.next(b));
  EXPECT_EQ(b.indices, (std::vector<std::int64_t>{0, 1}));
}

TEST_P(Loader, BadArguments) {
  sbtest::expect_error([&] { sd::DataLoader(dataset_path(), split(0, 30, 1, 0), 2, GetParam()); },
                       {dataset_path(), "split [0, 30) exceeds the 24 samples"});
  sbtest::expect_error([&] { sd::DataLoader(dataset_path(), split(0, 24, 1, 0), 0, GetParam()); },
                       {"batch size 0"});
  sbtest::expect_error([&] { sd::DataLoader("/nonexistent/x.h5", split(0, 1, 1, 0), 1, GetParam()); },
                       {"/nonexistent/x.h5", "file not found"});
  sd::DataLoader big(dataset_path(), split(0, 24, 1, 0), 25, GetParam());
  EXPECT_EQ(big.batches_per_epoch(), 0);  // no complete batch: the epoch is empty
  big.start_epoch(0);
  sd::Batch b;
  EXPECT_FALSE(big.next(b));
}

INSTANTIATE_TEST_SUITE_P(Prefetch, Loader, testing::Values(0, 1, 3),
                         [](const testing::TestParamInfo<int>& p) {
                           return "prefetch" + std::to_string(p.param);
                         });
