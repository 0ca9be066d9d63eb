// step_graph.cpp — the cuda backend's captured step (kernels/common/device.h's StepGraph): the
// step's work recorded once from the device's stream into a CUDA graph (stream capture, this
// thread's mode: an allocation, a synchronisation or any other call that capture forbids makes
// the capture fail instead of running), instantiated, and launched once per step. Two timing
// events are recorded inside the graph as event nodes (cudaEventRecordExternal): the replay's start
// and the split the caller marks (the end of forward and loss), so a replayed step still has a
// forward and a backward time.
// What it deliberately does not do: decide whether a step may be captured (the trainer does:
// per-step kernel arguments such as dropout seeds, host callbacks in backward, host-driven
// exchanges), or update a graph in place (a changed step is captured anew).
// Not yet run on a GPU (docs/gpu.md, "What has run"): any failure is returned as text and the
// caller runs the step eagerly.
#include <limits>
#include <string>

#include <cuda_runtime.h>

#include <fmt/format.h>

#include "kernels/common/device.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/counters.h"
#include "models/cuda/context.h"

namespace scalebench {

std::unique_ptr<StepGraph> make_cuda_step_graph(GpuContext& g);

namespace {

class CudaStepGraph final : public StepGraph {
 public:
  explicit CudaStepGraph(GpuContext& g) : g_(g) {
    CUDA_CHECK(cudaSetDevice(g.device()));
    CUDA_CHECK(cudaEventCreate(&begin_));
    CUDA_CHECK(cudaEventCreate(&split_));
  }
  ~CudaStepGraph() override {  // failures at teardown have no one to report to
    if (exec_) cudaGraphExecDestroy(exec_);
    cudaEventDestroy(begin_);
    cudaEventDestroy(split_);
  }

  std::string capture(const std::function<void()>& step) override {
    if (exec_) {
      cudaGraphExecDestroy(exec_);
      exec_ = nullptr;
    }
    const cudaStream_t s = g_.stream();
    cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return fmt::format("cudaStreamBeginCapture: {}", cudaGetErrorString(e));
    }
    std::string why;
    capturing_ = true;
    split_marked_ = false;
    e = cudaEventRecordWithFlags(begin_, s, cudaEventRecordExternal);
    if (e != cudaSuccess) {
      why = fmt::format("cudaEventRecordWithFlags under capture: {}", cudaGetErrorString(e));
    } else {
      try {
        step();
      } catch (const std::exception& x) {
        why = fmt::format("the step failed under capture: {}", x.what());
      }
    }
    capturing_ = false;
    cudaGraph_t graph = nullptr;
    e = cudaStreamEndCapture(s, &graph);  // ends it whatever happened inside
    if (why.empty() && e != cudaSuccess) why = fmt::format("cudaStreamEndCapture: {}", cudaGetErrorString(e));
    if (why.empty() && !graph) why = "cudaStreamEndCapture returned no graph";
    if (why.empty()) {
      e = cudaGraphInstantiate(&exec_, graph, 0);
      if (e != cudaSuccess) {
        exec_ = nullptr;
        why = fmt::format("cudaGraphInstantiate: {}", cudaGetErrorString(e));
      }
    }
    if (graph) cudaGraphDestroy(graph);
    if (!why.empty()) (void)cudaGetLastError();  // capture errors are not sticky; clear the last one
    return why;
  }

  bool ready() const override { return exec_ != nullptr; }

  void replay() override {
    SB_CHECK(exec_, "StepGraph::replay before a successful capture");
    cuda::count_graph_launch();
    CUDA_CHECK(cudaGraphLaunch(exec_, g_.stream()));
  }

  void split() override {
    if (!capturing_) return;  // an eager step has no graph events to split
    CUDA_CHECK(cudaEventRecordWithFlags(split_, g_.stream(), cudaEventRecordExternal));
    split_marked_ = true;
  }

  // NaN where there is no split or the events cannot be read (the caller keeps the whole time).
  double split_seconds() override {
    if (!split_marked_) return std::numeric_limits<double>::quiet_NaN();
    float ms = 0;
    const cudaError_t e = cudaEventElapsedTime(&ms, begin_, split_);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return std::numeric_limits<double>::quiet_NaN();
    }
    return double(ms) * 1e-3;
  }

 private:
  GpuContext& g_;
  cudaGraphExec_t exec_ = nullptr;
  cudaEvent_t begin_ = nullptr, split_ = nullptr;
  bool capturing_ = false, split_marked_ = false;
};

}  // namespace

std::unique_ptr<StepGraph> make_cuda_step_graph(GpuContext& g) { return std::make_unique<CudaStepGraph>(g); }

}  // namespace scalebench
