// test_fields.cpp — the field tables (harness/train/field.h) as the one description of every run
// option: keys and flags are unique, every value round-trips through its text and stored forms,
// the keys that join run ids unconditionally are frozen, and adding an option with its default
// leaves every existing run, point and group id unchanged (the demo spec's and hand-made ones).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "harness/record/run_config.h"
#include "harness/study/spec/spec.h"

using namespace scalebench;
using record::FieldTables;
using record::RunConfig;

namespace {

std::vector<RunConfig> sample_points() {
  std::vector<RunConfig> pts = study::expand(study::load_spec(std::string(SB_SOURCE_DIR) + "/studies/cpu-demo.toml"));
  RunConfig c;
  c.train.model = "vgg11:width=0.25,bn=1";
  c.train.data = "cls.h5";
  c.train.strategy = StrategyKind::hierarchical;
  c.train.compression = comm::WireType::bf16;
  c.world_size = 4;
  c.scaling = record::Scaling::strong;
  pts.push_back(c);
  c.train.backend = Backend::cuda;
  c.train.precision = Precision::bf16;
  c.train.layout = Layout::NHWC;
  c.train.cudnn_workspace_mib = 4096;
  pts.push_back(c);
  return pts;
}

// A made-up option that reads an existing member under a new key (so its value can vary).
Field<TrainConfig> made_up(IdRule id) {
  Field<TrainConfig> f = make_field("zz_made_up", &TrainConfig::progress_seconds, "a made-up option");
  f.id = id;
  return f;
}

}  // namespace

TEST(Fields, KeysAndFlagsAreUnique) {
  std::set<std::string> keys, flags;
  for (const auto& f : train_fields()) {
    EXPECT_TRUE(keys.insert(std::string(f.key)).second) << f.key;
    EXPECT_TRUE(flags.insert(f.flag).second) << f.flag;
    EXPECT_FALSE(f.help.empty()) << f.key;
  }
  for (const auto& f : record::run_fields()) {
    EXPECT_TRUE(keys.insert(std::string(f.key)).second) << f.key;
    if (!f.flag.empty()) EXPECT_TRUE(flags.insert(f.flag).second) << f.flag;
  }
}

TEST(Fields, EveryValueRoundTripsThroughTextAndStoredForm) {
  for (const auto& p : sample_points()) {
    for (const auto& f : train_fields()) {
      TrainConfig back;
      EXPECT_EQ(f.parse(back, f.text(p.train)), std::nullopt) << f.key << " = " << f.text(p.train);
      EXPECT_EQ(f.text(back), f.text(p.train)) << f.key;
      TrainConfig stored;
      EXPECT_EQ(f.set_value(stored, f.value(p.train)), std::nullopt) << f.key;
      EXPECT_EQ(f.text(stored), f.text(p.train)) << f.key;
    }
    const RunConfig again = record::config_from_attrs(record::config_attrs(p));
    EXPECT_EQ(record::run_id(again), record::run_id(p));
    EXPECT_EQ(again.train.canonical_text(), p.train.canonical_text());
  }
}

TEST(Fields, BadTextNamesTheProblem) {
  TrainConfig c;
  const auto* epochs = find_train_field("epochs");
  ASSERT_NE(epochs, nullptr);
  EXPECT_EQ(epochs->parse(c, "0").value_or(""), "0 is out of range [1, 100000]");
  EXPECT_EQ(epochs->parse(c, "3x").value_or(""), "'3x' is not an integer");
  EXPECT_EQ(c.epochs, 3);  // a rejected value leaves the default
  EXPECT_EQ(find_train_field("strategy")->parse(c, "horovod").value_or(""),
            "'horovod' is not one of: single, mirrored, multiworker, ring, hierarchical, ps-sync, ps-async");
  EXPECT_NE(find_train_field("class_weights")->parse(c, "1,x").value_or("").find("bad item 'x'"), std::string::npos);
  EXPECT_EQ(find_train_field("lr")->parse(c, "inf").value_or(""), "'inf' is not a finite number");
  c.epochs = 0;  // set in code, bypassing the parser: validate() still catches it
  try {
    c.data = "d.h5";
    c.validate();
    FAIL() << "epochs 0 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--epochs: 0 is out of range [1, 100000]");
  }
}

// The keys that join every run id unconditionally are those of the first results (2026-11). A new
// option must join only when set (IdRule::unless_default) or never, or every committed baseline and
// every earlier study stops matching (as compression once did: commit c4ad2ce).
TEST(Fields, TheUnconditionalIdKeysAreFrozen) {
  const std::set<std::string> frozen = {
      "model", "data", "strategy", "backend", "precision", "epochs", "batch", "lr", "lr_scaling",
      "warmup_epochs", "lr_decay", "optimizer", "momentum", "weight_decay", "val_fraction", "class_weights",
      "seed", "reference_kernels", "threads", "max_steps", "bucket_mb", "no_overlap", "ranks_per_node",
      "staleness", "world_size", "repetition", "scaling"};
  std::set<std::string> always;
  for (const auto& f : train_fields())
    if (f.id == IdRule::always) always.insert(std::string(f.key));
  for (const auto& f : record::run_fields())
    if (f.id == IdRule::always) always.insert(std::string(f.key));
  EXPECT_EQ(always, frozen);
}

TEST(Fields, AddingAnOptionWithItsDefaultLeavesEveryIdUnchanged) {
  std::vector<Field<TrainConfig>> with(train_fields().begin(), train_fields().end());
  with.push_back(made_up(IdRule::unless_default));
  const FieldTables added{.train = with};
  std::vector<Field<TrainConfig>> wrong(train_fields().begin(), train_fields().end());
  wrong.push_back(made_up(IdRule::always));
  const FieldTables joined{.train = wrong};
  const auto points = sample_points();
  ASSERT_GE(points.size(), 9u);
  for (const auto& p : points) {
    EXPECT_EQ(record::run_id(p, added), record::run_id(p)) << record::point_label(p);
    EXPECT_EQ(record::point_id(p, added), record::point_id(p)) << record::point_label(p);
    EXPECT_EQ(record::group_id(p, added), record::group_id(p)) << record::point_label(p);
    // The test can fail: the same option joining unconditionally changes every id.
    EXPECT_NE(record::run_id(p, joined), record::run_id(p)) << record::point_label(p);
    // And once set, the new option does separate the runs.
    RunConfig set = p;
    set.train.progress_seconds = 5;
    EXPECT_NE(record::run_id(set, added), record::run_id(p)) << record::point_label(p);
  }
}
