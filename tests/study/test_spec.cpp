// test_spec.cpp — sweep spec parsing, expansion into points, and bad specs rejected with
// file:line:column and the field.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "harness/record/run_config.h"
#include "harness/study/spec/overrides.h"
#include "harness/study/spec/spec.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::study;

namespace {

const char* kSpec = R"(
[study]
name = "t"
repetitions = 2

[dataset]
task = "segmentation"
n = 64
size = 32
seed = 3

[sweep]
models = ["unet:depth=2,base=4", "vgg11:width=0.0625"]
strategies = ["single", "ring"]
devices = "1:4:*2"
batch = 8

[train]
epochs = 2
lr = 0.1
lr_scaling = "linear"
)";

// The error message of parsing `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_spec(text, "s.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Spec, ParsesAndExpands) {
  const SweepSpec s = parse_spec(kSpec, "s.toml");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.output, "results/t");
  EXPECT_EQ(s.devices, (std::vector<int>{1, 2, 4}));
  ASSERT_TRUE(s.generate);
  EXPECT_EQ(s.data, "results/t/data/segmentation-n64-s32-seed3.h5");
  const auto pts = expand(s);
  // Per repetition and model: single once (N=1) + ring at 1, 2, 4 → 4; × 2 models × 2 repetitions.
  ASSERT_EQ(pts.size(), 16u);
  EXPECT_EQ(pts[0].train.strategy, StrategyKind::single);
  EXPECT_EQ(pts[0].world_size, 1);
  EXPECT_EQ(pts[3].train.strategy, StrategyKind::ring);
  EXPECT_EQ(pts[3].world_size, 4);
  EXPECT_EQ(pts[3].train.batch, 8);  // weak scaling: per-device batch fixed
  EXPECT_EQ(pts[3].global_batch(), 32);
  EXPECT_EQ(pts[0].repetition, 1);
  EXPECT_EQ(pts[8].repetition, 2);  // repetition is the outermost loop
  EXPECT_EQ(pts[3].train.lr, 0.1);
  EXPECT_EQ(pts[3].train.epochs, 2);
  EXPECT_EQ(pts[3].study, "t");
  std::set<std::string> ids;
  for (const auto& p : pts) ids.insert(record::run_id(p));
  EXPECT_EQ(ids.size(), pts.size()) << "run ids must be distinct";
  // Stable: the same spec expands to the same ids.
  const auto again = expand(parse_spec(kSpec, "other-name.toml"));
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(record::run_id(pts[i]), record::run_id(again[i]));
}

TEST(Spec, StrongScalingSplitsTheGlobalBatch) {
  const SweepSpec s = parse_spec(R"(
[study]
name = "strong"
[dataset]
path = "data/x.h5"
[sweep]
models = ["unet"]
strategies = ["mirrored"]
devices = [1, 2, 4]
scaling = "strong"
global_batch = 16
)", "s.toml");
  const auto pts = expand(s);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[2].train.batch, 4);
  EXPECT_EQ(pts[2].global_batch(), 16);
  EXPECT_EQ(pts[0].train.data, "data/x.h5");
  EXPECT_EQ(record::group_id(pts[0]), record::group_id(pts[2]));
}

TEST(Spec, DeviceRanges) {
  EXPECT_EQ(parse_device_range("1:8:*2"), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(parse_device_range("2:8:+2"), (std::vector<int>{2, 4, 6, 8}));
  EXPECT_EQ(parse_device_range("2:8:3"), (std::vector<int>{2, 5, 8}));
  EXPECT_EQ(parse_device_range("1:4"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(parse_device_range("3"), (std::vector<int>{3}));
  EXPECT_EQ(parse_device_range("1:10:*3"), (std::vector<int>{1, 3, 9}));
  for (const char* bad : {"", "0:4", "4:1", "1:8:*1", "1:8:x", "1:2:3:4", "a", "1:8:+0"})
    EXPECT_THROW(parse_device_range(bad), Error) << bad;
}

TEST(Spec, BadSpecsNameLineColumnAndField) {
  struct Case {
    std::string text, want;
  };
  const std::string head = "[study]\nname = \"t\"\n[dataset]\npath = \"d.h5\"\n";
  const std::string sweep = "[sweep]\nmodels = [\"unet\"]\nstrategies = [\"single\"]\ndevices = [1]\nbatch = 8\n";
  const std::vector<Case> cases = {
      {"[study\nname = 1", "s.toml:1:"},  // TOML syntax error, with its position
      {head + sweep + "[train]\nepochz = 3\n", "s.toml:11:1: train.epochz: unknown key"},
      {head + sweep + "[train]\nepochs = \"three\"\n", "s.toml:11:10: train.epochs: expected an integer"},
      {head + sweep + "[train]\nepochs = 0\n", "s.toml:11:10: train.epochs: 0 is out of range"},
      {head + sweep + "[train]\nlr_scaling = \"cubic\"\n", "s.toml:11:14: train.lr_scaling: 'cubic' is not one of"},
      {head + "[sweep]\nmodels = [\"unet\", \"resnet50\"]\nstrategies = [\"single\"]\ndevices = [1]\nbatch = 8\n",
       "s.toml:6:19: sweep.models: model spec 'resnet50': unknown model"},
      {head + "[sweep]\nmodels = [\"unet\"]\nstrategies = [\"single\", \"horovod\"]\ndevices = [1]\nbatch = 8\n",
       "s.toml:7:25: sweep.strategies: 'horovod' is not one of: single, mirrored"},
      {head + "[sweep]\nmodels = [\"unet\"]\nstrategies = [\"ring\"]\ndevices = \"1:8:*1\"\nbatch = 8\n",
       "s.toml:8:11: sweep.devices:"},
      {head + "[sweep]\nmodels = [\"unet\"]\nstrategies = [\"ring\"]\ndevices = [1, 0]\nbatch = 8\n",
       "s.toml:8:15: sweep.devices: each device count"},
      {head + "[sweep]\nmodels = [\"unet\"]\nstrategies = [\"ring\"]\ndevices = [1, 3]\nscaling = \"strong\"\n"
              "global_batch = 16\n",
       "s.toml:10:16: sweep.global_batch: 16 is not divisible by 3 devices"},
      {head + "[sweep]\nmodels = [\"unet\"]\nstrategies = [\"ring\"]\ndevices = [1]\n", "s.toml:5:1: sweep.batch: required"},
      {head + "[sweep]\nstrategies = [\"ring\"]\ndevices = [1]\nbatch = 8\n", "s.toml:5:1: sweep.models: required"},
      {"[study]\nname = \"t\"\n[dataset]\npath = \"d.h5\"\nn = 5\n" + sweep,
       "s.toml:4:8: dataset.path: give either path or a recipe"},
      {"[study]\nname = \"a b\"\n[dataset]\npath = \"d.h5\"\n" + sweep, "s.toml:2:8: study.name:"},
      {"[study]\n[dataset]\npath = \"d.h5\"\n" + sweep, "s.toml:1:1: study.name: required"},
      {head + sweep + "[extra]\nx = 1\n", "s.toml:10:2: extra: unknown section"},
      {head + sweep + "[train]\nmomentum = 1.5\n", "s.toml:11:12: train.momentum: 1.5 must be in [0, 1)"},
      {head + sweep + "[train]\ncudnn_workspace_mib = -2\n", "s.toml:11:23: train.cudnn_workspace_mib: -2 is out of range"},
      // A control character in a folder or file name (a folder named "\n"): refused, shown escaped.
      {"[study]\nname = \"t\"\noutput = \"\\n\"\n[dataset]\npath = \"d.h5\"\n" + sweep,
       "s.toml:3:10: study.output: '\\n' holds the control character 0x0a at position 1"},
      {"[study]\nname = \"t\"\n[dataset]\npath = \"d\\u001b[1m.h5\"\n" + sweep,
       "s.toml:4:8: dataset.path: 'd\\x1b[1m.h5' holds the control character 0x1b at position 2"},
  };
  for (const auto& c : cases) {
    const std::string err = error_of(c.text);
    EXPECT_NE(err.find(c.want), std::string::npos) << "want: " << c.want << "\n got: " << err << "\nspec:\n" << c.text;
  }
}

TEST(Spec, LoadNamesAMissingFile) {
  try {
    load_spec("/nonexistent/spec.toml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/spec.toml"), std::string::npos);
  }
}

// [sweep] axes: any run option a spec may set, swept over a list; batch as a list too.
const char* kAxes = R"(
[study]
name = "axes"
[dataset]
path = "d.h5"
[sweep]
models = ["unet:depth=2,base=4"]
strategies = ["single", "ring"]
devices = [1, 2]
batch = [2, 4]
compression = ["none", "bf16"]
bucket_mb = [0.25, 4]
)";

TEST(Spec, SweepAxesExpandAsACartesianProduct) {
  const SweepSpec s = parse_spec(kAxes, "s.toml");
  ASSERT_EQ(s.axes.size(), 2u);
  EXPECT_EQ(s.axes[0].key, "bucket_mb");  // axes in key order (a TOML table has no order)
  EXPECT_EQ(s.axes[0].values, (std::vector<std::string>{"0.25", "4"}));
  EXPECT_EQ(s.axes[1].values, (std::vector<std::string>{"none", "bf16"}));  // values in the order written
  EXPECT_EQ(s.batches, (std::vector<int>{2, 4}));
  const auto pts = expand(s);
  // Per batch: ring at N = 1, 2 for each of 2 × 2 axis values (8), single once: it uses neither
  // compression nor buckets, so it runs at the [train] values only (1). × 2 batches.
  ASSERT_EQ(pts.size(), 18u);
  std::set<std::string> ids, singles;
  int bf16 = 0;
  for (const auto& p : pts) {
    ids.insert(record::run_id(p));
    if (p.train.strategy == StrategyKind::single) {
      EXPECT_EQ(p.train.compression, comm::WireType::f32);
      EXPECT_EQ(p.train.bucket_mb, TrainConfig{}.bucket_mb);
      EXPECT_EQ(axes_label(s, p), fmt::format(" b={}", p.train.batch));
    } else {
      bf16 += p.train.compression == comm::WireType::bf16;
    }
  }
  EXPECT_EQ(ids.size(), pts.size());  // every point its own run id
  EXPECT_EQ(bf16, 8);
  EXPECT_EQ(pts[1].train.strategy, StrategyKind::ring);
  EXPECT_EQ(axes_label(s, pts[1]), " b=2 bucket_mb=0.25 compression=none");
}

TEST(Spec, SweepAxesRejectBadInput) {
  const std::string head = "[study]\nname = \"t\"\n[dataset]\npath = \"d.h5\"\n[sweep]\nmodels = [\"unet\"]\n"
                           "strategies = [\"ring\"]\ndevices = [1]\nbatch = 4\n";
  EXPECT_NE(error_of(head + "compression = \"bf16\"\n").find("s.toml:10:15: sweep.compression: expected a non-empty list"),
            std::string::npos)
      << error_of(head + "compression = \"bf16\"\n");
  EXPECT_NE(error_of(head + "compression = [\"none\", \"zip\"]\n").find("s.toml:10:24: sweep.compression: 'zip'"),
            std::string::npos)
      << error_of(head + "compression = [\"none\", \"zip\"]\n");
  EXPECT_NE(error_of(head + "bucket_mb = [1, 1]\n").find("sweep.bucket_mb: '1' is listed twice"), std::string::npos);
  EXPECT_NE(error_of(head + "bucket_mb = [1, -1]\n").find("sweep.bucket_mb: -1 must be > 0"), std::string::npos)
      << error_of(head + "bucket_mb = [1, -1]\n");
  EXPECT_NE(error_of(head + "epochz = [1]\n").find("sweep.epochz: unknown key (known: batch,"), std::string::npos);
  EXPECT_NE(error_of(head + "data = [\"a\"]\n").find("sweep.data: unknown key"), std::string::npos);
  EXPECT_NE(error_of(head + "epochs = [1, 2]\n[train]\nepochs = 3\n").find("s.toml:12:10: train.epochs: also swept"),
            std::string::npos)
      << error_of(head + "epochs = [1, 2]\n[train]\nepochs = 3\n");
  // A swept value no point of a strategy that uses it can run is a point error before anything runs.
  const std::string bad = head + "precision = [\"fp32\", \"bf16\"]\n";
  try {
    expand(parse_spec(bad, "s.toml"));
    ADD_FAILURE() << "cpu with precision bf16 expanded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("point unet ring N=1 b=4 precision=bf16: --precision bf16"), std::string::npos)
        << e.what();
  }
  EXPECT_NE(error_of(head.substr(0, head.size() - 10) + "batch = [4, 0]\n").find("sweep.batch: each value"),
            std::string::npos);
}

// sweep --repetitions K: the spec's [study] repetitions replaced (or added) in the text the study
// folder keeps, the points K times over with the repetition outermost; K out of range is one line.
TEST(Spec, RepetitionsOverride) {
  const SweepSpec s = with_repetitions(parse_spec(kSpec, "s.toml"), 5);
  EXPECT_EQ(s.repetitions, 5);
  EXPECT_EQ(s.source, "s.toml");
  EXPECT_NE(s.text.find("repetitions = 5  # sweep --repetitions 5 (the spec said 2)"), std::string::npos) << s.text;
  EXPECT_EQ(s.text.find("repetitions = 2\n"), std::string::npos) << s.text;
  EXPECT_EQ(parse_spec(s.text, "again.toml").repetitions, 5);  // what a Slurm point reads back
  const auto pts = expand(s);
  ASSERT_EQ(pts.size(), 40u);  // 8 points × 5
  EXPECT_EQ(pts.front().repetition, 1);
  EXPECT_EQ(pts[8].repetition, 2);  // interleaved: every point once, then every point again
  std::string no_key = kSpec;
  no_key.erase(no_key.find("repetitions = 2\n"), 16);
  EXPECT_EQ(with_repetitions(parse_spec(no_key, "s.toml"), 3).repetitions, 3);
  try {
    with_repetitions(parse_spec(kSpec, "s.toml"), 0);
    ADD_FAILURE() << "0 repetitions accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--repetitions 0: must be 1-1000"), std::string::npos) << e.what();
  }
}

// sweep --set/--name/--output: a variant written into the spec's text (kept as study.toml) and
// parsed again; a key's value over several lines is replaced whole; a key or a section not in the
// spec is added; a bare word is a string; a bad argument or value is one line naming it.
TEST(Spec, SetOverridesWriteAVariantIntoTheText) {
  std::string text = kSpec;
  text.replace(text.find("strategies = [\"single\", \"ring\"]"), 31, "strategies = [\n  \"single\",\n  \"ring\",\n]");
  const SweepSpec base = parse_spec(text, "s.toml");
  const SweepSpec s = with_overrides(base, {parse_set("train.lr=0.05"), parse_set("sweep.strategies=[\"ring\"]"),
                                            parse_set("train.momentum=0.8"),
                                            string_override("study", "name", "t2", "--name t2")});
  EXPECT_EQ(s.source, "s.toml");
  EXPECT_DOUBLE_EQ(s.train.lr, 0.05);
  EXPECT_DOUBLE_EQ(s.train.momentum, 0.8);
  ASSERT_EQ(s.strategies.size(), 1u);
  EXPECT_EQ(s.name, "t2");
  EXPECT_EQ(s.output, "results/t2");  // the default output follows the name
  EXPECT_NE(s.text.find("lr = 0.05  # sweep --set train.lr=0.05 (the spec said 0.1)"), std::string::npos) << s.text;
  EXPECT_EQ(s.text.find("  \"single\",\n"), std::string::npos) << s.text;  // every line of the old value gone
  EXPECT_NE(s.text.find("[train]\nmomentum = 0.8  # sweep --set train.momentum=0.8 (not in the spec)"),
            std::string::npos) << s.text;
  std::string no_train = text;
  no_train.erase(no_train.find("[train]"));
  const SweepSpec added = with_overrides(parse_spec(no_train, "s.toml"), {parse_set("train.lr=0.2")});
  EXPECT_NE(added.text.find("[train]\nlr = 0.2  # sweep --set train.lr=0.2 (not in the spec)"), std::string::npos)
      << added.text;
  EXPECT_DOUBLE_EQ(added.train.lr, 0.2);
  EXPECT_EQ(parse_spec(s.text, "again.toml").train.lr, 0.05);  // what a Slurm point reads back
  EXPECT_EQ(describe_overrides(base, {parse_set("train.lr=0.05")}), "train.lr = 0.05 (the spec said 0.1)\n");
  EXPECT_EQ(parse_set("dataset.path=data/a b.h5").value, "\"data/a b.h5\"");
  EXPECT_EQ(parse_set("sweep.devices=[1, 2]").value, "[1, 2]");
  const auto error = [&](const std::vector<SpecOverride>& o) {
    try {
      with_overrides(base, o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error({parse_set("train.lr=fast")}).find("s.toml (with --set train.lr=fast):"), std::string::npos)
      << error({parse_set("train.lr=fast")});
  EXPECT_NE(error({parse_set("train.lr=fast")}).find("train.lr"), std::string::npos);
  EXPECT_NE(error({parse_set("train.no_such_key=1")}).find("no_such_key"), std::string::npos);
  for (const char* bad : {"lr=0.1", "train.lr", ".lr=1", "train.=1"}) try {
      parse_set(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("expected section.key=value"), std::string::npos) << e.what();
    }
}

// [sweep.strategy_devices]: a GPU study gives mirrored (one process, one node) up to one node's
// GPUs and ring beyond; strategies not listed run at `devices`, single at its smallest.
TEST(Spec, StrategyDevicesGiveAStrategyItsOwnCounts) {
  const std::string text = R"(
[study]
name = "gpu"
[dataset]
path = "d.h5"
[sweep]
models = ["unet"]
strategies = ["single", "mirrored", "ring", "multiworker"]
devices = "1:16:*2"
batch = 8
[sweep.strategy_devices]
mirrored = [1, 2, 4]
ring = "2:32:*2"
)";
  const SweepSpec s = parse_spec(text, "s.toml");
  EXPECT_EQ(devices_of(s, StrategyKind::mirrored), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(devices_of(s, StrategyKind::ring), (std::vector<int>{2, 4, 8, 16, 32}));
  EXPECT_EQ(devices_of(s, StrategyKind::multiworker), (std::vector<int>{1, 2, 4, 8, 16}));
  std::map<StrategyKind, std::vector<int>> ns;
  for (const auto& p : expand(s)) ns[p.train.strategy].push_back(p.world_size);
  EXPECT_EQ(ns[StrategyKind::single], (std::vector<int>{1}));
  EXPECT_EQ(ns[StrategyKind::mirrored], (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(ns[StrategyKind::ring], (std::vector<int>{2, 4, 8, 16, 32}));
  EXPECT_EQ(ns[StrategyKind::multiworker], (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(points_summary(s, expand(s).size()),
            "14 points = 1 model x (single at N=1 + mirrored at N=1,2,4 + ring at N=2,4,8,16,32 + multiworker at "
            "N=1,2,4,8,16) x 1 repetition");
  // The inline-table form reads the same.
  std::string inline_form = text.substr(0, text.find("[sweep.strategy_devices]")) +
                            "strategy_devices = { mirrored = [1, 2, 4], ring = \"2:32:*2\" }\n";
  EXPECT_EQ(expand(parse_spec(inline_form, "s.toml")).size(), 14u);
}

TEST(Spec, StrategyDevicesRejectBadInput) {
  const std::string head = "[study]\nname = \"t\"\n[dataset]\npath = \"d.h5\"\n[sweep]\nmodels = [\"unet\"]\n"
                           "strategies = [\"single\", \"ring\"]\ndevices = [1, 2]\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"batch = 4\nstrategy_devices = { horovod = [1] }\n",
       "s.toml:10:22: sweep.strategy_devices.horovod: 'horovod' is not one of: single, mirrored"},
      {"batch = 4\nstrategy_devices = { mirrored = [1] }\n",
       "s.toml:10:22: sweep.strategy_devices.mirrored: 'mirrored' is not in sweep.strategies"},
      {"batch = 4\nstrategy_devices = { single = [1, 2] }\n",
       "s.toml:10:22: sweep.strategy_devices.single: single runs on one device, once, at the smallest of "
       "sweep.devices; it takes no device list"},
      {"batch = 4\nstrategy_devices = { ring = [1, 0] }\n",
       "s.toml:10:33: sweep.strategy_devices.ring: each device count must be an integer in [1, 65536]"},
      {"batch = 4\nstrategy_devices = { ring = \"8:1\" }\n", "s.toml:10:29: sweep.strategy_devices.ring: '8:1': need"},
      {"batch = 4\nstrategy_devices = { ring = [2, 2] }\n",
       "s.toml:10:29: sweep.strategy_devices.ring: a device count is listed twice"},
      {"batch = 4\nstrategy_devices = [1, 2]\n", "s.toml:10:20: sweep.strategy_devices: expected a table"},
      // strong scaling splits the global batch over each strategy's own counts too
      {"scaling = \"strong\"\nglobal_batch = 8\nstrategy_devices = { ring = [1, 2, 3] }\n",
       "sweep.global_batch: 8 is not divisible by 3 devices"},
  };
  for (const auto& [tail, want] : cases) {
    const std::string err = error_of(head + tail);
    EXPECT_NE(err.find(want), std::string::npos) << "want: " << want << "\n got: " << err;
  }
}

// The sweep header's count is the product it prints (single and unused axes counted once).
TEST(Spec, PointsSummaryMatchesTheCount) {
  const SweepSpec s = parse_spec(kAxes, "s.toml");
  const std::string sum = points_summary(s, expand(s).size());
  EXPECT_EQ(sum, "18 points = 1 model x 2 batches x (single at N=1 + ring at N=1,2 x 2 bucket_mb x 2 compression) x "
                 "1 repetition");
  EXPECT_EQ(points_summary(parse_spec(kSpec, "s.toml"), 16),
            "16 points = 2 models x (single at N=1 + ring at N=1,2,4) x 2 repetitions");
}
