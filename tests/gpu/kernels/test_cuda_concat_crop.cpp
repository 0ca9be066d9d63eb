// test_cuda_concat_crop.cpp — U-Net skip join against kernels/cpu/concat_crop.h: forward and
// backward, cropped (odd offsets) and uncropped, NCHW and NHWC (transposed back before comparing),
// f32 and bf16. The op only moves values, so results must be bit-identical.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/concat_crop.h"
#include "kernels/cuda/concat_crop.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

struct Case {
  DType dtype;
  Layout layout;
};

class ConcatCropTest : public CudaTest, public ::testing::WithParamInterface<Case> {};

std::int64_t plane(int h, int w) { return std::int64_t(h) * w; }

TEST_P(ConcatCropTest, ForwardAndBackwardMatchCpu) {
  const auto [dt, layout] = GetParam();
  const bool nhwc = layout == Layout::NHWC;
  // Cropped: 13x16 skip -> 7x9 (offsets 3 and 3); uncropped: same size.
  for (const ConcatCropParams p : {ConcatCropParams{3, 5, 13, 16, 4, 7, 9},
                                        ConcatCropParams{3, 5, 7, 9, 4, 7, 9}}) {
    const int c_out = p.c_skip + p.c_up;
    const std::int64_t skip_hw = plane(p.h_skip, p.w_skip), hw = plane(p.h, p.w);
    const std::vector<float> skip = rounded(random_vec(p.n * p.c_skip * skip_hw, 21), dt);
    const std::vector<float> up = rounded(random_vec(p.n * p.c_up * hw, 22), dt);
    const std::vector<float> dout = rounded(random_vec(p.n * c_out * hw, 23), dt);
    std::vector<float> want_out(dout.size()), want_dskip(skip.size()), want_dup(up.size());
    cpu::concat_crop_forward(p, skip.data(), up.data(), want_out.data());
    cpu::concat_crop_backward(p, dout.data(), want_dskip.data(), want_dup.data());

    auto dev = [&](const std::vector<float>& v, int c, std::int64_t n_hw) {
      return to_device(nhwc ? nchw_to_nhwc(v, p.n, c, n_hw) : v, dt, s());
    };
    auto host = [&](const DeviceBuffer& b, std::size_t count, int c, std::int64_t n_hw) {
      std::vector<float> v = to_host(b.data(), count, dt, s());
      return nhwc ? nhwc_to_nchw(v, p.n, c, n_hw) : v;
    };
    DeviceBuffer d_skip = dev(skip, p.c_skip, skip_hw), d_up = dev(up, p.c_up, hw), d_dout = dev(dout, c_out, hw);
    DeviceBuffer d_out(dout.size() * dtype_size(dt)), d_dskip(skip.size() * dtype_size(dt)),
        d_dup(up.size() * dtype_size(dt));
    // Poison the outputs so a missed element shows.
    const DeviceBuffer poison = to_device(std::vector<float>(skip.size(), 777.0f), dt, s());
    copy_on_device(d_dskip.data(), poison.data(), d_dskip.bytes(), s());
    concat_crop_forward(p, layout, dt, d_skip.data(), d_up.data(), d_out.data(), s());
    concat_crop_backward(p, layout, dt, d_dout.data(), d_dskip.data(), d_dup.data(), s());
    EXPECT_EQ(host(d_out, dout.size(), c_out, hw), want_out) << "h_skip " << p.h_skip;
    EXPECT_EQ(host(d_dskip, skip.size(), p.c_skip, skip_hw), want_dskip) << "h_skip " << p.h_skip;
    EXPECT_EQ(host(d_dup, up.size(), p.c_up, hw), want_dup) << "h_skip " << p.h_skip;
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ConcatCropTest,
                         ::testing::Values(Case{DType::f32, Layout::NCHW}, Case{DType::f32, Layout::NHWC},
                                           Case{DType::bf16, Layout::NCHW}, Case{DType::bf16, Layout::NHWC}),
                         [](const auto& info) {
                           return std::string(to_string(info.param.dtype)) +
                                  (info.param.layout == Layout::NHWC ? "_NHWC" : "_NCHW");
                         });

}  // namespace
}  // namespace scalebench::cuda::test
