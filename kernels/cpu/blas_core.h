// blas_core.h — which OpenBLAS kernel set ("core type") this process runs, and the start-up step
// that stops OpenBLAS from falling back to its oldest kernels on a CPU it does not recognise.
//
// OpenBLAS built with DYNAMIC_ARCH (Debian's) picks its kernels once, when the library loads, from
// the CPU's family and model numbers. On a CPU model it does not know (a VM reporting a generic
// "Intel(R) Xeon(R) Processor", a newer part than the library) it falls back to `Prescott`, the SSE3
// kernels, although the CPU may have AVX-512: sgemm then runs at about a quarter of its rate. The
// choice cannot be changed after load, only through OPENBLAS_CORETYPE in the environment before it,
// so choose_blas_core_env() sets it from the CPU's own feature flags and the program re-executes
// itself once (runtime_env.h). It never overrides an OPENBLAS_CORETYPE the user set, and does
// nothing off x86-64 or with another BLAS (blas_vendor.h). It does not tune anything else
// (threads: blas_threads.h).
#pragma once

#include <string>
#include <string_view>

namespace scalebench::cpu {

// The x86 vector extensions that decide OpenBLAS's kernels (OS support included).
struct CpuVectorFeatures {
  bool avx = false, avx2 = false, fma = false, avx512 = false;  // avx512: F, CD, BW, DQ and VL
};
CpuVectorFeatures this_cpu_features();

// The OpenBLAS core type whose kernels these features run best ("SkylakeX", "Haswell",
// "Sandybridge"), or "" when none of them applies (no AVX, or not x86-64).
std::string best_blas_core(const CpuVectorFeatures& f);

// The vector-ISA level of an OpenBLAS core name: 0 (SSE or unknown), 1 AVX, 2 AVX2, 3 AVX-512.
int blas_core_level(std::string_view core);

// The core type OpenBLAS runs in this process (openblas_get_corename); "" with another BLAS.
std::string blas_core();

// When OpenBLAS's own detection chose a lower ISA level than this CPU supports (or a parent's
// choice, inherited, does not fit this CPU) and the user did not set OPENBLAS_CORETYPE: sets it
// (with the SCALEBENCH_BLAS_CORE and SCALEBENCH_BLAS_DETECTED markers: what we chose, what OpenBLAS
// detected) and returns true, meaning the process must re-execute to load those kernels.
bool choose_blas_core_env();

// How this process's core type came about, for the run file's context, e.g.
// "SkylakeX (chosen by scalebench from the CPU flags; OpenBLAS detected Prescott)",
// "Cooperlake (detected by OpenBLAS)", "Haswell (OPENBLAS_CORETYPE set by the user)".
std::string blas_core_origin();

// "" when the kernels OpenBLAS loaded use the widest vectors this CPU has (or no OpenBLAS); else why
// not and what it costs, e.g. "OpenBLAS runs its SSE kernels, Prescott (OPENBLAS_CORETYPE=Prescott set
// by the user), on a CPU with AVX-512 (SkylakeX): …". A user's choice stands (train warns, the run
// file's context keeps it).
std::string blas_core_shortfall();

}  // namespace scalebench::cpu
