// test_gpu_peak.cpp — the GPU datasheet peak table: the right row and precision for the names CUDA
// reports, the PCIe part not mistaken for the SXM one, and NaN naming the device when unknown.
#include <cmath>

#include <gtest/gtest.h>

#include "harness/record/gpu_peak.h"

using scalebench::Precision;
using scalebench::record::gpu_datasheet_peak;

TEST(GpuPeak, H100SxmByPrecision) {
  const std::string name = "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)";
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak(name, Precision::bf16).flops, 989.4e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak(name, Precision::tf32).flops, 494.7e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak(name, Precision::fp32).flops, 66.9e12);
  EXPECT_NE(gpu_datasheet_peak(name, Precision::bf16).method.find("H100 SXM"), std::string::npos);
}

TEST(GpuPeak, PcieAndOtherModels) {
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA H100 PCIe", Precision::bf16).flops, 756.0e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA H200", Precision::tf32).flops, 494.7e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA A100-SXM4-80GB", Precision::bf16).flops, 312.0e12);
}

TEST(GpuPeak, UnknownDeviceIsNanWithItsName) {
  const auto p = gpu_datasheet_peak("NVIDIA GeForce RTX 4090", Precision::bf16);
  EXPECT_TRUE(std::isnan(p.flops));
  EXPECT_NE(p.method.find("RTX 4090"), std::string::npos);
}
