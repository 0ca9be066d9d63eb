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
constexpr const char* kWaitChosenVar = "SCALEBENCH_OMP_WAIT";  // marks the OpenMP wait scalebench set
constexpr const char* kTimeoutChosenVar = "SCALEBENCH_BLAS_TIMEOUT";  // marks OpenBLAS's timeout we set

// The waits measured best (docs/cpu.md, "Threads"): OpenMP workers spin about 10^4 pause loops
// (well under a millisecond) and then sleep; OpenBLAS workers sleep after 2^4 cycles.
constexpr const char* kSpinCount = "10000";
constexpr const char* kBlasTimeout = "4";

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// True when the OpenMP wait had to be set: unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT,
// a bounded spin (ACTIVE with GOMP_SPINCOUNT) instead of libgomp's default 300000 loops.
bool choose_omp_wait_env() {
  if (env("OMP_WAIT_POLICY") || env("GOMP_SPINCOUNT")) return false;
  ::setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
  ::setenv("GOMP_SPINCOUNT", kSpinCount, 1);
  ::setenv(kWaitChosenVar, kSpinCount, 1);
  return true;
}

// True when OpenBLAS's idle timeout had to be set (the user's OPENBLAS_THREAD_TIMEOUT is kept).
bool choose_blas_timeout_env() {
  if (env("OPENBLAS_THREAD_TIMEOUT")) return false;
  ::setenv("OPENBLAS_THREAD_TIMEOUT", kBlasTimeout, 1);
  ::setenv(kTimeoutChosenVar, kBlasTimeout, 1);
  return true;
}

}  // namespace

void prepare_cpu_runtime(char** argv) {
  if (const char* pid = env(kPidVar); pid && std::atol(pid) == long(::getpid())) return;  // done
  if (reexec_failed()) return;  // a parent could not re-execute either: do not try in every child
  bool again = choose_blas_core_env();
  again = choose_omp_wait_env() || again;
  again = choose_blas_timeout_env() || again;
  if (!again) return;
  ::setenv(kPidVar, std::to_string(::getpid()).c_str(), 1);
  ::execv("/proc/self/exe", argv);
  // Still here (execv failed): this process keeps what it loaded; the context says so.
  ::setenv(kFailedVar, "1", 1);
}

bool reexec_failed() { return env(kFailedVar) != nullptr; }

std::string thread_wait_origin() {
  const bool failed = reexec_failed();
  const auto who = [&](const char* marker, const char* value) -> std::string {
    if (!env(marker) || !value || std::string(env(marker)) != value) return " (set by the user)";
    return failed ? " (set by scalebench, but re-executing failed: not in effect)" : " (set by scalebench)";
  };
  const char* policy = env("OMP_WAIT_POLICY");
  const char* spin = env("GOMP_SPINCOUNT");
  std::string s = "OpenMP ";
  if (!policy && !spin) s += "libgomp's default wait";
  if (policy) s += std::string("OMP_WAIT_POLICY=") + policy + (spin ? " " : "");
  if (spin) s += std::string("GOMP_SPINCOUNT=") + spin;
  if (policy || spin) s += who(kWaitChosenVar, spin ? spin : "");
  const char* timeout = env("OPENBLAS_THREAD_TIMEOUT");
  s += "; OpenBLAS ";
  s += timeout ? std::string("OPENBLAS_THREAD_TIMEOUT=") + timeout + who(kTimeoutChosenVar, timeout)
               : std::string("default idle timeout");
  return s;
}

}  // namespace scalebench::cpu
