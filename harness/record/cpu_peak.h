// cpu_peak.h — the CPU's achievable fp32 peak, measured at run start-up with a short sgemm (the
// denominator of MFU on the CPU backend, DESIGN §5: "CPU peak measured at start-up").
// Measured, not taken from a spec sheet: a spec-sheet peak needs the vector width, FMA units and
// sustained clock of every CPU model, which no table here can keep up with. sgemm at a size that
// fits the caches reaches 80–95 % of the theoretical peak on current x86, so MFU against it reads
// as "fraction of what this CPU's BLAS can do" (docs/results-schema.md says so).
// Cost: about 0.3 s of wall time. Noisy on a shared host (the best of several trials is kept).
#pragma once

#include <string>

namespace scalebench::record {

struct PeakMeasurement {
  double flops = 0;       // floating-point operations per second, best trial
  std::string method;     // how it was measured, recorded next to the value
};

// Uses the BLAS thread count currently set (the trainer sets it from --threads before this runs).
PeakMeasurement measure_cpu_peak(double budget_seconds = 0.3);

}  // namespace scalebench::record
