// test_concat_crop.cpp — U-Net skip join: channel order [skip, up], centre-crop offsets on odd
// sizes, identity crop, and the backward against central differences (zero outside the window).
#include <gtest/gtest.h>

#include "kernels/cpu/concat_crop.h"
#include "tests/kernels/kernel_test_util.h"

namespace scalebench::cpu {
namespace {

using test::dot;
using test::max_rel_err;
using test::numeric_grad;
using test::poisoned;
using test::random_vec;

ConcatCropParams make(int n, int c_skip, int h_skip, int w_skip, int c_up, int h, int w) {
  ConcatCropParams p;
  p.n = n, p.c_skip = c_skip, p.h_skip = h_skip, p.w_skip = w_skip, p.c_up = c_up, p.h = h, p.w = w;
  return p;
}

std::size_t skip_size(const ConcatCropParams& p) { return std::size_t(p.n) * p.c_skip * p.h_skip * p.w_skip; }
std::size_t up_size(const ConcatCropParams& p) { return std::size_t(p.n) * p.c_up * p.h * p.w; }
std::size_t out_size(const ConcatCropParams& p) { return skip_size(p) / p.h_skip / p.w_skip * p.h * p.w + up_size(p); }

TEST(ConcatCrop, ForwardIndexingOddCrop) {
  // skip 9×8 cropped to 5×5: offsets ((9-5)/2, (8-5)/2) = (2, 1).
  const auto p = make(2, 3, 9, 8, 2, 5, 5);
  EXPECT_EQ(p.off_h(), 2);
  EXPECT_EQ(p.off_w(), 1);
  const auto skip = random_vec(skip_size(p), 1), up = random_vec(up_size(p), 2);
  auto out = poisoned(out_size(p));
  concat_crop_forward(p, skip.data(), up.data(), out.data());
  const int c_all = p.c_skip + p.c_up;
  for (int n = 0; n < p.n; ++n)
    for (int c = 0; c < c_all; ++c)
      for (int i = 0; i < p.h; ++i)
        for (int j = 0; j < p.w; ++j) {
          const float got = out[((std::size_t(n) * c_all + c) * p.h + i) * p.w + j];
          const float want =
              c < p.c_skip
                  ? skip[((std::size_t(n) * p.c_skip + c) * p.h_skip + i + 2) * p.w_skip + j + 1]
                  : up[((std::size_t(n) * p.c_up + (c - p.c_skip)) * p.h + i) * p.w + j];
          ASSERT_EQ(got, want) << "n=" << n << " c=" << c << " i=" << i << " j=" << j;
        }
}

TEST(ConcatCrop, IdentityCropIsPlainConcat) {
  const auto p = make(2, 2, 3, 4, 1, 3, 4);
  const auto skip = random_vec(skip_size(p), 3), up = random_vec(up_size(p), 4);
  std::vector<float> out(out_size(p)), want;
  concat_crop_forward(p, skip.data(), up.data(), out.data());
  for (int n = 0; n < 2; ++n) {
    want.insert(want.end(), skip.begin() + n * 24, skip.begin() + (n + 1) * 24);
    want.insert(want.end(), up.begin() + n * 12, up.begin() + (n + 1) * 12);
  }
  EXPECT_EQ(out, want);
}

TEST(ConcatCrop, GradCheck) {
  for (const auto& p : {make(2, 2, 7, 6, 3, 4, 3), make(1, 3, 5, 5, 2, 5, 5), make(2, 1, 8, 9, 2, 3, 4)}) {
    auto skip = random_vec(skip_size(p), 5), up = random_vec(up_size(p), 6);
    const auto r = random_vec(out_size(p), 7);
    std::vector<float> out(out_size(p));
    const auto loss = [&] {
      concat_crop_forward(p, skip.data(), up.data(), out.data());
      return dot(out, r);
    };
    auto dskip = poisoned(skip_size(p)), dup = poisoned(up_size(p));
    concat_crop_backward(p, r.data(), dskip.data(), dup.data());
    EXPECT_LE(max_rel_err(dskip, numeric_grad(skip, loss)), 1e-2) << "skip " << p.h_skip << "x" << p.w_skip;
    EXPECT_LE(max_rel_err(dup, numeric_grad(up, loss)), 1e-2) << "skip " << p.h_skip << "x" << p.w_skip;
  }
}

}  // namespace
}  // namespace scalebench::cpu
