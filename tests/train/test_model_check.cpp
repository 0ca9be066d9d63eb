// test_model_check.cpp — a model that does not fit the dataset's task fails before training with
// one line naming the model, the file and the mismatch (harness/train/model_check.h). Before the
// check, VGG on segmentation data indexed logits dimensions it does not have (exit 139) and U-Net on
// classification data read past the label buffer (valgrind: invalid read of size 4); the end-to-end
// cases run the scalebench binary on such pairs and require exit 1 with that line.
#include <gtest/gtest.h>

#include "harness/data/particle_gen.h"
#include "harness/train/model_check.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench;

namespace {

data::DatasetInfo info_of(data::Task task) {
  data::DatasetInfo info;
  info.task = task;
  info.n = 16;
  info.height = info.width = 32;
  info.classes = task == data::Task::segmentation ? 3 : 5;
  return info;
}

std::string error_of(const std::string& model, data::Task task) {
  try {
    check_model_fits(parse_model_spec(model), info_of(task), "data/x.h5");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_all(const std::string& msg, const std::vector<std::string>& needles) {
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
}

std::string make_data(const sbtest::TempDir& dir, data::Task task, int n, int size) {
  data::GenConfig g;
  g.task = task;
  g.n = n;
  g.size = size;
  const std::string path = dir / (std::string(data::to_string(task)) + ".h5");
  data::write_dataset(g, path, 0);
  return path;
}

}  // namespace

TEST(ModelCheck, MatchingPairsPass) {
  EXPECT_EQ(error_of("unet:depth=2,base=4", data::Task::segmentation), "");
  EXPECT_EQ(error_of("vgg11:width=0.0625", data::Task::classification), "");
  EXPECT_EQ(error_of("vgg19", data::Task::classification), "");
  EXPECT_EQ(task_of(parse_model_spec("unet")), data::Task::segmentation);
  EXPECT_EQ(task_of(parse_model_spec("vgg16:width=0.25")), data::Task::classification);
}

TEST(ModelCheck, UnetOnClassificationDataNamesModelFileAndLabels) {
  expect_all(error_of("unet:depth=2,base=4", data::Task::classification),
             {"unet:depth=2,base=4", "data/x.h5", "segmentation labels [N, H, W]", "classification labels [N]"});
}

TEST(ModelCheck, VggOnSegmentationDataNamesModelFileAndLabels) {
  expect_all(error_of("vgg11:width=0.0625", data::Task::segmentation),
             {"vgg11:width=0.0625", "data/x.h5", "classification labels [N]", "segmentation labels [N, H, W]"});
}

TEST(ModelCheck, EmptyShapeIsRefused) {
  data::DatasetInfo info = info_of(data::Task::segmentation);
  info.n = 0;
  EXPECT_THROW(check_model_fits(parse_model_spec("unet"), info, "x.h5"), Error);
}

namespace {

// The binary end to end: exit 1 with the one line, not a crash or a loss over foreign memory.
void expect_train_refused(const std::string& model, data::Task task, int n, int size) {
  sbtest::TempDir dir;
  const std::string data = make_data(dir, task, n, size);
  std::string out;
  const int rc = sbtest::run(std::string(SB_BINARY) + " train --model " + model + " --data " + data +
                                 " --epochs 1 --batch 8 --max-steps 1 --threads 1",
                             &out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("scalebench: error: model " + model + " does not fit dataset " + data), std::string::npos)
      << out;
}

}  // namespace

TEST(ModelCheck, TrainRefusesVggOnSegmentationData) {
  expect_train_refused("vgg11:width=0.0625,hidden=16", data::Task::segmentation, 64, 64);  // before: exit 139
}

TEST(ModelCheck, TrainRefusesUnetOnClassificationData) {
  expect_train_refused("unet:depth=2,base=4", data::Task::classification, 24, 32);  // before: read past the labels
}
