// gpu_peak.cpp — datasheet peaks per GPU model and precision (see gpu_peak.h). Sources: NVIDIA's
// H100/H200 and A100 datasheets, dense rates (the sparse figures are twice these).
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
    {"H200", "H200 SXM", 66.9, 494.7, 989.4},
    {"A100", "A100", 19.5, 156.0, 312.0},
};

}  // namespace

PeakMeasurement gpu_datasheet_peak(const std::string& device, Precision precision) {
  for (const Entry& e : kTable) {
    if (device.find(e.match) == std::string::npos) continue;
    const double t = precision == Precision::bf16 ? e.bf16 : precision == Precision::tf32 ? e.tf32 : e.fp32;
    return {t * 1e12, fmt::format("datasheet dense {} peak of the {} ({} TFLOP/s)", name_of(precision), e.label, t)};
  }
  return {NAN, fmt::format("no datasheet peak for '{}'", device)};
}

}  // namespace scalebench::record
