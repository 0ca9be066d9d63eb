// conv_algo.cpp — algorithm choice by cudnnFind*AlgorithmEx, cached per ConvKey (see
// conv_algo.h). Find is given a workspace sized to the largest cudnnGet*WorkspaceSize among the
// algorithms that support the problem, clipped to the cap, so small problems do not allocate the
// whole cap. The convolution descriptor's math type (from Precision) is what Find runs and what the
// caller asks for; a result may report another math type (e.g. default math where tensor cores do not
// fit the channel count); the cache sets the chosen one on the problem's descriptor, so the caller's
// next call executes what Find measured.
// Under strict fp32 a result that would run on tensor cores (TF32 rounding) is refused.
#include "kernels/cudnn/conv_algo.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cudnn/check.h"
#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {
namespace {

// The caller's operand pointers in the order of the direction's Find call.
struct Operands {
  const void* a;  // forward: x   backward_data: w   backward_filter: x
  const void* b;  // forward: w   backward_data: dy  backward_filter: dy
  void* out;      // forward: y   backward_data: dx  backward_filter: dw
};

template <ConvDir D>
struct Traits;

template <>
struct Traits<ConvDir::forward> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static cudnnStatus_t workspace(cudnnHandle_t h, const ConvProblem& p, int algo, std::size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, p.x.get(), p.w.get(), p.conv.get(), p.y.get(),
                                                   static_cast<cudnnConvolutionFwdAlgo_t>(algo), bytes);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const ConvProblem& p, const Operands& o, int* got, Perf* perf,
                            void* ws, std::size_t ws_bytes) {
    return cudnnFindConvolutionForwardAlgorithmEx(h, p.x.get(), o.a, p.w.get(), o.b, p.conv.get(), p.y.get(), o.out,
                                                  kAlgos, got, perf, ws, ws_bytes);
  }
};

template <>
struct Traits<ConvDir::backward_data> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static cudnnStatus_t workspace(cudnnHandle_t h, const ConvProblem& p, int algo, std::size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w.get(), p.y.get(), p.conv.get(), p.x.get(),
                                                        static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const ConvProblem& p, const Operands& o, int* got, Perf* perf,
                            void* ws, std::size_t ws_bytes) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, p.w.get(), o.a, p.y.get(), o.b, p.conv.get(), p.x.get(),
                                                       o.out, kAlgos, got, perf, ws, ws_bytes);
  }
};

template <>
struct Traits<ConvDir::backward_filter> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static cudnnStatus_t workspace(cudnnHandle_t h, const ConvProblem& p, int algo, std::size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.x.get(), p.y.get(), p.conv.get(), p.w.get(),
                                                          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), bytes);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const ConvProblem& p, const Operands& o, int* got, Perf* perf,
                            void* ws, std::size_t ws_bytes) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, p.x.get(), o.a, p.y.get(), o.b, p.conv.get(), p.w.get(),
                                                         o.out, kAlgos, got, perf, ws, ws_bytes);
  }
};

double mib(std::size_t b) { return double(b) / double(std::size_t(1) << 20); }

template <ConvDir D>
AlgoChoice find_best(Handle& handle, cuda::Workspace& ws, const ConvProblem& p, const Operands& o) {
  using T = Traits<D>;
  const ConvKey& key = p.key;
  // Workspace for Find: the largest need among algorithms that support the problem, within the cap.
  std::size_t want = 0;
  for (int a = 0; a < T::kAlgos; ++a) {
    std::size_t bytes = 0;
    if (T::workspace(handle.get(), p, a, &bytes) == CUDNN_STATUS_SUCCESS && bytes <= ws.cap())
      want = std::max(want, bytes);
  }
  ws.get(want);
  std::vector<typename T::Perf> perf(T::kAlgos);
  int got = 0;
  const cudnnStatus_t st = T::find(handle.get(), p, o, &got, perf.data(), ws.data(), ws.size());
  if (st != CUDNN_STATUS_SUCCESS)
    fail_at(__FILE__, __LINE__,
            fmt::format("cudnnFind*AlgorithmEx ({}) failed for {}: {} ({})", to_string(D), to_string(key),
                        cudnnGetErrorString(st), static_cast<int>(st)));

  // Deterministic keys: every deterministic algorithm repeats its own bits, but two of them differ,
  // and Find's timing order changes from run to run. Take the lowest-numbered acceptable algorithm,
  // so the choice, and with it the results, depend on nothing measured. Find lists an algorithm once
  // per math type (default and tensor-op math give other bits), so the math type is part of the
  // order too: sorted by the algorithm alone, Find's timing picked between them, and a bf16 run under
  // a busy GPU took the other one (ModelDeterministic failed under ctest -j 8 on an H200).
  if (key.deterministic)
    std::sort(perf.begin(), perf.begin() + got, [](const auto& a, const auto& b) {
      return a.algo != b.algo ? a.algo < b.algo : a.mathType < b.mathType;
    });
  std::string refused;  // why each result was passed over, for the error below
  for (int i = 0; i < got; ++i) {
    const auto& r = perf[static_cast<std::size_t>(i)];
    const char* why = nullptr;
    if (r.status != CUDNN_STATUS_SUCCESS)
      why = cudnnGetErrorString(r.status);
    else if (r.memory > ws.cap())
      why = "needs more workspace than the cap";
    else if (key.deterministic && r.determinism != CUDNN_DETERMINISTIC)
      why = "not deterministic";
    else if (key.precision == Precision::fp32 &&
             (r.mathType == CUDNN_TENSOR_OP_MATH || r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION))
      why = "tensor-core math under strict fp32";
    if (!why)
      return AlgoChoice{static_cast<int>(r.algo), r.memory, r.time, r.determinism == CUDNN_DETERMINISTIC,
                        static_cast<int>(r.mathType)};
    refused += fmt::format("{}algo {} ({}, {:.1f} MiB)", refused.empty() ? "" : "; ", static_cast<int>(r.algo),
                           why, mib(r.memory));
  }
  fail_at(__FILE__, __LINE__,
          fmt::format("no cuDNN convolution {} algorithm fits {} under a workspace cap of {:.1f} MiB{}: {}",
                      to_string(D), to_string(key), mib(ws.cap()),
                      key.deterministic ? " with deterministic results" : "",
                      refused.empty() ? "cuDNN returned no algorithm" : refused));
}

}  // namespace

const char* to_string(ConvDir d) {
  switch (d) {
    case ConvDir::forward: return "forward";
    case ConvDir::backward_data: return "backward-data";
    case ConvDir::backward_filter: return "backward-filter";
  }
  return "?";
}

namespace {
// The cached choice for p.key, or Find's on a miss; either way p's descriptor is left set to the
// choice's math type, so the caller's next cuDNN call runs exactly what Find measured.
template <ConvDir D>
AlgoChoice cached(std::map<ConvKey, AlgoChoice>& table, std::size_t& find_calls, Handle& handle, cuda::Workspace& ws,
                  const ConvProblem& p, const Operands& o) {
  auto it = table.find(p.key);
  if (it == table.end()) {
    ++find_calls;
    it = table.emplace(p.key, find_best<D>(handle, ws, p, o)).first;
  }
  p.conv.set_math_type(it->second.math_type);
  return it->second;
}
}  // namespace

AlgoChoice ConvAlgoCache::forward(Handle& handle, cuda::Workspace& ws, const ConvProblem& p, const void* x,
                                  const void* w, void* y) {
  return cached<ConvDir::forward>(table_[int(ConvDir::forward)], find_calls_, handle, ws, p, Operands{x, w, y});
}

AlgoChoice ConvAlgoCache::backward_data(Handle& handle, cuda::Workspace& ws, const ConvProblem& p, const void* w,
                                        const void* dy, void* dx) {
  return cached<ConvDir::backward_data>(table_[int(ConvDir::backward_data)], find_calls_, handle, ws, p,
                                        Operands{w, dy, dx});
}

AlgoChoice ConvAlgoCache::backward_filter(Handle& handle, cuda::Workspace& ws, const ConvProblem& p, const void* x,
                                          const void* dy, void* dw) {
  return cached<ConvDir::backward_filter>(table_[int(ConvDir::backward_filter)], find_calls_, handle, ws, p,
                                          Operands{x, dy, dw});
}

std::optional<AlgoChoice> ConvAlgoCache::lookup(ConvDir dir, const ConvKey& key) const {
  const auto& t = table_[static_cast<int>(dir)];
  const auto it = t.find(key);
  if (it == t.end()) return std::nullopt;
  return it->second;
}

std::size_t ConvAlgoCache::size() const { return table_[0].size() + table_[1].size() + table_[2].size(); }

void ConvAlgoCache::clear() {
  for (auto& t : table_) t.clear();
}

}  // namespace scalebench::cudnn
