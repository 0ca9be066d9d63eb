// bench_gpu_model.cpp — sb_bench_gpu_model: GPU training-step throughput of one model in several
// precisions, side by side in one process (so ratios are fair on a shared machine), and optionally
// per-layer forward/backward times with achieved TFLOP/s and memory bandwidth against the GPU's
// memory roofline (Model::LayerTiming's least traffic over its peak bandwidth). Prints markdown tables.
//   sb_bench_gpu_model --model vgg16 --channels 3 --size 224 --classes 10 --batch 32 --layers
// --gpu-kernels cudnn,own runs every precision with each kernel choice (train --gpu-kernels) in turn,
// in one process, so cuDNN's batch norm and pooling and ours are measured side by side.
// A step is what the trainer runs: upload nothing (the batch stays on the device), forward, softmax
// cross-entropy, backward, SGD-momentum update; timed after warm-up with the stream synchronised.
// FLOPs are the model's analytic count (3x forward per training image). --reps R times the steps R
// times in a row and reports the median (each repetition printed), as tools/torch_reference.py does
// for PyTorch; the parameter count is printed so the two can be checked to build the same network.
// Not here: data loading, communication (commbench), CPU timings (kernels/bench).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "kernels/cuda/check.h"
#include "models/cuda/context.h"
#include "models/cuda/memory.h"
#include "models/cuda/train.h"
#include "models/model.h"
#include "models/optimizer.h"
#include "models/spec.h"

namespace scalebench {
namespace {

struct Options {
  std::string model = "unet";
  int channels = 1, size = 128, classes = 3, batch = 32;
  std::vector<std::string> precisions{"fp32", "tf32", "bf16"};
  std::vector<std::string> gpu_kernels{"cudnn"};  // train --gpu-kernels choices, each in turn
  std::string layout = "NCHW";
  int warmup = 5, steps = 20, layer_reps = 10, reps = 1;
  float lr = 1e-3f;  // VGG16 without batch norm diverges from He init at lr 1e-2 within a few steps
  bool layers = false, deterministic = false;
  double workspace_mib = -1;  // cuDNN workspace cap (Find refuses algorithms that need more); < 0: free memory
};

struct StepStats {
  double ms_per_step = 0, images_per_s = 0, tflops = 0, loss_first = 0, loss_last = 0;
};

// Peak memory bandwidth of `device` in bytes/s: memory clock × bus width × 2 (double data rate).
double peak_memory_bytes_per_s(int device) {
  int khz = 0, bits = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
  return 2.0 * double(khz) * 1e3 * double(bits) / 8.0;
}

// num / den with `digits` decimals, or "-" when there is nothing to divide.
std::string ratio_text(double num, double den, int digits = 1) {
  return num > 0 && den > 0 ? fmt::format("{:.{}f}", num / den, digits) : "-";
}

int run(const Options& o) {
  const DataShape data{o.channels, o.size, o.size, o.classes};
  const Graph graph = build_model_graph(parse_model_spec(o.model), data);
  const Layout layout = o.layout == "NHWC" ? Layout::NHWC : Layout::NCHW;
  SB_REQUIRE(o.layout == "NCHW" || o.layout == "NHWC", "--layout '{}' is unknown (NCHW or NHWC)", o.layout);

  std::mt19937_64 rng(1);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  Tensor host_x = Tensor::zeros({o.batch, o.channels, o.size, o.size});
  for (std::int64_t i = 0; i < host_x.numel(); ++i) host_x.f32()[i] = nd(rng);

  std::vector<std::pair<std::string, StepStats>> rows;
  std::string layer_tables;
  std::vector<std::pair<std::string, GpuKernels>> kernel_choices;
  for (const std::string& k : o.gpu_kernels) kernel_choices.emplace_back(k, parse_enum<GpuKernels>(k, "--gpu-kernels"));
  for (const auto& [kname, kernels] : kernel_choices)
  for (const std::string& pname_alone : o.precisions) {
    // The row's name: the precision, with the kernel choice when several are compared.
    const std::string pname = kernel_choices.size() > 1 ? pname_alone + " " + kname : pname_alone;
    GpuOptions go;
    go.kernels = kernels;
    go.precision = parse_precision(pname_alone);
    go.layout = layout;
    go.deterministic = o.deterministic;
    go.workspace_cap = o.workspace_mib < 0 ? cuda::Workspace::kFromFreeMemory
                                           : std::size_t(o.workspace_mib * double(1 << 20));
    auto dev = make_cuda_device(go);
    GpuContext& g = *dev->gpu();
    Model m(graph, *dev, 1);
    const Shape out = m.setup(host_x.shape());
    const std::int64_t positions = numel(out) / out[1];
    std::vector<std::int32_t> labels(static_cast<std::size_t>(positions));
    for (auto& l : labels) l = std::int32_t(rng() % std::uint64_t(o.classes));
    Tensor x = gpu_zeros(g, host_x.shape(), DType::f32, Layout::NCHW), dl;
    gpu_upload(g, host_x, x);
    GpuLoss loss(g);
    Optimizer opt({.kind = OptimizerKind::sgd, .momentum = 0.9f}, m.param_count(), dev.get());
    Ctx ctx{.backend = Backend::cuda, .seed = 1};
    StepStats st;
    auto step = [&] {
      const double l = loss(m.forward(ctx, x, true), labels.data(), {}, &dl);  // syncs for the loss value
      m.backward(ctx, dl);
      opt.step(m.params().f32(), m.grads().f32(), o.lr);
      ++ctx.step;
      return l;
    };
    for (int i = 0; i < o.warmup; ++i) {
      const double l = step();
      if (i == 0) st.loss_first = l;
    }
    g.synchronize();
    std::vector<double> per_rep;  // seconds per step, one per repetition
    for (int r = 0; r < o.reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < o.steps; ++i) st.loss_last = step();
      g.synchronize();
      per_rep.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / o.steps);
    }
    std::string reps_text;  // images/s of each repetition, in order
    for (double v : per_rep) reps_text += fmt::format("{}{:.1f}", reps_text.empty() ? "" : ",", o.batch / v);
    std::sort(per_rep.begin(), per_rep.end());
    const double s = per_rep[per_rep.size() / 2];  // the median (reps odd; the upper middle otherwise)
    st.ms_per_step = s * 1e3;
    st.images_per_s = o.batch / s;
    st.tflops = m.train_flops_per_image() * st.images_per_s / 1e12;
    std::printf("%s %s %s batch %d %dx%d, workspace cap %s (used %.0f MiB): %.1f images/s (%.2f ms/step), "
                "%.1f TFLOP/s, loss %.4f (step 1) -> %.4f (last), params %lld, reps %s\n",
                o.model.c_str(), pname.c_str(), o.layout.c_str(), o.batch, o.size, o.size,
                o.workspace_mib < 0 ? "free memory" : fmt::format("{:.0f} MiB", o.workspace_mib).c_str(),
                double(g.workspace().size()) / double(1 << 20), st.images_per_s,
                st.ms_per_step, st.tflops, st.loss_first, st.loss_last, static_cast<long long>(m.param_count()),
                reps_text.c_str());
    std::fflush(stdout);
    rows.emplace_back(pname, st);

    if (o.layers) {
      const auto times = m.time_layers(ctx, o.layer_reps);
      const double peak = peak_memory_bytes_per_s(g.device());
      std::string t = fmt::format("\n### {} {} {}, batch {}, {}x{}: per layer\n\n", o.model, pname, o.layout, o.batch,
                                  o.size, o.size);
      t += fmt::format("x roofline: the time over the least memory traffic's time at the peak {:.0f} GB/s "
                       "(1.0 is memory speed; the target for batch norm and pooling is at most 2).\n\n",
                       peak / 1e9);
      t += "| layer | kind | fwd ms | bwd ms | fwd TFLOP/s | bwd TFLOP/s | fwd GB/s | bwd GB/s | fwd x roofline | "
           "bwd x roofline |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
      double f = 0, b = 0;
      for (const auto& lt : times) {
        f += lt.forward_s, b += lt.backward_s;
        t += fmt::format("| {} | {} | {:.3f} | {:.3f} | {} | {} | {} | {} | {} | {} |\n", lt.name, to_string(lt.kind),
                         lt.forward_s * 1e3, lt.backward_s * 1e3, ratio_text(lt.forward_flops / 1e12, lt.forward_s),
                         ratio_text(2 * lt.forward_flops / 1e12, lt.backward_s),
                         ratio_text(lt.forward_bytes / 1e9, lt.forward_s, 0),
                         ratio_text(lt.backward_bytes / 1e9, lt.backward_s, 0),
                         ratio_text(lt.forward_s, lt.forward_bytes / peak, 2),
                         ratio_text(lt.backward_s, lt.backward_bytes / peak, 2));
      }
      t += fmt::format("| **sum** | | {:.3f} | {:.3f} | | | | | | |\n", f * 1e3, b * 1e3);
      layer_tables += t;
    }
  }
  std::printf("\n| model | precision | layout | batch | image | images/s | ms/step | TFLOP/s |\n"
              "|---|---|---|---:|---|---:|---:|---:|\n");
  for (const auto& [p, st] : rows)
    std::printf("| %s | %s | %s | %d | %dx%d | %.1f | %.2f | %.1f |\n", o.model.c_str(), p.c_str(), o.layout.c_str(),
                o.batch, o.size, o.size, st.images_per_s, st.ms_per_step, st.tflops);
  std::printf("%s", layer_tables.c_str());
  return 0;
}

}  // namespace
}  // namespace scalebench

int main(int argc, char** argv) {
  scalebench::Options o;
  CLI::App app{"GPU training-step benchmark of one model (markdown tables)"};
  app.add_option("--model", o.model, "Model spec")->capture_default_str();
  app.add_option("--channels", o.channels)->capture_default_str();
  app.add_option("--size", o.size, "Image side")->capture_default_str();
  app.add_option("--classes", o.classes)->capture_default_str();
  app.add_option("--batch", o.batch)->capture_default_str();
  app.add_option("--precisions", o.precisions)->delimiter(',')->capture_default_str();
  app.add_option("--layout", o.layout)->capture_default_str();
  app.add_option("--warmup", o.warmup)->capture_default_str();
  app.add_option("--steps", o.steps)->capture_default_str();
  app.add_option("--layer-reps", o.layer_reps)->capture_default_str();
  app.add_option("--reps", o.reps, "Time the steps this many times in a row; report the median")
      ->check(CLI::Range(1, 99))
      ->capture_default_str();
  app.add_option("--lr", o.lr, "SGD learning rate (momentum 0.9)")->capture_default_str();
  app.add_flag("--layers", o.layers, "Also time every layer alone");
  app.add_flag("--deterministic", o.deterministic);
  app.add_option("--gpu-kernels", o.gpu_kernels,
                 "Batch norm and max pooling kernels (cudnn, own), a comma list run in turn (train --gpu-kernels)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--workspace-mib", o.workspace_mib,
                 "cuDNN workspace cap in MiB; -1: half of the GPU's free memory beyond 1 GiB (train's default)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return scalebench::run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sb_bench_gpu_model: %s\n", e.what());
    return 1;
  }
}
