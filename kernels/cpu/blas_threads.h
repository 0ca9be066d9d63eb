// blas_threads.h — the thread budget of one rank on the CPU: how many threads OpenBLAS and oneDNN
// (kernels/onednn, which reads blas_threads() before every call) may use, and the CPUs this
// process may run on. The rule (harness/train/trainer.cpp, docs/metrics.md): --threads when given,
// else the CPUs in this process's affinity mask (taskset, Slurm's --cpus-per-task binding, a
// cgroup cpuset) shared evenly among the ranks on this host, at least 1.
#pragma once

#include <string>
#include <vector>

namespace scalebench::cpu {

void set_blas_threads(int threads);  // 0: usable_cpus()
int blas_threads();

// CPUs in this process's affinity mask (sched_getaffinity), at least 1, and the mask as ranges ("0-1,4").
int usable_cpus();
std::string usable_cpu_list();
// The same mask as CPU numbers, ascending (empty when it cannot be read).
std::vector<int> usable_cpu_ids();

}  // namespace scalebench::cpu
