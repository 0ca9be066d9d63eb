// model_check.h — does the model fit the dataset before anything trains? U-Net predicts a class per
// pixel and needs segmentation labels [N, H, W]; VGG predicts one class per image and needs
// classification labels [N]. The loss reads as many labels as the model has outputs, so a mismatch
// would read past the label buffer (U-Net on classification data) or index a logits shape it does
// not have (VGG on segmentation data) instead of failing; RankState calls this first.
// What it leaves to others: image sizes and class counts are checked where each model is built
// (models/unet.cpp, models/vgg.cpp) and by every layer's setup; the file itself by data::Dataset.
#pragma once

#include <string>

#include "harness/data/dataset.h"
#include "models/spec.h"

namespace scalebench {

// The task a model family trains on (unet: segmentation, vgg*: classification).
data::Task task_of(const ModelSpec& spec);

// Throws scalebench::Error, one line naming the model, the dataset file and what does not match.
void check_model_fits(const ModelSpec& spec, const data::DatasetInfo& info, const std::string& data_path);

}  // namespace scalebench
