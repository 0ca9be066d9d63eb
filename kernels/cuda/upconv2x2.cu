// upconv2x2.cu — 2×2 stride-2 transposed convolution via cuBLAS (see upconv2x2.h).
// Per image, with taps = 4·c_out and hw = h·w, row-major:
//   forward        t [taps, hw]  = Wᵀ [taps, c_in] · x [c_in, hw]      then y = interleave(t) + bias
//   backward data  dx [c_in, hw] = W [c_in, taps] · t [taps, hw]       with t = gather(dy)
//   backward filt  dW [c_in, taps] += x [c_in, hw] · t [taps, hw]ᵀ     with t = gather(dy)
// In cuBLAS's column-major terms (a row-major [r, c] matrix is column-major [c, r]):
//   forward        tᵀ [hw, taps]  = xᵀ · W'ᵀ   gemm(N, T, hw, taps, c_in), batched over images
//   backward data  dxᵀ [hw, c_in] = tᵀ · W'    gemm(N, N, hw, c_in, taps), batched over images
//   backward filt  dW' [taps, c_in] += t · xᵀ  gemm(T, N, taps, c_in, hw), one call per image
// where W' = Wᵀ viewed [taps, c_in] (W row-major [c_in, taps] has ld = taps). Tap row (co, a, b) is
// co·4 + a·2 + b and feeds output pixel (2i + a, 2j + b) from input pixel (i, j). The forward tap
// matrix is f32 (bias added before the single rounding to y); backward tap matrices keep dy's dtype.
// Backward filter accumulates images in order with beta = 1 and db is bias_grad's deterministic sum.
// No fused GEMM+scatter kernel: cuBLAS does the arithmetic, the interleave is a plain copy pass.
#include "kernels/cuda/device_types.cuh"

#include "kernels/cuda/bias_grad.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/upconv2x2.h"

namespace scalebench::cuda {
namespace {

using namespace detail;

constexpr std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

// Position in the tap matrix [n·taps, hw] of image element i of [n, c_out, 2h, 2w].
template <class I>
__device__ __forceinline__ I tap_index(I i, I h, I w, I* channel_row) {
  const I w2 = 2 * w, h2 = 2 * h;
  const I ow = i % w2;
  I t = i / w2;
  const I oh = t % h2;
  t /= h2;  // t = img·c_out + co
  *channel_row = t;
  return (t * 4 + (oh & 1) * 2 + (ow & 1)) * (h * w) + (oh >> 1) * w + (ow >> 1);
}

template <class T, class I>
__global__ void taps_to_image(I count, I c_out, I h, I w, const float* taps, const float* bias, T* y) {
  const I stride = I(gridDim.x) * blockDim.x;
  for (I i = I(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    I row;
    const I src = tap_index(i, h, w, &row);
    y[i] = from_f32<T>(taps[src] + (bias ? bias[row % c_out] : 0.0f));
  }
}

template <class T, class I>
__global__ void image_to_taps(I count, I h, I w, const T* img, T* taps) {
  const I stride = I(gridDim.x) * blockDim.x;
  for (I i = I(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    I row;
    taps[tap_index(i, h, w, &row)] = img[i];
  }
}

void validate(const UpConvParams& p) {
  SB_CHECK(p.n > 0 && p.c_in > 0 && p.c_out > 0 && p.h_in > 0 && p.w_in > 0,
           "upconv2x2: bad sizes n={} c_in={} c_out={} h_in={} w_in={}", p.n, p.c_in, p.c_out, p.h_in, p.w_in);
  SB_CHECK(std::int64_t(p.h_in) * p.w_in * 4 * p.c_out <= INT32_MAX && std::int64_t(p.h_in) * p.w_in * p.c_in <= INT32_MAX,
           "upconv2x2: one image exceeds cuBLAS's 32-bit sizes");
}

std::int64_t image_elems(const UpConvParams& p) { return std::int64_t(p.n) * 4 * p.c_out * p.h_in * p.w_in; }

ChannelParams dy_channels(const UpConvParams& p, Precision prec) {
  return ChannelParams{p.n, p.c_out, 4 * std::int64_t(p.h_in) * p.w_in, Layout::NCHW, input_dtype(prec)};
}

std::size_t taps_bytes(const UpConvParams& p) { return align256(sizeof(float) * image_elems(p)); }

void check_workspace(const UpConvParams& p, Precision prec, const Workspace& ws) {
  const std::size_t need = upconv2x2_workspace_bytes(p, prec);
  SB_CHECK(ws.data && ws.bytes >= need, "upconv2x2: workspace {} bytes, needs {}", ws.bytes, need);
}

// dy [n, c_out, 2h, 2w] -> taps [n, 4·c_out, hw], both of dtype `dtype`.
void gather_taps(const UpConvParams& p, DType dtype, const void* dy, void* taps, cudaStream_t stream) {
  const std::int64_t count = image_elems(p);
  dispatch_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = static_cast<const T*>(dy);
    T* dst = static_cast<T*>(taps);
    if (count <= INT32_MAX)
      image_to_taps<T, std::uint32_t><<<grid_for(count), kBlock, 0, stream>>>(
          std::uint32_t(count), std::uint32_t(p.h_in), std::uint32_t(p.w_in), src, dst);
    else
      image_to_taps<T, std::int64_t><<<grid_for(count), kBlock, 0, stream>>>(count, p.h_in, p.w_in, src, dst);
  });
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

std::size_t upconv2x2_workspace_bytes(const UpConvParams& p, Precision prec) {
  return taps_bytes(p) + bias_grad_workspace_bytes(dy_channels(p, prec));
}

void upconv2x2_forward(const CublasHandle& h, Precision prec, const UpConvParams& p, const void* x,
                       const void* w, const float* bias, void* y, Workspace ws) {
  validate(p);
  check_workspace(p, prec, ws);
  const int hw = p.h_in * p.w_in, taps = 4 * p.c_out;
  float* t = static_cast<float*>(ws.data);
  gemm(h, prec, false, true, hw, taps, p.c_in, 1.0f, {x, hw, std::int64_t(p.c_in) * hw}, {w, taps, 0}, 0.0f,
       DType::f32, t, hw, std::int64_t(taps) * hw, p.n);
  const std::int64_t count = image_elems(p);
  dispatch_dtype(input_dtype(prec), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(y);
    if (count <= INT32_MAX)
      taps_to_image<T, std::uint32_t><<<grid_for(count), kBlock, 0, h.stream()>>>(
          std::uint32_t(count), std::uint32_t(p.c_out), std::uint32_t(p.h_in), std::uint32_t(p.w_in), t, bias, out);
    else
      taps_to_image<T, std::int64_t><<<grid_for(count), kBlock, 0, h.stream()>>>(count, p.c_out, p.h_in, p.w_in, t,
                                                                                  bias, out);
  });
  CUDA_CHECK(cudaGetLastError());
}

void upconv2x2_backward_data(const CublasHandle& h, Precision prec, const UpConvParams& p, const void* dy,
                             const void* w, void* dx, Workspace ws) {
  validate(p);
  check_workspace(p, prec, ws);
  const int hw = p.h_in * p.w_in, taps = 4 * p.c_out;
  gather_taps(p, input_dtype(prec), dy, ws.data, h.stream());
  gemm(h, prec, false, false, hw, p.c_in, taps, 1.0f, {ws.data, hw, std::int64_t(taps) * hw}, {w, taps, 0}, 0.0f,
       input_dtype(prec), dx, hw, std::int64_t(p.c_in) * hw, p.n);
}

void upconv2x2_backward_filter(const CublasHandle& h, Precision prec, const UpConvParams& p, const void* x,
                               const void* dy, float* dw, float* db, Workspace ws) {
  validate(p);
  check_workspace(p, prec, ws);
  const int hw = p.h_in * p.w_in, taps = 4 * p.c_out;
  const DType dt = input_dtype(prec);
  gather_taps(p, dt, dy, ws.data, h.stream());
  const auto* t = static_cast<const char*>(ws.data);
  const auto* xb = static_cast<const char*>(x);
  const std::size_t esize = dtype_size(dt);
  for (int img = 0; img < p.n; ++img)
    gemm(h, prec, true, false, taps, p.c_in, hw, 1.0f, {t + esize * img * taps * hw, hw},
         {xb + esize * img * p.c_in * hw, hw}, img == 0 ? 0.0f : 1.0f, DType::f32, dw, taps, 0);
  if (db) {
    const std::size_t tb = taps_bytes(p);
    bias_grad(dy_channels(p, prec), dy, db, Workspace{static_cast<char*>(ws.data) + tb, ws.bytes - tb}, h.stream());
  }
}

}  // namespace scalebench::cuda
