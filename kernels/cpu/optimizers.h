// optimizers.h — optimizer updates over one flat parameter arena (all parameters contiguous), so a
// step is one pass over memory regardless of how many layers the model has. Decoupled weight decay
// for AdamW; SGD applies weight decay as L2 added to the gradient (PyTorch's SGD semantics).
#pragma once

#include <cstdint>

namespace scalebench::cpu {

// PyTorch SGD: g' = g + wd·w; m = momentum·m + g' (m = g' on the first step); w -= lr·m.
void sgd_momentum_step(std::int64_t count, float* w, const float* g, float* m, float lr, float momentum,
                       float weight_decay, bool first_step);

// PyTorch AdamW: w -= lr·wd·w; m,v moments; bias correction with step t (1-based).
void adamw_step(std::int64_t count, float* w, const float* g, float* m, float* v, float lr, float beta1,
                float beta2, float eps, float weight_decay, std::int64_t t);

}  // namespace scalebench::cpu
