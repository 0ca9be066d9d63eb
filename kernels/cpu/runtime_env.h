// runtime_env.h — the environment the CPU libraries read once, when they load, set before they
// load: OpenBLAS's core type (blas_core.h) and OpenMP's wait policy (oneDNN's thread team).
//
// Why the wait policy: OpenBLAS's pthreads and oneDNN's OpenMP team are two thread pools that take
// turns within one training step. libgomp's idle workers spin by default; with a core also busy
// with the other pool's worker, a data-loader thread or another process, the spinning workers took
// the cores the working ones needed: on this repository's 2-core VM, VGG16 at --threads 2 ran at
// 19-25 images/s instead of 106-123 with OMP_WAIT_POLICY=passive (docs/results-cpu.md, "Threads").
// So unless the user set OMP_WAIT_POLICY, scalebench sets it to PASSIVE.
//
// Both can only be changed before the libraries load, so prepare_cpu_runtime() — called first in
// main() — sets what is missing and re-executes /proc/self/exe with the same argv, at most once per
// process (SCALEBENCH_REEXEC_PID holds the pid that did: execv keeps it). It never overrides a
// variable the user set. Not here: thread counts (blas_threads.h, set per rank at run time).
#pragma once

#include <string>

namespace scalebench::cpu {

void prepare_cpu_runtime(char** argv);

// The OpenMP wait policy in effect and who chose it, for the run file's context:
// "PASSIVE (set by scalebench)", "ACTIVE (OMP_WAIT_POLICY set by the user)".
std::string omp_wait_policy_origin();

}  // namespace scalebench::cpu
