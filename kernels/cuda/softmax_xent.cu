// softmax_xent.cu — softmax cross-entropy and argmax over classes (see softmax_xent.h).
// Four launches, all on the caller's stream:
//   1. label_weights: per-block double sums of w[y] over the pixels; the first out-of-range label's
//      position is recorded with an integer atomicMin (exact, order-independent).
//   2. finish_sum: one block adds the partials in a fixed order -> Σw.
//   3. xent: one thread per pixel (adjacent threads read adjacent pixels of each class row):
//      max, Σ exp(x - max), nll = max + log Σ - x_y; writes dlogits = w_y/Σw · (softmax - onehot)
//      and per-block double sums of w_y·nll.
//   4. finish_sum -> Σ w·nll.
// One device-to-host copy brings back {Σ w·nll, Σw, first bad position} (softmax_xent), or the sums
// stay in the caller's device memory for a later read (softmax_xent_queue, the loss read one step late). The grid of passes 1 and 3
// depends only on the pixel count, so the summation trees (and the loss bits) are reproducible.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/argmax.cuh"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/softmax_xent.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

constexpr int kMaxReduceBlocks = 1024;
constexpr std::uint64_t kNoBadLabel = ~std::uint64_t{0};

using Result = XentSums;
static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));

constexpr std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

int reduce_blocks(std::int64_t pixels) {
  return static_cast<int>(imin<std::int64_t>((pixels + kBlock - 1) / kBlock, kMaxReduceBlocks));
}

struct Carved {  // the workspace, cut into its parts
  Result* result;
  double* partial_w;
  double* partial_loss;
};

Carved carve(void* scratch, int blocks) {
  auto* base = static_cast<char*>(scratch);
  const std::size_t partial_bytes = align256(sizeof(double) * blocks);
  return {reinterpret_cast<Result*>(base), reinterpret_cast<double*>(base + align256(sizeof(Result))),
          reinterpret_cast<double*>(base + align256(sizeof(Result)) + partial_bytes)};
}

__device__ __forceinline__ bool label_ok(std::int32_t y, int classes) { return y >= 0 && y < classes; }

__global__ void label_weights(std::int64_t pixels, int classes, const std::int32_t* labels,
                              const float* class_weights, double* partial_w, unsigned long long* bad_index) {
  double acc = 0.0;
  for (std::int64_t q = global_thread(); q < pixels; q += grid_threads()) {
    const std::int32_t y = labels[q];
    if (!label_ok(y, classes)) {
      atomicMin(bad_index, static_cast<unsigned long long>(q));
      continue;
    }
    acc += class_weights ? double(class_weights[y]) : 1.0;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial_w[blockIdx.x] = acc;
}

// out = Σ partial[0..count) in a fixed order (one block).
__global__ void finish_sum(int count, const double* partial, double* out) {
  double acc = 0.0;
  for (int k = threadIdx.x; k < count; k += blockDim.x) acc += partial[k];
  acc = block_sum(acc);
  if (threadIdx.x == 0) *out = acc;
}

template <class T>
__global__ void xent(std::int64_t pixels, std::int64_t hw, int classes, const T* logits, const std::int32_t* labels,
                     const float* class_weights, const double* weight_sum, T* dlogits, double* partial_loss) {
  const double wsum = *weight_sum;
  double acc = 0.0;
  for (std::int64_t q = global_thread(); q < pixels; q += grid_threads()) {
    const std::int64_t img = q / hw, s = q - img * hw;
    const T* x = logits + img * classes * hw + s;  // class c at x[c·hw]
    const std::int32_t y = labels[q];
    if (!label_ok(y, classes)) continue;  // reported by label_weights; the call throws
    float mx = to_f32(x[0]);
    for (int c = 1; c < classes; ++c) mx = fmaxf(mx, to_f32(x[std::int64_t(c) * hw]));
    float sum = 0.0f;
    for (int c = 0; c < classes; ++c) sum += expf(to_f32(x[std::int64_t(c) * hw]) - mx);
    const float w = class_weights ? class_weights[y] : 1.0f;
    const float nll = (mx - to_f32(x[std::int64_t(y) * hw])) + logf(sum);
    acc += double(w) * double(nll);
    if (!dlogits) continue;
    T* d = dlogits + img * classes * hw + s;
    if (wsum == 0.0) {  // every weight 0: the CPU defines loss and gradient as 0
      for (int c = 0; c < classes; ++c) d[std::int64_t(c) * hw] = from_f32<T>(0.0f);
      continue;
    }
    const float scale = static_cast<float>(double(w) / wsum);
    const float inv_sum = 1.0f / sum;
    for (int c = 0; c < classes; ++c) {
      const float p = expf(to_f32(x[std::int64_t(c) * hw]) - mx) * inv_sum;
      d[std::int64_t(c) * hw] = from_f32<T>((p - (c == y ? 1.0f : 0.0f)) * scale);
    }
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) partial_loss[blockIdx.x] = acc;
}

template <class T>
__global__ void argmax_kernel(std::int64_t pixels, std::int64_t hw, int classes, const T* logits, std::int32_t* pred) {
  for (std::int64_t q = global_thread(); q < pixels; q += grid_threads()) {
    const std::int64_t img = q / hw, s = q - img * hw;
    pred[q] = argmax_at(logits + img * classes * hw + s, hw, classes);
  }
}

void validate(const SoftmaxXentParams& p, const char* what) {
  SB_CHECK(p.n > 0 && p.classes > 0 && p.hw > 0, "{}: bad sizes n={} classes={} hw={}", what, p.n, p.classes, p.hw);
}

}  // namespace

std::size_t softmax_xent_workspace_bytes(const SoftmaxXentParams& p) {
  const int blocks = reduce_blocks(std::int64_t(p.n) * p.hw);
  return align256(sizeof(Result)) + 2 * align256(sizeof(double) * blocks);
}

void softmax_xent_queue(const SoftmaxXentParams& p, DType dtype, const void* logits, const std::int32_t* labels,
                        const float* class_weights, void* dlogits, Workspace& ws, XentSums* sums,
                        cudaStream_t stream) {
  validate(p, "softmax_xent");
  const std::int64_t pixels = std::int64_t(p.n) * p.hw;
  const int blocks = reduce_blocks(pixels);
  const Carved w = carve(ws.get(softmax_xent_workspace_bytes(p)), blocks);
  Result* r = sums ? sums : w.result;
  auto* bad = reinterpret_cast<unsigned long long*>(&r->bad_index);

  CUDA_CHECK(cudaMemsetAsync(bad, 0xff, sizeof(*bad), stream));  // kNoBadLabel
  label_weights<<<blocks, kBlock, 0, stream>>>(pixels, p.classes, labels, class_weights, w.partial_w, bad);
  CUDA_CHECK(cudaGetLastError());
  finish_sum<<<1, kBlock, 0, stream>>>(blocks, w.partial_w, &r->weight_sum);
  CUDA_CHECK(cudaGetLastError());
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    xent<T><<<blocks, kBlock, 0, stream>>>(pixels, p.hw, p.classes, static_cast<const T*>(logits), labels,
                                           class_weights, &r->weight_sum, static_cast<T*>(dlogits),
                                           w.partial_loss);
  });
  CUDA_CHECK(cudaGetLastError());
  finish_sum<<<1, kBlock, 0, stream>>>(blocks, w.partial_loss, &r->loss_sum);
  CUDA_CHECK(cudaGetLastError());
}

double softmax_xent_finish(const SoftmaxXentParams& p, const XentSums& r, const std::int32_t* labels,
                           cudaStream_t stream) {
  if (r.bad_index != kNoBadLabel) {
    std::int32_t y = 0;
    copy_to_host(&y, labels + r.bad_index, sizeof(y), stream);
    const std::int64_t q = static_cast<std::int64_t>(r.bad_index);
    fail_at(__FILE__, __LINE__, fmt::format("softmax_xent: label {} at position {} (sample {}, pixel {}) outside "
                                            "[0, {})", y, q, q / p.hw, q % p.hw, p.classes));
  }
  if (r.weight_sum == 0.0) return 0.0;
  return r.loss_sum / r.weight_sum;
}

double softmax_xent_finish_host(const SoftmaxXentParams& p, const XentSums& r, const std::int32_t* labels_host) {
  if (r.bad_index != kNoBadLabel) {
    const std::int64_t q = static_cast<std::int64_t>(r.bad_index);
    fail_at(__FILE__, __LINE__, fmt::format("softmax_xent: label {} at position {} (sample {}, pixel {}) outside "
                                            "[0, {})", labels_host[q], q, q / p.hw, q % p.hw, p.classes));
  }
  if (r.weight_sum == 0.0) return 0.0;
  return r.loss_sum / r.weight_sum;
}

double softmax_xent(const SoftmaxXentParams& p, DType dtype, const void* logits, const std::int32_t* labels,
                    const float* class_weights, void* dlogits, Workspace& ws, cudaStream_t stream) {
  softmax_xent_queue(p, dtype, logits, labels, class_weights, dlogits, ws, nullptr, stream);
  const Carved w = carve(ws.data(), reduce_blocks(std::int64_t(p.n) * p.hw));  // where queue left the sums
  Result r{};
  copy_to_host(&r, w.result, sizeof(r), stream);
  return softmax_xent_finish(p, r, labels, stream);
}

void argmax_classes(const SoftmaxXentParams& p, DType dtype, const void* logits, std::int32_t* pred,
                    cudaStream_t stream) {
  validate(p, "argmax_classes");
  const std::int64_t pixels = std::int64_t(p.n) * p.hw;
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    argmax_kernel<T><<<grid_for(pixels), kBlock, 0, stream>>>(pixels, p.hw, p.classes, static_cast<const T*>(logits),
                                                              pred);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace scalebench::cuda
