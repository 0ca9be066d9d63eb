// runtime_env.h — the environment the CPU libraries read once, when they load, set before they
// load: OpenBLAS's core type (blas_core.h) and how OpenMP's and OpenBLAS's idle threads wait.
//
// Why the waits: OpenBLAS's pthreads and oneDNN's OpenMP team are two thread pools that take turns
// within one training step. Idle, each spins for a while before it sleeps: libgomp 300000 pause
// loops by default, OpenBLAS 2^28 cycles (about 0.1 s) of sched_yield. A worker of one pool
// spinning on the core the other pool's worker needs halved steps at --threads 2 (VGG16 width 0.25
// on this repository's 2-core VM: 87-162 images/s from run to run, and 19-25 beside a compile);
// sleeping at once (OMP_WAIT_POLICY=passive) was robust but paid a wake-up per parallel region
// (2 threads no faster than 1). Measured best (docs/cpu.md, "Threads"): OpenMP spins a bounded
// 10^4 loops then sleeps (OMP_WAIT_POLICY=ACTIVE with GOMP_SPINCOUNT=10000), OpenBLAS sleeps after
// 2^4 cycles (OPENBLAS_THREAD_TIMEOUT=4). Each is set only when the user set none of its variables.
//
// Both can only be changed before the libraries load, so prepare_cpu_runtime() — called first in
// main() — sets what is missing and re-executes /proc/self/exe with the same argv, at most once per
// process (SCALEBENCH_REEXEC_PID holds the pid that did: execv keeps it). It never overrides a
// variable the user set. Not here: thread counts (blas_threads.h, set per rank at run time).
#pragma once

#include <string>

namespace scalebench::cpu {

void prepare_cpu_runtime(char** argv);

// True when this process (or a parent) tried to re-execute and execv failed: what was set is not
// what the libraries loaded.
bool reexec_failed();

// The thread pools' idle waits in effect and who chose them, for the run file's context:
// "OpenMP OMP_WAIT_POLICY=ACTIVE GOMP_SPINCOUNT=10000 (set by scalebench); OpenBLAS
// OPENBLAS_THREAD_TIMEOUT=4 (set by scalebench)".
std::string thread_wait_origin();

}  // namespace scalebench::cpu
