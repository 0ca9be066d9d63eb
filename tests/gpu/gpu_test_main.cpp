// gpu_test_main.cpp — main() of every gpu-labelled test binary: without a usable CUDA device it
// prints why and exits 77, which ctest reports as "Skipped" (SKIP_RETURN_CODE), never as passed.
// Listing tests (gtest_discover_tests at build time) works without a device.
#include <cstring>
#include <cstdio>

#include <gtest/gtest.h>

#include "kernels/cuda/device.h"

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strcmp(argv[i], "--gtest_list_tests") == 0;
  if (!listing) {
    const auto a = scalebench::cuda::device_availability();
    if (a.count == 0) {
      std::printf("SKIPPED: no CUDA device: %s\n", a.reason.c_str());
      return 77;
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
