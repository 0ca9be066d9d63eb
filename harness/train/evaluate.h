// evaluate.h — held-out evaluation: mean loss and confusion counts over a contiguous index range,
// in eval mode (batch-norm running statistics, no dropout), including a final partial batch.
// A held-out image with a non-finite element, or a non-finite validation loss, fails the run (one
// line naming the sample): neither can give a figure worth recording.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/data/dataset.h"
#include "harness/train/train_config.h"
#include "harness/train/metrics.h"
#include "models/ctx.h"
#include "models/model.h"

namespace scalebench {

struct EvalResult {
  double loss = 0;
  ConfusionMatrix confusion{1};
};

class StepIO;
// io: the backend's input upload, loss and predictions (step_io.h).
EvalResult evaluate(Model& model, Ctx& ctx, StepIO& io, const data::Dataset& ds, std::int64_t begin, std::int64_t end,
                    int batch, const std::vector<float>& class_weights);

// Labels as the loss sees them: segmentation labels centre-cropped to the logits' h×w when the
// model's output is smaller than its input (valid padding); otherwise unchanged.
std::vector<std::int32_t> labels_for_logits(const std::vector<std::int32_t>& labels, const Shape& input,
                                            const Shape& logits, const data::DatasetInfo& info);

// The loss's class weights: none → {}, auto → inverse square root of the class frequencies in up
// to 64 training samples (normalised to a mean weight of 1 per pixel; only for segmentation, where
// background dominates), given → the list, which must have one weight per class of the dataset.
std::vector<float> resolve_class_weights(const ClassWeights& option, const data::Dataset& ds, std::int64_t n_train);

}  // namespace scalebench
