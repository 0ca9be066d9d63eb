// loss.h — the training loss: softmax cross-entropy per pixel (U-Net) or per sample (VGG), with
// optional class weights, over logits [n, C, h, w] or [n, C]. Labels must already match the logits'
// spatial size; center_crop_labels makes them match for valid-padding U-Nets (output < input).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor.h"

namespace scalebench {

// labels [n, H, W] → [n, h, w], the centred h×w window (the same window the U-Net's crops keep).
std::vector<std::int32_t> center_crop_labels(const std::int32_t* labels, int n, int H, int W, int h, int w);

// Returns the (weighted-mean) loss; writes dlogits (logits' shape) when non-null.
// class_weights empty means unweighted.
double softmax_cross_entropy(const Tensor& logits, const std::int32_t* labels,
                             const std::vector<float>& class_weights, Tensor* dlogits);

// Per-position predicted class, [n·h·w] or [n].
std::vector<std::int32_t> predict_classes(const Tensor& logits);

}  // namespace scalebench
