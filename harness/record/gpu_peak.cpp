// gpu_peak.cpp — datasheet peaks per GPU model and precision (see gpu_peak.h). Sources: NVIDIA's
// product datasheets (V100, A100 40/80 GB, H100 SXM/PCIe/NVL, H200 SXM/NVL, L4, L40S, A10, T4),
// dense rates: where a datasheet gives only the sparse tensor figure, half of it. Volta and Turing
// (V100, T4) have no TF32 or BF16 tensor cores: tf32 math runs as fp32 there, bf16 has no peak.
// Not here: GPUs outside the table (`--peak-tflops` gives any peak; docs/results-schema.md).
#include "harness/record/gpu_peak.h"

#include <cmath>

#include <fmt/format.h>

namespace scalebench::record {
namespace {

struct Entry {
  const char* match;  // substring of the CUDA device name; the first matching entry wins
  const char* label;
  double fp32, tf32, bf16;  // TFLOP/s
};

// Order matters: the PCIe/NVL parts before the SXM default of the same family.
constexpr Entry kTable[] = {
    {"H100 PCIe", "H100 PCIe", 51.2, 378.0, 756.0},
    {"H100 NVL", "H100 NVL", 60.0, 417.5, 835.0},
    {"H100", "H100 SXM", 66.9, 494.7, 989.4},
    {"H200 NVL", "H200 NVL", 60.0, 417.5, 835.0},
    {"H200", "H200 SXM", 66.9, 494.7, 989.4},
    {"A100", "A100", 19.5, 156.0, 312.0},  // 40 GB and 80 GB, SXM and PCIe: the same rates
    {"A10", "A10", 31.2, 62.5, 125.0},     // after A100: "A10" is a substring of "A100"
    {"L40S", "L40S", 91.6, 183.0, 362.05},
    {"L4", "L4", 30.3, 60.0, 121.0},       // after L40S
    {"V100-PCIE", "V100 PCIe", 14.0, 14.0, NAN},
    {"V100", "V100 SXM2", 15.7, 15.7, NAN},
    {"T4", "T4", 8.1, 8.1, NAN},
};

}  // namespace

PeakMeasurement gpu_datasheet_peak(const std::string& device, Precision precision) {
  for (const Entry& e : kTable) {
    if (device.find(e.match) == std::string::npos) continue;
    const double t = precision == Precision::bf16 ? e.bf16 : precision == Precision::tf32 ? e.tf32 : e.fp32;
    if (std::isnan(t))
      return {NAN, fmt::format("the {} has no {} tensor cores (no datasheet peak; --peak-tflops gives one)", e.label,
                               name_of(precision))};
    return {t * 1e12, fmt::format("datasheet dense {} peak of the {} ({} TFLOP/s)", name_of(precision), e.label, t)};
  }
  return {NAN, fmt::format("no datasheet peak for '{}' (--peak-tflops gives one)", device)};
}

}  // namespace scalebench::record
