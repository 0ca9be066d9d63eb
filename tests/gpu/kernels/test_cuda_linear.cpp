// test_cuda_linear.cpp — fully connected layer through cuBLAS against the double-accumulating CPU
// reference (kernels/cpu/linear.h *_ref): forward with and without bias, backward data, backward
// filter + bias gradient, at fp32, tf32 and bf16, sizes that are not multiples of 8 or 32.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/linear.h"
#include "kernels/cuda/linear.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

class LinearTest : public CudaTest, public ::testing::WithParamInterface<Precision> {
 protected:
  CublasHandle h_{stream_.get()};
};

double tolerance(Precision prec) {
  switch (prec) {
    case Precision::fp32: return kTolF32;
    case Precision::tf32: return 5e-3;
    case Precision::bf16: return kTolBf16;
  }
  return 0.0;
}

TEST_P(LinearTest, AllDirectionsMatchTheReference) {
  const Precision prec = GetParam();
  const DType dt = input_dtype(prec);
  const LinearParams p{3, 37, 11};  // x [3, 37], W [11, 37], y [3, 11]
  const std::vector<float> x = rounded(random_vec(std::size_t(p.n) * p.in, 101), dt);
  const std::vector<float> w = rounded(random_vec(std::size_t(p.out) * p.in, 102), dt);
  const std::vector<float> dy = rounded(random_vec(std::size_t(p.n) * p.out, 103), dt);
  const std::vector<float> bias = random_vec(p.out, 104);
  DeviceBuffer d_x = to_device(x, dt, s()), d_w = to_device(w, dt, s()), d_dy = to_device(dy, dt, s());
  DeviceBuffer d_bias = upload(bias, s());
  DeviceBuffer d_y(dy.size() * dtype_size(dt)), d_dx(x.size() * dtype_size(dt)), d_dw(w.size() * 4),
      d_db(p.out * 4);

  for (const bool with_bias : {false, true}) {
    std::vector<float> want(dy.size());
    cpu::linear_forward_ref(p, x.data(), w.data(), with_bias ? bias.data() : nullptr, want.data());
    linear_forward(h_, prec, p, d_x.data(), d_w.data(), with_bias ? d_bias.as<float>() : nullptr, d_y.data());
    EXPECT_LE(max_rel_err(to_host(d_y.data(), dy.size(), dt, s()), want), tolerance(prec)) << "bias " << with_bias;
  }

  std::vector<float> want_dx(x.size());
  cpu::linear_backward_data_ref(p, dy.data(), w.data(), want_dx.data());
  linear_backward_data(h_, prec, p, d_dy.data(), d_w.data(), d_dx.data());
  EXPECT_LE(max_rel_err(to_host(d_dx.data(), x.size(), dt, s()), want_dx), tolerance(prec));

  std::vector<float> want_dw(w.size()), want_db(p.out);
  cpu::linear_backward_filter_ref(p, x.data(), dy.data(), want_dw.data(), want_db.data());
  Workspace ws(linear_backward_filter_workspace_bytes(p, prec));  // capped at what the op declares
  linear_backward_filter(h_, prec, p, d_x.data(), d_dy.data(), d_dw.as<float>(), d_db.as<float>(), ws);
  EXPECT_LE(max_rel_err(download<float>(d_dw.data(), w.size(), s()), want_dw), tolerance(prec));
  EXPECT_LE(max_rel_err(download<float>(d_db.data(), p.out, s()), want_db), kTolF32);
}

INSTANTIATE_TEST_SUITE_P(Precisions, LinearTest, ::testing::Values(Precision::fp32, Precision::tf32, Precision::bf16),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace scalebench::cuda::test
