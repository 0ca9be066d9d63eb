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

// The names CUDA gives these boards; a substring of another model's name must not catch it.
TEST(GpuPeak, CommonBoardsAndSubstrings) {
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA A10", Precision::bf16).flops, 125.0e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA A100-PCIE-40GB", Precision::tf32).flops, 156.0e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA L4", Precision::bf16).flops, 121.0e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA L40S", Precision::bf16).flops, 362.05e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("NVIDIA H200 NVL", Precision::bf16).flops, 835.0e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("Tesla V100-SXM2-32GB", Precision::fp32).flops, 15.7e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("Tesla V100-PCIE-16GB", Precision::fp32).flops, 14.0e12);
  EXPECT_DOUBLE_EQ(gpu_datasheet_peak("Tesla T4", Precision::tf32).flops, 8.1e12);  // tf32 runs as fp32
  const auto t4 = gpu_datasheet_peak("Tesla T4", Precision::bf16);  // no bf16 tensor cores
  EXPECT_TRUE(std::isnan(t4.flops));
  EXPECT_NE(t4.method.find("--peak-tflops"), std::string::npos) << t4.method;
}
