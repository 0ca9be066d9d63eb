// conv_algo.h — the choice of cuDNN convolution algorithm for forward, backward-data and
// backward-filter: cudnnFind*AlgorithmEx (timed runs on the caller's buffers) under the workspace's
// cap, cached per ConvKey in an explicit ConvAlgoCache the owner passes around (no global state).
// Deterministic keys accept only results cuDNN reports as CUDNN_DETERMINISTIC; when no result fits,
// the error names the key, the cap and why each algorithm was refused.
// Not here: running convolutions (conv2d.h), heuristics-only choice, persistence to disk.
// Not thread-safe: one cache per device/handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

#include "kernels/cudnn/handle.h"
#include "kernels/cudnn/types.h"

namespace scalebench::cudnn {

struct ConvProblem;  // descriptors.h

enum class ConvDir : std::uint8_t { forward, backward_data, backward_filter };
const char* to_string(ConvDir d);

struct AlgoChoice {
  int algo = -1;                    // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t value
  std::size_t workspace_bytes = 0;  // what the algorithm needs (<= the workspace cap at choice time)
  float time_ms = 0.0f;             // Find's measurement
  bool deterministic = false;       // cuDNN's determinism report for it
  int math_type = 0;                // the cudnnMathType_t Find ran it with (cuDNN may pick another than
                                    // the descriptor's; executing with the wrong one answers BAD_PARAM,
                                    // seen for bf16 NHWC, c = 3): the cache sets it on the descriptor
  bool operator==(const AlgoChoice&) const = default;
};

class ConvAlgoCache {
 public:
  // The algorithm for `problem` in one direction: the cached choice, or on a miss one
  // cudnnFind*AlgorithmEx on these operands (which it overwrites: y, dx or dw respectively) with a
  // workspace of at most workspace.cap(). Throws scalebench::Error when nothing fits. Leaves
  // problem.conv set to the choice's math type (run the convolution with that descriptor).
  //   forward:         x [n,c,h,w], w [k,c,r,s]  → y  [n,k,ho,wo]
  //   backward_data:   w [k,c,r,s], dy [n,k,ho,wo] → dx [n,c,h,w]
  //   backward_filter: x [n,c,h,w], dy [n,k,ho,wo] → dw [k,c,r,s]
  AlgoChoice forward(Handle& handle, cuda::Workspace& workspace, const ConvProblem& problem, const void* x,
                     const void* w, void* y);
  AlgoChoice backward_data(Handle& handle, cuda::Workspace& workspace, const ConvProblem& problem, const void* w,
                           const void* dy, void* dx);
  AlgoChoice backward_filter(Handle& handle, cuda::Workspace& workspace, const ConvProblem& problem, const void* x,
                             const void* dy, void* dw);

  std::optional<AlgoChoice> lookup(ConvDir dir, const ConvKey& key) const;  // never runs Find
  std::size_t find_calls() const { return find_calls_; }  // cudnnFind*AlgorithmEx calls so far
  std::size_t size() const;                               // cached choices, all directions
  void clear();

 private:
  std::map<ConvKey, AlgoChoice> table_[3];  // indexed by ConvDir
  std::size_t find_calls_ = 0;
};

// What a convolution call needs besides its operands; all three belong to the caller (a layer's Ctx).
struct ConvContext {
  Handle& handle;
  cuda::Workspace& workspace;
  ConvAlgoCache& algos;
};

}  // namespace scalebench::cudnn
