// gpu_peak.h — the datasheet peak of an NVIDIA GPU for a training precision: the denominator of MFU
// on the cuda backend (DESIGN §5). Unlike the CPU (cpu_peak.h, measured), GPU peaks are a short,
// stable list: dense (no 2:4 sparsity) tensor-core rates for tf32 and bf16, the FMA rate for strict
// fp32, at the boost clock. Unknown GPUs get NaN and a method naming the device, never a guess.
// Not here: measuring a peak, clocks below boost (MFU reads lower on a throttled GPU, as it should).
#pragma once

#include "kernels/common/precision.h"

#include <string>

#include "harness/record/cpu_peak.h"

namespace scalebench::record {

// device: the CUDA device name ("NVIDIA H100 80GB HBM3 ...").
PeakMeasurement gpu_datasheet_peak(const std::string& device, Precision precision);

}  // namespace scalebench::record
