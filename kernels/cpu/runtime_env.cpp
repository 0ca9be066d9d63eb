// runtime_env.cpp — the one re-execution that sets the CPU libraries' load-time environment (see
// runtime_env.h).
#include "kernels/cpu/runtime_env.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "kernels/cpu/blas_core.h"

namespace scalebench::cpu {
namespace {

constexpr const char* kPidVar = "SCALEBENCH_REEXEC_PID";          // the process that re-executed
constexpr const char* kFailedVar = "SCALEBENCH_REEXEC_FAILED";    // it tried and execv failed
constexpr const char* kWaitChosenVar = "SCALEBENCH_OMP_WAIT_POLICY";  // the policy scalebench set

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// True when OMP_WAIT_POLICY had to be set (the user's own value is kept).
bool choose_omp_wait_policy_env() {
  if (env("OMP_WAIT_POLICY")) return false;
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  ::setenv(kWaitChosenVar, "PASSIVE", 1);
  return true;
}

}  // namespace

void prepare_cpu_runtime(char** argv) {
  if (const char* pid = env(kPidVar); pid && std::atol(pid) == long(::getpid())) return;  // done
  if (env(kFailedVar)) return;  // a parent could not re-execute either: do not try in every child
  bool again = choose_blas_core_env();
  again = choose_omp_wait_policy_env() || again;
  if (!again) return;
  ::setenv(kPidVar, std::to_string(::getpid()).c_str(), 1);
  ::execv("/proc/self/exe", argv);
  // Still here (execv failed): this process keeps what it loaded; the context says so.
  ::setenv(kFailedVar, "1", 1);
}

std::string omp_wait_policy_origin() {
  const char* v = env("OMP_WAIT_POLICY");
  if (!v) return "unset (libgomp default: spin, then sleep)";
  const char* ours = env(kWaitChosenVar);
  if (ours && std::string(ours) == v)
    return std::string(v) + (env(kFailedVar) ? " (set by scalebench, but re-executing failed: not in effect)"
                                             : " (set by scalebench)");
  return std::string(v) + " (OMP_WAIT_POLICY set by the user)";
}

}  // namespace scalebench::cpu
