// test_cuda_device_buffer.cpp — DeviceBuffer / Stream / copy helpers / Workspace: round trips,
// zeroing, device copies, the buffer's own host copies on its device, move semantics, empty
// buffers, and the workspace growing up to its cap.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/workspace.h"
#include "tests/common/gpu_test_util.h"

namespace scalebench::cuda::test {
namespace {

using DeviceBufferTest = CudaTest;

TEST_F(DeviceBufferTest, RoundTripsThroughTheDevice) {
  const std::vector<float> host = random_vec(1001, 7);
  DeviceBuffer b = upload(host, s());
  EXPECT_EQ(b.bytes(), host.size() * sizeof(float));
  EXPECT_EQ(download<float>(b.data(), host.size(), s()), host);
}

TEST_F(DeviceBufferTest, CopiesOnDeviceAndZeroes) {
  const std::vector<std::int32_t> host{1, 2, 3, 4, 5, 6, 7};
  DeviceBuffer a = upload(host, s());
  DeviceBuffer b(a.bytes());
  copy_on_device(b.data(), a.data(), a.bytes(), s());
  EXPECT_EQ(download<std::int32_t>(b.data(), host.size(), s()), host);
  zero_on_device(b.as<std::int32_t>() + 2, 3 * sizeof(std::int32_t), s());
  EXPECT_EQ(download<std::int32_t>(b.data(), host.size(), s()), (std::vector<std::int32_t>{1, 2, 0, 0, 0, 6, 7}));
}

TEST_F(DeviceBufferTest, CopiesWithTheHostOnItsDevice) {
  const std::vector<float> host = random_vec(257, 9);
  DeviceBuffer b(host.size() * sizeof(float), 0);
  EXPECT_EQ(b.device(), 0);
  b.upload(host.data(), b.bytes());
  std::vector<float> back(host.size());
  b.download(back.data(), b.bytes());
  EXPECT_EQ(back, host);
  b.zero(4 * sizeof(float));
  b.download(back.data(), b.bytes());
  EXPECT_EQ(std::vector<float>(back.begin(), back.begin() + 4), std::vector<float>(4, 0.0f));
  EXPECT_EQ(back[4], host[4]);
  EXPECT_THROW(b.upload(host.data(), b.bytes() + 1), Error);
}

TEST_F(DeviceBufferTest, MovesOwnership) {
  DeviceBuffer a(64);
  void* p = a.data();
  ASSERT_NE(p, nullptr);
  DeviceBuffer b = std::move(a);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.bytes(), 64u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(a.bytes(), 0u);
  DeviceBuffer c(16);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.bytes(), 64u);
}

TEST_F(DeviceBufferTest, EmptyBufferHoldsNothing) {
  DeviceBuffer e(0);
  EXPECT_EQ(e.data(), nullptr);
  copy_to_device(e.data(), nullptr, 0, s());  // zero-byte copies are no-ops
  copy_to_host(nullptr, e.data(), 0, s());
}

TEST(CudaWorkspace, GrowsOnDemandAndNamesTheCap) {
  Workspace ws(std::size_t(1) << 20);
  EXPECT_EQ(ws.size(), 0u);
  EXPECT_NE(ws.get(1000), nullptr);
  EXPECT_GE(ws.size(), 1000u);
  EXPECT_LE(ws.size(), ws.cap());
  try {
    ws.get(std::size_t(2) << 20);
    FAIL() << "a request above the cap did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cap of 1.0 MiB"), std::string::npos) << e.what();
  }
}

// The default cap follows free memory: at most half of what is free beyond the reserve (plus what it
// holds), and a request within it is served.
TEST(CudaWorkspace, DefaultCapFollowsFreeMemory) {
  Workspace ws;
  ASSERT_TRUE(ws.from_free_memory());
  std::size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  const std::size_t cap = ws.cap();
  EXPECT_LE(cap, free);
  EXPECT_GT(cap, std::size_t(512) << 20) << "a GPU with over 2 GiB free gets more than the old fixed 512 MiB";
  EXPECT_NE(ws.get(std::size_t(64) << 20), nullptr);
  EXPECT_LE(ws.size(), ws.cap());
  Workspace capped(std::size_t(1) << 20);
  EXPECT_FALSE(capped.from_free_memory());
  EXPECT_EQ(capped.cap(), std::size_t(1) << 20);
}

TEST(CudaStream, MovesAndSynchronises) {
  Stream a;
  cudaStream_t raw = a.get();
  ASSERT_NE(raw, nullptr);
  Stream b = std::move(a);
  EXPECT_EQ(b.get(), raw);
  EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  b.synchronize();
}

}  // namespace
}  // namespace scalebench::cuda::test
