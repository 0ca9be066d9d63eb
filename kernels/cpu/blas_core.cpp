// blas_core.cpp — OpenBLAS core-type choice (see blas_core.h); the re-execution is runtime_env.cpp's.
#include "kernels/cpu/blas_core.h"

#include <cctype>
#include <cstdlib>
#include <string>

#include "kernels/cpu/blas_vendor.h"
#include "kernels/cpu/runtime_env.h"

namespace scalebench::cpu {
namespace {

constexpr const char* kChosenVar = "SCALEBENCH_BLAS_CORE";        // the core type scalebench set
constexpr const char* kDetectedVar = "SCALEBENCH_BLAS_DETECTED";  // OpenBLAS's own pick on this host

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

}  // namespace

CpuVectorFeatures this_cpu_features() {
  CpuVectorFeatures f;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // libgcc's checks include the OS's XSAVE support (XGETBV) for the AVX and AVX-512 states.
  __builtin_cpu_init();
  f.avx = __builtin_cpu_supports("avx");
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
#endif
  return f;
}

std::string best_blas_core(const CpuVectorFeatures& f) {
  if (f.avx512) return "SkylakeX";  // OpenBLAS's AVX-512 sgemm/dgemm kernels (Cooperlake adds bf16 only)
  if (f.avx2 && f.fma) return "Haswell";
  if (f.avx) return "Sandybridge";
  return "";
}

int blas_core_level(std::string_view core) {
  const std::string c = lower(core);
  for (const char* n : {"skylakex", "cooperlake", "sapphirerapids"})
    if (c == n) return 3;
  for (const char* n : {"haswell", "zen"})
    if (c == n) return 2;
  for (const char* n : {"sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"})
    if (c == n) return 1;
  return 0;
}

std::string blas_core() { return blas_vendor_corename(); }

// Our own choice travels to child processes (a sweep's points, mpirun's ranks, a Slurm job on
// other hardware) in OPENBLAS_CORETYPE with kChosenVar beside it, so each process checks it
// against its own CPU: a login node's AVX-512 choice must not reach a compute node without
// AVX-512 (OpenBLAS does not check a forced core type; its kernels would fault).
bool choose_blas_core_env() {
  if (std::string_view(blas_api_name()) != "openblas") return false;  // only OpenBLAS has core types
  const char* forced = env("OPENBLAS_CORETYPE");
  const char* chosen = env(kChosenVar);
  if (forced && !(chosen && lower(chosen) == lower(forced))) return false;  // the user's choice wins
  const std::string current = blas_core();
  const std::string best = best_blas_core(this_cpu_features());
  if (forced ? blas_core_level(current) == blas_core_level(best) : blas_core_level(current) >= blas_core_level(best))
    return false;
  if (best.empty()) {  // inherited from a CPU with more: let OpenBLAS detect this one
    ::unsetenv("OPENBLAS_CORETYPE");
    ::unsetenv(kChosenVar);
    ::unsetenv(kDetectedVar);
  } else {
    ::setenv("OPENBLAS_CORETYPE", best.c_str(), 1);
    ::setenv(kChosenVar, best.c_str(), 1);
    if (forced) ::unsetenv(kDetectedVar);  // another host's detection says nothing about this one
    else ::setenv(kDetectedVar, current.c_str(), 1);
  }
  return true;
}

std::string blas_core_origin() {
  if (std::string_view(blas_api_name()) != "openblas")
    return std::string("not OpenBLAS (") + blas_api_name() + " API): the library picks its own kernels";
  const std::string core = blas_core();
  const char* forced = env("OPENBLAS_CORETYPE");
  const char* chosen = env(kChosenVar);
  if (reexec_failed() && chosen && !(forced && lower(forced) == lower(core)))
    return core + " (re-executing with the core type scalebench chose failed; these are the kernels loaded)";
  if (forced && !(chosen && lower(chosen) == lower(forced)))
    return core + " (OPENBLAS_CORETYPE=" + forced + " set by the user)";
  if (!forced) return core + " (detected by OpenBLAS)";
  std::string s = core + " (chosen by scalebench from the CPU flags";
  if (const char* detected = env(kDetectedVar)) s += std::string("; OpenBLAS detected ") + detected;
  s += ")";
  if (lower(core) != lower(forced)) s += "; this OpenBLAS has no " + std::string(forced) + " kernels";
  return s;
}

std::string blas_core_shortfall() {
  if (std::string_view(blas_api_name()) != "openblas") return "";
  const std::string best = best_blas_core(this_cpu_features());
  const int have = blas_core_level(blas_core()), can = blas_core_level(best);
  if (have >= can) return "";
  static const char* const isa[] = {"SSE", "AVX", "AVX2", "AVX-512"};
  const char* forced = env("OPENBLAS_CORETYPE");
  const char* chosen = env(kChosenVar);
  const bool users = forced && !(chosen && lower(chosen) == lower(forced));
  const std::string how = users ? " (unset OPENBLAS_CORETYPE, or set it to " + best + ", to use them)" : "";
  return std::string("OpenBLAS runs its ") + isa[have] + " kernels, " + blas_core_origin() + ", on a CPU with " +
         isa[can] + " (" + best + "): its sgemm (the im2col convolutions, the linear layers) runs at a fraction of its speed" + how;
}

}  // namespace scalebench::cpu
