// test_device_ops.cpp — every op of kernels/common/device_ops.def on the CPU device, one test each
// (CpuDeviceOp.<op>), against values worked out here by hand or by a plain loop, not by the CPU
// device's own code; and the coverage: the list matches ComputeDevice's ops (at compile time) and
// every op of the list has its test (at run time), so a new op cannot go untested.
// Deliberately not here: the CUDA device (tests/gpu/models/test_training_cuda.cpp holds it to the
// CPU one), make_device's choice (test_device.cpp), the kernels' own edge cases (tests/kernels).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/common/check.h"
#include "kernels/common/device.h"
#include "tests/common/harness_test_util.h"

namespace scalebench {
namespace {

using sbtest::error_of;

// ---- coverage ----------------------------------------------------------------------------------

// Overrides exactly the listed ops: a pure virtual of ComputeDevice missing from device_ops.def
// leaves it abstract (the static_assert fails), a listed op device.h does not declare with that
// signature fails `override`.
struct EveryListedOp final : ComputeDevice {
#define SB_DEVICE_OP(name, ret, params) \
  ret name params override { throw std::logic_error(#name); }
#include "kernels/common/device_ops.def"
#undef SB_DEVICE_OP
};
static_assert(!std::is_abstract_v<EveryListedOp>,
              "a ComputeDevice op is missing from kernels/common/device_ops.def (and from these tests)");

const std::vector<std::string> kOps = {
#define SB_DEVICE_OP(name, ret, params) #name,
#include "kernels/common/device_ops.def"
#undef SB_DEVICE_OP
};

TEST(DeviceOpCoverage, EveryOpHasItsCpuTestAndEveryTestItsOp) {
  std::set<std::string> tested;
  const auto* unit = ::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit->total_test_suite_count(); ++i) {
    const auto* suite = unit->GetTestSuite(i);
    if (std::string(suite->name()) != "CpuDeviceOp") continue;
    for (int j = 0; j < suite->total_test_count(); ++j) tested.insert(suite->GetTestInfo(j)->name());
  }
  const std::set<std::string> ops(kOps.begin(), kOps.end());
  for (const auto& op : ops)
    EXPECT_TRUE(tested.count(op)) << op << " (kernels/common/device_ops.def) has no TEST(CpuDeviceOp, " << op << ")";
  for (const auto& t : tested) EXPECT_TRUE(ops.count(t)) << "CpuDeviceOp." << t << " tests no op of device_ops.def";
}

// ---- one test per op ---------------------------------------------------------------------------

std::vector<float> values(const Tensor& t) { return {t.f32(), t.f32() + t.numel()}; }

// Odd and past one thread's share of element-wise work (parallel_for), so the split is exercised.
constexpr std::int64_t kBig = 300007;

TEST(CpuDeviceOp, where) {
  auto d = cpu::make_cpu_device();
  EXPECT_TRUE(d->where().is_cpu());
  EXPECT_EQ(d->gpu(), nullptr);
  EXPECT_EQ(d->act_dtype(), DType::f32);
  EXPECT_EQ(d->act_layout(), Layout::NCHW);
}

TEST(CpuDeviceOp, zeros) {
  auto d = cpu::make_cpu_device();
  const Tensor t = d->zeros({2, 3, 4, 5});
  EXPECT_EQ(t.shape(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(t.dtype(), DType::f32);
  EXPECT_TRUE(t.device().is_cpu());
  for (float v : values(t)) ASSERT_EQ(v, 0.0f);
  const Tensor h = d->zeros({7}, DType::bf16);
  EXPECT_EQ(h.nbytes(), 14u);
  std::vector<std::byte> none(14);
  EXPECT_EQ(std::memcmp(h.raw(), none.data(), 14), 0);
  EXPECT_NE(error_of([&] { d->zeros({1, 2, 3, 4}, DType::f32, Layout::NHWC); }).find("NCHW only"), std::string::npos);
}

TEST(CpuDeviceOp, upload) {
  auto d = cpu::make_cpu_device();
  std::vector<float> host{1.5f, -2, 3};
  Tensor t = d->zeros({3});
  d->upload(Tensor::view(host.data(), {3}), t);
  EXPECT_EQ(values(t), host);
  Tensor small = d->zeros({2});
  EXPECT_NE(error_of([&] { d->upload(Tensor::view(host.data(), {3}), small); }).find("upload: 12 bytes into 8"),
            std::string::npos);
}

TEST(CpuDeviceOp, download) {
  auto d = cpu::make_cpu_device();
  Tensor t = d->zeros({3});
  t.f32()[0] = 4, t.f32()[2] = -1;
  std::vector<float> host(3, 9.0f);
  Tensor h = Tensor::view(host.data(), {3});
  d->download(t, h);
  EXPECT_EQ(host, (std::vector<float>{4, 0, -1}));
  Tensor big = d->zeros({4});
  EXPECT_NE(error_of([&] { d->download(t, big); }).find("download"), std::string::npos);
}

TEST(CpuDeviceOp, copy) {
  auto d = cpu::make_cpu_device();
  Tensor a = d->zeros({2, 2}), b = d->zeros({2, 2});
  for (int i = 0; i < 4; ++i) a.f32()[i] = float(i) + 0.25f;
  d->copy(a, b);
  EXPECT_EQ(values(b), (std::vector<float>{0.25f, 1.25f, 2.25f, 3.25f}));
  EXPECT_NE(b.raw(), a.raw());
  Tensor c = d->zeros({4});  // same bytes, another shape
  EXPECT_NE(error_of([&] { d->copy(a, c); }).find("copy: shapes or dtypes differ"), std::string::npos);
}

TEST(CpuDeviceOp, convert) {
  auto d = cpu::make_cpu_device();
  Tensor a = d->zeros({1, 2, 1, 2}), b = d->zeros({1, 2, 1, 2});
  for (int i = 0; i < 4; ++i) a.f32()[i] = -float(i);
  d->convert(a, b);  // the CPU computes in f32 NCHW: converting is copying
  EXPECT_EQ(values(b), (std::vector<float>{0, -1, -2, -3}));
  Tensor h = d->zeros({1, 2, 1, 2}, DType::bf16);
  EXPECT_NE(error_of([&] { d->convert(a, h); }).find("f32 NCHW only"), std::string::npos);
}

TEST(CpuDeviceOp, fill) {
  auto d = cpu::make_cpu_device();
  std::vector<float> x(10, 1.0f);
  d->fill(x.data() + 3, 4, -0.5f);
  EXPECT_EQ(x, (std::vector<float>{1, 1, 1, -0.5f, -0.5f, -0.5f, -0.5f, 1, 1, 1}));
}

TEST(CpuDeviceOp, scale) {
  auto d = cpu::make_cpu_device();
  std::vector<float> x(kBig), want(kBig);
  for (std::int64_t i = 0; i < kBig; ++i) x[std::size_t(i)] = float(i % 97) * 0.37f - 11.0f;
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = x[i] * -1.7f;
  d->scale(x.data(), kBig, -1.7f);
  EXPECT_EQ(x, want);
}

TEST(CpuDeviceOp, axpy) {
  auto d = cpu::make_cpu_device();
  std::vector<float> x(kBig), y(kBig), y1, want(kBig), want1(kBig);
  for (std::int64_t i = 0; i < kBig; ++i) x[std::size_t(i)] = float(i % 13) - 6.5f, y[std::size_t(i)] = float(i % 7) * 0.1f;
  y1 = y;
  // a·x is exact in float for these values, so the sum rounds once whether or not a compiler fuses it
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = y[i] + 0.375f * x[i], want1[i] = y[i] + x[i];
  d->axpy(kBig, 0.375f, x.data(), y.data());
  d->axpy(kBig, 1.0f, x.data(), y1.data());  // the gradient sums' case: y + x exactly
  EXPECT_EQ(y, want);
  EXPECT_EQ(y1, want1);
}

TEST(CpuDeviceOp, add) {
  auto d = cpu::make_cpu_device();
  Tensor a = d->zeros({1, 3}), b = d->zeros({3});
  for (int i = 0; i < 3; ++i) a.f32()[i] = float(i), b.f32()[i] = 0.5f;
  d->add(a, b);
  EXPECT_EQ(values(a), (std::vector<float>{0.5f, 1.5f, 2.5f}));
  Tensor c = d->zeros({4});
  EXPECT_NE(error_of([&] { d->add(a, c); }).find("add: 3 and 4 elements"), std::string::npos);
}

TEST(CpuDeviceOp, dot) {
  auto d = cpu::make_cpu_device();
  const std::vector<float> x{1, 2, 3, 4, 5};
  EXPECT_EQ(d->dot(5, x.data(), x.data()), 55.0);
  // accumulated in double: a float sum would lose the 1 next to 1e8
  const std::vector<float> a{1e8f, 1, -1e8f}, ones{1, 1, 1};
  EXPECT_EQ(d->dot(3, a.data(), ones.data()), 1.0);
}

TEST(CpuDeviceOp, sum_squares) {
  auto d = cpu::make_cpu_device();
  const std::vector<float> x{1, 2, 3, 4, 5};
  EXPECT_EQ(d->sum_squares(x.data(), {{0, 2}, {2, 3}, {5, 0}, {1, 1}}), (std::vector<double>{5.0, 50.0, 0.0, 4.0}));
}

TEST(CpuDeviceOp, first_nonfinite) {
  auto d = cpu::make_cpu_device();
  std::vector<float> x(1000, 1.0f);
  EXPECT_EQ(d->first_nonfinite(x.data(), 1000).index, -1);
  x[700] = -std::numeric_limits<float>::infinity();
  x[321] = std::numeric_limits<float>::quiet_NaN();
  const NonFinite nf = d->first_nonfinite(x.data(), 1000);
  EXPECT_EQ(nf.index, 321);
  EXPECT_TRUE(std::isnan(nf.value));
  EXPECT_EQ(d->first_nonfinite(x.data(), 321).index, -1);  // only the first n are scanned
}

TEST(CpuDeviceOp, softmax_xent) {
  auto d = cpu::make_cpu_device();
  // [n = 2, C = 2]: sample 0 logits (0, ln 3) label 1, p = (1/4, 3/4); sample 1 (0, 0) label 0.
  Tensor logits = d->zeros({2, 2}), dl;
  logits.f32()[1] = float(std::log(3.0));
  const std::int32_t labels[] = {1, 0};
  const double nll0 = -std::log(0.75), nll1 = -std::log(0.5);
  EXPECT_NEAR(d->softmax_xent(logits, labels, {}, &dl), (nll0 + nll1) / 2, 1e-6);
  ASSERT_EQ(dl.shape(), logits.shape());
  const std::vector<float> grad = values(dl);  // (softmax - one-hot) / n
  const double want[] = {0.125, -0.125, -0.25, 0.25};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(grad[std::size_t(i)], want[i], 1e-6) << i;
  // class weights (1, 3): sum_i w[y_i] nll_i / sum_i w[y_i], no gradient asked
  EXPECT_NEAR(d->softmax_xent(logits, labels, {1.0f, 3.0f}, nullptr), (3 * nll0 + 1 * nll1) / 4, 1e-6);
  EXPECT_NE(error_of([&] { d->softmax_xent(logits, labels, {1.0f, 2.0f, 3.0f}, nullptr); }).find("3 class weights for 2 classes"),
            std::string::npos);
  // [n = 1, C = 2, 1, 2]: per pixel (NCHW: class-major), the mean over the two pixels
  Tensor px = d->zeros({1, 2, 1, 2});
  px.f32()[1] = float(std::log(3.0));  // pixel 1: class 0 logit ln 3, class 1 logit 0
  const std::int32_t px_labels[] = {0, 0};
  EXPECT_NEAR(d->softmax_xent(px, px_labels, {}, nullptr), (-std::log(0.5) - std::log(0.75)) / 2, 1e-6);
}

TEST(CpuDeviceOp, argmax_classes) {
  auto d = cpu::make_cpu_device();
  // [n = 2, C = 3]: (0.1, 0.7, 0.2) → 1; (0.5, 0.5, -1) → 0 (ties to the lower class)
  Tensor logits = d->zeros({2, 3});
  const float v[] = {0.1f, 0.7f, 0.2f, 0.5f, 0.5f, -1.0f};
  std::memcpy(logits.f32(), v, sizeof v);
  EXPECT_EQ(d->argmax_classes(logits), (std::vector<std::int32_t>{1, 0}));
  // [1, 2, 1, 3] per pixel: class 1 wins pixels 0 and 2
  Tensor px = d->zeros({1, 2, 1, 3});
  const float p[] = {0, 1, 0, 1, 0, 2};
  std::memcpy(px.f32(), p, sizeof p);
  EXPECT_EQ(d->argmax_classes(px), (std::vector<std::int32_t>{1, 0, 1}));
}

TEST(CpuDeviceOp, sgd_momentum_step) {
  auto d = cpu::make_cpu_device();
  // lr 0.1, momentum 0.9, wd 0.1. Step 1: g' = g + wd w = (0.6, -0.8) = m; w = (0.94, 2.08).
  std::vector<float> w{1, 2}, g{0.5f, -1}, m{7, 7};  // the first step ignores m's old value
  d->sgd_momentum_step(2, w.data(), g.data(), m.data(), 0.1f, 0.9f, 0.1f, true);
  EXPECT_NEAR(m[0], 0.6, 1e-6);
  EXPECT_NEAR(m[1], -0.8, 1e-6);
  EXPECT_NEAR(w[0], 0.94, 1e-6);
  EXPECT_NEAR(w[1], 2.08, 1e-6);
  // Step 2: g' = (0.594, -0.792); m = 0.9 m + g' = (1.134, -1.512); w = (0.8266, 2.2312).
  d->sgd_momentum_step(2, w.data(), g.data(), m.data(), 0.1f, 0.9f, 0.1f, false);
  EXPECT_NEAR(m[0], 1.134, 1e-6);
  EXPECT_NEAR(m[1], -1.512, 1e-6);
  EXPECT_NEAR(w[0], 0.8266, 1e-6);
  EXPECT_NEAR(w[1], 2.2312, 1e-6);
}

TEST(CpuDeviceOp, adamw_step) {
  auto d = cpu::make_cpu_device();
  // Step 1: m̂ = g, v̂ = g², so the Adam step is lr g / (|g| + eps) ≈ lr sign(g); decoupled decay
  // takes lr wd w: w = (3, 4) - 0.01 (0.5 (3, 4) + (1, -1)) = (2.975, 3.99).
  std::vector<float> w{3, 4}, g{0.6f, -0.8f}, m{0, 0}, v{0, 0};
  d->adamw_step(2, w.data(), g.data(), m.data(), v.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0.5f, 1);
  EXPECT_NEAR(w[0], 2.975, 1e-6);
  EXPECT_NEAR(w[1], 3.99, 1e-6);
  EXPECT_NEAR(m[0], 0.06, 1e-7);
  EXPECT_NEAR(v[1], 0.001 * 0.64, 2e-8);  // 1 - beta2 is rounded in float
}

TEST(CpuDeviceOp, lars_step) {
  auto d = cpu::make_cpu_device();
  // w = (3, 4), ‖w‖ = 5; g = (0.6, 0.8), ‖g‖ = 1; eta 0.001, lr 10, wd 0.1: trust 0.005 / 1.5,
  // direction g + wd w = (0.9, 1.2), lr trust = 1/30.
  std::vector<float> w{3, 4}, g{0.6f, 0.8f}, v{0, 0};
  EXPECT_NEAR(d->lars_step(2, w.data(), g.data(), v.data(), 10, 0.9f, 0.1f, 0.001f, true), 0.005 / 1.5, 1e-9);
  EXPECT_NEAR(v[0], 0.9 / 30, 1e-7);
  EXPECT_NEAR(w[0], 3 - 0.9 / 30, 1e-6);
  EXPECT_NEAR(w[1], 4 - 1.2 / 30, 1e-6);
  // not adapting: trust 1, plain momentum SGD v = lr g
  std::vector<float> w2{3, 4}, v2{0, 0};
  EXPECT_EQ(d->lars_step(2, w2.data(), g.data(), v2.data(), 0.5f, 0.9f, 0, 0.001f, false), 1.0);
  EXPECT_NEAR(w2[0], 2.7, 1e-6);
}

TEST(CpuDeviceOp, lamb_step) {
  auto d = cpu::make_cpu_device();
  // Step 1, wd 0.5: r = (1, -1) + 0.5 (3, 4) = (2.5, 1), ‖r‖ = √7.25, trust = 5 / √7.25.
  std::vector<float> w{3, 4}, g{0.6f, -0.8f}, m{0, 0}, v{0, 0};
  const double trust = 5 / std::sqrt(7.25);
  EXPECT_NEAR(d->lamb_step(2, w.data(), g.data(), m.data(), v.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0.5f, 1, true), trust,
              1e-5);
  EXPECT_NEAR(w[0], 3 - 0.01 * trust * 2.5, 1e-6);
  EXPECT_NEAR(w[1], 4 - 0.01 * trust * 1.0, 1e-6);
  EXPECT_NEAR(m[0], 0.06, 1e-7);
  // not adapting: trust 1, the step is lr r
  std::vector<float> w2{3, 4}, m2{0, 0}, v2{0, 0};
  EXPECT_EQ(d->lamb_step(2, w2.data(), g.data(), m2.data(), v2.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 0.5f, 1, false), 1.0);
  EXPECT_NEAR(w2[0], 3 - 0.025, 1e-6);
}

// The CPU's copy queue for the staged transport: bytes land as they were, each way, at once (no
// queue to wait for), into 256-byte-aligned host blocks; zero bytes and a copy onto itself are fine.
TEST(CpuDeviceOp, stager) {
  auto d = cpu::make_cpu_device();
  auto q = d->stager(10.0);
  ASSERT_NE(q, nullptr);
  std::vector<float> dev(1000), back(1000, -1.0f);
  for (std::size_t i = 0; i < dev.size(); ++i) dev[i] = float(i) * 0.5f - 3.0f;
  void* host = q->host_alloc(dev.size() * sizeof(float));
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(host) % 256, 0u);
  q->to_host(host, dev.data(), dev.size() * sizeof(float));
  q->wait();
  EXPECT_EQ(std::memcmp(host, dev.data(), dev.size() * sizeof(float)), 0);
  q->from_host(back.data(), host, back.size() * sizeof(float));
  q->wait();
  EXPECT_EQ(back, dev);
  q->to_host(host, dev.data(), 0);
  q->from_host(host, host, 16);
  q->wait();
  EXPECT_EQ(std::memcmp(host, dev.data(), dev.size() * sizeof(float)), 0);
  q->host_free(host);
}

TEST(CpuDeviceOp, synchronize) {
  auto d = cpu::make_cpu_device();
  Tensor t = d->zeros({1000});
  d->fill(t.f32(), 1000, 3.0f);
  d->scale(t.f32(), 1000, 2.0f);
  d->synchronize();  // everything queued is done: the host reads the result
  for (float x : values(t)) ASSERT_EQ(x, 6.0f);
}

TEST(CpuDeviceOp, mark) {
  auto d = cpu::make_cpu_device();
  const auto before = std::chrono::steady_clock::now();
  const auto a = d->mark();
  const auto b = d->mark();
  const auto after = std::chrono::steady_clock::now();
  ASSERT_NE(a, nullptr);
  EXPECT_LE(before, a->host_time);  // the CPU's mark is the host clock at the call
  EXPECT_LE(a->host_time, b->host_time);
  EXPECT_LE(b->host_time, after);
}

TEST(CpuDeviceOp, seconds_between) {
  auto d = cpu::make_cpu_device();
  const auto a = d->mark();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto b = d->mark();
  // on the CPU the timeline is the host clock: exactly the marks' host times apart
  const double want = std::chrono::duration<double>(b->host_time - a->host_time).count();
  EXPECT_EQ(d->seconds_between(*a, *b), want);
  EXPECT_EQ(d->seconds_between(*b, *a), -want);
  EXPECT_GE(want, 0.002);  // sleep_for waits at least that long
}

}  // namespace
}  // namespace scalebench
