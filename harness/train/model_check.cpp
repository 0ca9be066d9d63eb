// model_check.cpp — model family against the dataset's task and label shape (see model_check.h).
#include "harness/train/model_check.h"

#include "kernels/common/check.h"

namespace scalebench {
namespace {

std::string label_shape(data::Task t) { return t == data::Task::segmentation ? "[N, H, W]" : "[N]"; }

}  // namespace

data::Task task_of(const ModelSpec& spec) {
  return spec.family == "unet" ? data::Task::segmentation : data::Task::classification;
}

void check_model_fits(const ModelSpec& spec, const data::DatasetInfo& info, const std::string& data_path) {
  const data::Task need = task_of(spec);
  const bool unet = need == data::Task::segmentation;
  SB_REQUIRE(info.task == need,
             "model {} does not fit dataset {}: {} predicts {} and needs {} labels {}, but the file holds {} "
             "labels {} (use {} or a {} dataset)",
             spec.text, data_path, unet ? "U-Net" : "VGG", unet ? "a class per pixel" : "one class per image",
             data::to_string(need), label_shape(need), data::to_string(info.task), label_shape(info.task),
             unet ? "a vgg model" : "a unet model", data::to_string(need));
  SB_REQUIRE(info.n >= 1 && info.channels >= 1 && info.height >= 1 && info.width >= 1 && info.classes >= 2,
             "model {} does not fit dataset {}: it holds {} images of {}x{}x{} with {} classes", spec.text, data_path,
             info.n, info.channels, info.height, info.width, info.classes);
}

}  // namespace scalebench
