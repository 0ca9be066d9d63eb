// test_run_config.cpp — canonical text and ids: stable, sensitive to every result field, blind to
// cosmetic ones; point and group ids group what they promise; attrs round trip.
#include <gtest/gtest.h>

#include <set>

#include "harness/record/run_config.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::record;

namespace {
RunConfig base() {
  RunConfig c;
  c.train.model = "unet:depth=2,base=4";
  c.train.data = "data/seg.h5";
  c.study = "s";
  return c;
}
}  // namespace

TEST(RunConfig, IdIsStableAndDocumented) {
  // The id is a hash of the canonical text; this pins both the text format and the hash so that an
  // accidental change (which would make every rerun re-measure) shows up here.
  const RunConfig c = base();
  EXPECT_EQ(run_id(c), run_id(base()));
  EXPECT_EQ(run_id(c).size(), 16u);
  EXPECT_EQ(canonical_text(c).rfind("backend = \"cpu\"\nbatch = 8\nbucket_mb = 4.0\nclass_weights = \"auto\"\ndata = \"data/seg.h5\"\n", 0), 0u);
  EXPECT_EQ(hash_hex(""), "efd01f60ba992926");
  EXPECT_EQ(run_id(c), hash_hex(canonical_text(c)));
}

TEST(RunConfig, EveryResultFieldChangesTheId) {
  std::set<std::string> ids{run_id(base())};
  auto vary = [&](auto&& change) {
    RunConfig c = base();
    change(c);
    EXPECT_TRUE(ids.insert(run_id(c)).second) << canonical_text(c);
  };
  vary([](RunConfig& c) { c.train.model = "unet:depth=3,base=4"; });
  vary([](RunConfig& c) { c.train.data = "other.h5"; });
  vary([](RunConfig& c) { c.train.strategy = StrategyKind::ring; });
  vary([](RunConfig& c) { c.train.epochs = 4; });
  vary([](RunConfig& c) { c.train.batch = 16; });
  vary([](RunConfig& c) { c.train.lr = 0.1; });
  vary([](RunConfig& c) { c.train.lr_scaling = LrScaling::linear; });
  vary([](RunConfig& c) { c.train.optimizer = OptimizerKind::adamw; });
  vary([](RunConfig& c) { c.train.seed = 2; });
  vary([](RunConfig& c) { c.train.threads = 1; });
  vary([](RunConfig& c) { c.train.max_steps = 5; });
  vary([](RunConfig& c) { c.train.reference_kernels = true; });
  vary([](RunConfig& c) { c.train.bucket_mb = 8; });
  vary([](RunConfig& c) { c.train.no_overlap = true; });
  vary([](RunConfig& c) { c.train.ranks_per_node = 2; });
  vary([](RunConfig& c) { c.train.staleness = 1; });
  vary([](RunConfig& c) { c.train.compression = comm::WireType::bf16; });
  vary([](RunConfig& c) { c.train.layout = Layout::NHWC; });
  vary([](RunConfig& c) { c.train.deterministic = true; });
  vary([](RunConfig& c) { c.train.cudnn_workspace_mib = 4096; });
  vary([](RunConfig& c) { c.train.cuda_graph = CudaGraph::off; });
  vary([](RunConfig& c) { c.train.gpu_kernels = GpuKernels::own; });
  vary([](RunConfig& c) { c.world_size = 2; });
  vary([](RunConfig& c) { c.repetition = 2; });
  vary([](RunConfig& c) { c.scaling = Scaling::strong; });
  // Fields added after the first results join the text only when set: older ids are unchanged.
  EXPECT_EQ(canonical_text(base()).find("layout"), std::string::npos);
  EXPECT_EQ(canonical_text(base()).find("deterministic"), std::string::npos);
  EXPECT_EQ(canonical_text(base()).find("compression"), std::string::npos);
  EXPECT_EQ(canonical_text(base()).find("cudnn_workspace_mib"), std::string::npos);
  EXPECT_EQ(canonical_text(base()).find("cuda_graph"), std::string::npos);
  EXPECT_EQ(canonical_text(base()).find("gpu_kernels"), std::string::npos);
  RunConfig cosmetic = base();
  cosmetic.train.progress_seconds = 5;
  cosmetic.study = "another";
  EXPECT_EQ(run_id(cosmetic), run_id(base()));
}

TEST(RunConfig, PointAndGroupIds) {
  RunConfig a = base(), rep2 = base(), n2 = base(), ring = base();
  rep2.repetition = 2;
  rep2.train.data = "/elsewhere/seg.h5";
  n2.world_size = 2;
  n2.train.strategy = StrategyKind::mirrored;
  ring.train.strategy = StrategyKind::ring;
  EXPECT_EQ(point_id(a), point_id(rep2));  // repetitions (and data location) share a point
  EXPECT_NE(point_id(a), point_id(n2));
  EXPECT_EQ(group_id(a), group_id(n2));  // speedup group: strategy and N vary within it
  EXPECT_EQ(group_id(a), group_id(ring));
  RunConfig other_batch = base();
  other_batch.train.batch = 4;
  EXPECT_NE(group_id(a), group_id(other_batch));  // weak scaling: per-device batch defines the group
  // Strong scaling: the global batch is fixed, the per-device batch varies with N.
  RunConfig s1 = base(), s2 = base();
  s1.scaling = s2.scaling = Scaling::strong;
  s1.train.batch = 16;
  s2.train.batch = 8;
  s2.world_size = 2;
  s2.train.strategy = StrategyKind::mirrored;
  EXPECT_EQ(group_id(s1), group_id(s2));
}

TEST(RunConfig, DataIdentityJoinsTheRunIdButNotPointOrGroup) {
  // A file regenerated at the same path is another run (issue 30, case 4), but the same point: a
  // baseline recorded on other data is still matched by compare.
  RunConfig a = base(), b = base(), unknown = base();
  a.train.data_identity = "96 x 1x32x32 segmentation, 3 classes, content 88fdbd93ed78edd5";
  b.train.data_identity = "96 x 1x32x32 segmentation, 3 classes, content a39c78a6deec41ee";
  EXPECT_NE(run_id(a), run_id(b));
  EXPECT_NE(run_id(a), run_id(unknown));
  EXPECT_EQ(run_id(unknown), run_id(base()));  // unknown ("") joins no id: ids without data stay
  EXPECT_NE(a.train.canonical_text(), b.train.canonical_text());  // what a checkpoint must match
  EXPECT_EQ(point_id(a), point_id(b));
  EXPECT_EQ(point_id(a), point_id(unknown));
  EXPECT_EQ(group_id(a), group_id(b));
  EXPECT_EQ(config_from_attrs(config_attrs(a)).train.data_identity, a.train.data_identity);
  EXPECT_EQ(run_id_with_data(base()), run_id(base()));  // data/seg.h5 does not exist here: ""
}

TEST(RunConfig, AttrsRoundTrip) {
  RunConfig c = base();
  c.train.lr = 0.1 + 0.2;  // a double with no short decimal form
  c.train.seed = 12345678901ull;
  c.train.reference_kernels = true;
  c.world_size = 4;
  c.repetition = 3;
  c.scaling = Scaling::strong;
  c.train.strategy = StrategyKind::ring;
  c.train.cudnn_workspace_mib = 2048;
  const Attrs a = config_attrs(c);
  EXPECT_EQ(a.str("run_id"), run_id(c));
  EXPECT_EQ(a.integer("global_batch"), 32);
  EXPECT_EQ(a.str("config_text"), canonical_text(c));
  const RunConfig d = config_from_attrs(a);
  EXPECT_EQ(run_id(d), run_id(c));
  EXPECT_EQ(d.study, "s");
  EXPECT_DOUBLE_EQ(d.train.lr, c.train.lr);
  EXPECT_EQ(d.train.cudnn_workspace_mib, 2048);
}

TEST(RunConfig, ValidateNamesTheField) {
  RunConfig c = base();
  c.world_size = 2;  // single on two devices
  try {
    c.validate();
    FAIL();
  } catch (const scalebench::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--strategy single"), std::string::npos) << e.what();
  }
  // Names are parsed at the boundary: an unknown scaling never reaches a RunConfig.
  c = base();
  const Field<RunConfig>* scaling = nullptr;
  for (const auto& f : run_fields())
    if (f.key == "scaling") scaling = &f;
  ASSERT_NE(scaling, nullptr);
  const auto problem = scaling->parse(c, "medium");
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("'medium' is not one of: weak, strong"), std::string::npos) << *problem;
  EXPECT_EQ(c.scaling, Scaling::weak);
}
