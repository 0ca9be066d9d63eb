// test_cuda_upconv2x2.cpp — 2×2 stride-2 transposed convolution through cuBLAS against the direct
// double-accumulating CPU reference (kernels/cpu/upconv2x2.h *_ref): forward (with and without
// bias), backward data, backward filter (+ bias gradient, rerun bit-identical), on odd shapes, at
// fp32, tf32 and bf16 (the CPU fed the same bf16-rounded inputs).
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/upconv2x2.h"
#include "kernels/cuda/upconv2x2.h"
#include "tests/gpu/kernels/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

class UpConvTest : public CudaTest, public ::testing::WithParamInterface<Precision> {
 protected:
  CublasHandle h_{stream_.get()};
};

double tolerance(Precision prec) {
  switch (prec) {
    case Precision::fp32: return kTolF32;
    case Precision::tf32: return 5e-3;  // inputs rounded to a 10-bit mantissa inside the tensor cores
    case Precision::bf16: return kTolBf16;
  }
  return 0.0;
}

TEST_P(UpConvTest, AllDirectionsMatchTheReference) {
  const Precision prec = GetParam();
  const DType dt = input_dtype(prec);
  const UpConvParams p{3, 5, 7, 9, 6};  // x [3, 5, 7, 9] -> y [3, 6, 14, 18]
  const std::size_t nx = std::size_t(p.n) * p.c_in * p.h_in * p.w_in;
  const std::size_t ny = std::size_t(p.n) * p.c_out * 4 * p.h_in * p.w_in;
  const std::size_t nw = std::size_t(p.c_in) * p.c_out * 4;
  const std::vector<float> x = rounded(random_floats(nx, 91), dt), w = rounded(random_floats(nw, 92), dt);
  const std::vector<float> dy = rounded(random_floats(ny, 93), dt), bias = random_floats(p.c_out, 94);

  DeviceBuffer d_x = to_device(x, dt, s()), d_w = to_device(w, dt, s()), d_dy = to_device(dy, dt, s());
  DeviceBuffer d_bias = upload(bias, s());
  DeviceBuffer d_y(ny * dtype_size(dt)), d_dx(nx * dtype_size(dt)), d_dw(nw * 4), d_db(p.c_out * 4);
  DeviceBuffer ws(upconv2x2_workspace_bytes(p, prec));
  const Workspace wsp{ws.data(), ws.bytes()};

  for (const bool with_bias : {false, true}) {
    std::vector<float> want(ny);
    cpu::upconv2x2_forward_ref(p, x.data(), w.data(), with_bias ? bias.data() : nullptr, want.data());
    upconv2x2_forward(h_, prec, p, d_x.data(), d_w.data(), with_bias ? d_bias.as<float>() : nullptr, d_y.data(), wsp);
    EXPECT_LE(max_rel_error(to_host(d_y.data(), ny, dt, s()), want), tolerance(prec)) << "bias " << with_bias;
  }

  std::vector<float> want_dx(nx);
  cpu::upconv2x2_backward_data_ref(p, dy.data(), w.data(), want_dx.data());
  upconv2x2_backward_data(h_, prec, p, d_dy.data(), d_w.data(), d_dx.data(), wsp);
  EXPECT_LE(max_rel_error(to_host(d_dx.data(), nx, dt, s()), want_dx), tolerance(prec));

  std::vector<float> want_dw(nw), want_db(p.c_out);
  cpu::upconv2x2_backward_filter_ref(p, x.data(), dy.data(), want_dw.data(), want_db.data());
  upconv2x2_backward_filter(h_, prec, p, d_x.data(), d_dy.data(), d_dw.as<float>(), d_db.as<float>(), wsp);
  const auto got_dw = download<float>(d_dw.data(), nw, s());
  const auto got_db = download<float>(d_db.data(), p.c_out, s());
  EXPECT_LE(max_rel_error(got_dw, want_dw), tolerance(prec));
  EXPECT_LE(max_rel_error(got_db, want_db), kTolF32);  // fp32 sums of the (same) dy values
  upconv2x2_backward_filter(h_, prec, p, d_x.data(), d_dy.data(), d_dw.as<float>(), d_db.as<float>(), wsp);
  EXPECT_EQ(download<float>(d_db.data(), p.c_out, s()), got_db) << "bias gradient not reproducible";
}

INSTANTIATE_TEST_SUITE_P(Precisions, UpConvTest, ::testing::Values(Precision::fp32, Precision::tf32, Precision::bf16),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace scalebench::cuda::test
