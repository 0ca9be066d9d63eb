// cpu_peak.h — the two CPU rates a run records (DESIGN §5, docs/results-schema.md):
//   nominal peak  the denominator of MFU on the CPU backend: fp32 FLOPs per cycle per core (from
//                 the widest vector extension in /proc/cpuinfo's flags, assuming two FMA units:
//                 avx512f 64, avx2+fma 32, avx 16, else sse 8) × the run's BLAS threads × the base
//                 clock (the "@ 2.20GHz" of the model name, else cpuinfo's "cpu MHz", which a VM
//                 reports as its fixed TSC rate). Fixed for a machine, so MFU moves only with
//                 throughput, and a slower BLAS lowers MFU as it lowers images/s;
//   sgemm rate    a short 512³ sgemm timed at start-up with the run's BLAS: recorded as the metric
//                 sgemm_tflops, so a slower library or a busy machine shows as such.
// `train --peak-tflops` replaces the nominal peak (recorder.cpp). Cost of the sgemm: about 0.3 s.
#pragma once

#include <string>

namespace scalebench::record {

struct PeakMeasurement {
  double flops = 0;       // floating-point operations per second
  std::string method;     // how it was obtained, recorded next to the value
};

// Uses the BLAS thread count currently set (the trainer sets it from --threads before this runs).
PeakMeasurement measure_cpu_peak(double budget_seconds = 0.3);

// From /proc/cpuinfo's text (pure, for tests); flops 0 and the reason in method when the clock or
// the flags cannot be read.
PeakMeasurement nominal_cpu_peak(const std::string& cpuinfo, int threads);
// The same for this machine and the current BLAS thread count.
PeakMeasurement nominal_cpu_peak();

}  // namespace scalebench::record
