// context.cpp — run context capture (see context.h).
#include "harness/record/context.h"

#include <dlfcn.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/record/host_fingerprint.h"
#include "harness/comm/gpu_world.h"  // nccl_version: harness/comm/nccl, else harness/comm/nonccl ("")
#include "kernels/common/build_info.h"
#include "kernels/cpu/blas_core.h"
#include "kernels/cpu/blas_vendor.h"
#include "kernels/cuda/device.h"  // CUDA builds: kernels/cuda; others: kernels/nocuda (no device)
#include "kernels/cudnn/version.h"  // CUDA builds: kernels/cudnn; others: kernels/nocuda ("")

extern char** environ;

namespace scalebench::record {
namespace {

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=:,./@%") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// stdout of a shell command (stderr discarded); nullopt-like "" + ok=false when it fails.
std::string run_capture(const std::string& cmd, bool& ok) {
  ok = false;
  FILE* p = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return "";
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ok = ::pclose(p) == 0;
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// The checkout that holds this binary: the first ancestor folder of the executable with a .git.
std::string source_tree() {
  std::error_code ec;
  for (auto p = std::filesystem::path(self_executable()).parent_path(); !p.empty(); p = p.parent_path()) {
    if (std::filesystem::exists(p / ".git", ec)) return p.string();
    if (p == p.root_path()) break;
  }
  return "";
}

// The GPU software a run used, "" without a usable GPU: the kernel driver's version (from
// /proc/driver/nvidia/version), the CUDA runtime and driver API, and the cuDNN and NCCL libraries
// this process loaded (each "" in a build without it). A driver or library update shows up in
// compare's context diff before any verdict.
std::string gpu_stack() {
  std::string out = cuda::runtime_description();
  if (out.empty()) return out;
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(in, line)) {
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the
    // first word of digits and dots after "Kernel Module".
    const auto k = line.find("Kernel Module");
    std::istringstream words(k == std::string::npos ? "" : line.substr(k));
    std::string v, w;
    while (v.empty() && words >> w)
      if (w.find('.') != std::string::npos && w.find_first_not_of("0123456789.") == std::string::npos) v = w;
    if (!v.empty()) out = "driver " + v + ", " + out;
  }
  if (const std::string v = cudnn::loaded_version(); !v.empty()) out += ", cuDNN " + v;
  if (const std::string v = comm::nccl_version(); !v.empty()) out += ", NCCL " + v;
  return out;
}

std::string mpi_library_version() {
  using Fn = int (*)(char*, int*);
  auto* fn = reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, "MPI_Get_library_version"));
  if (!fn) return "not linked";
  std::string buf(8192, '\0');  // MPI_MAX_LIBRARY_VERSION_STRING is at most 8192 in MPICH, 256 in Open MPI
  int len = 0;
  if (fn(buf.data(), &len) != 0) return "unknown";
  buf.resize(std::size_t(std::clamp(len, 0, 8191)));
  return trim(buf);
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

const char* build_type() {
#if defined(__OPTIMIZE__) && defined(NDEBUG)
  return "Release (optimized, NDEBUG)";
#elif defined(__OPTIMIZE__)
  return "optimized with assertions";
#else
  return "Debug (not optimized)";
#endif
}

std::string environment() {
  static const char* prefixes[] = {"SLURM_", "NCCL_", "OMPI_COMM_WORLD_", "PMI_", "OMP_NUM_THREADS=",
                                   "OPENBLAS_NUM_THREADS=", "OPENBLAS_CORETYPE=", "OMP_WAIT_POLICY=", "GOMP_SPINCOUNT=", "OPENBLAS_THREAD_TIMEOUT=", "CUDA_VISIBLE_DEVICES="};
  std::vector<std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    for (const char* p : prefixes)
      if (kv.rfind(p, 0) == 0) {
        vars.push_back(kv);
        break;
      }
  }
  std::sort(vars.begin(), vars.end());
  std::string s;
  for (const auto& v : vars) s += v + "\n";
  return s;
}

int env_int(std::initializer_list<const char*> names, int fallback) {
  for (const char* n : names)
    if (const char* v = std::getenv(n); v && *v) return std::atoi(v);
  return fallback;
}

}  // namespace

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("scalebench") : p.string();
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

// Not SLURM_NTASKS: a whole batch job carries it, so a direct child of a sweep running inside an
// allocation would take the job's task count for its own world size.
// Under a Slurm step that scalebench generated (SCALEBENCH_LAUNCHER=srun), srun's task count is the
// world; elsewhere SLURM_NTASKS describes the allocation, not this launch, and is not used.
// SLURM_STEP_NUM_TASKS is set in the tasks of an srun step only (a batch script has none): an srun
// that scalebench did not write (`srun --mpi=pmix` by hand, ReFrame's launcher) starts its ranks
// with no OMPI_* or PMI_SIZE, and without it each rank recorded a world of 1 after training as 2.
int launcher_world_size() {
  const char* l = std::getenv("SCALEBENCH_LAUNCHER");
  if (l && std::string(l) == "srun") return env_int({"SLURM_NTASKS"}, 0);
  return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}, 0);
}
int launcher_rank() { return env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}, -1); }

Attrs capture_context(const std::vector<std::string>& argv) {
  Attrs a;
  a.set("scalebench_version", SCALEBENCH_VERSION);
  a.set("git_sha_build", build_git_sha());
  std::string sha = "unknown", dirty = "unknown";
  if (const std::string tree = source_tree(); !tree.empty()) {
    bool ok1 = false, ok2 = false;
    const std::string q = shell_quote(tree);
    const std::string head = trim(run_capture("git -C " + q + " rev-parse HEAD", ok1));
    const std::string status = run_capture("git -C " + q + " status --porcelain --untracked-files=no", ok2);
    if (ok1 && !head.empty()) sha = head;
    if (ok2) dirty = status.empty() ? "false" : "true";
  }
  a.set("git_sha", sha);
  a.set("git_dirty", dirty);
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  a.set("hostnames", std::string(host.data()));  // rank 0's host only (other ranks' hosts are not recorded)
  // The machine type (host_fingerprint.h: cpu_model, cpu_threads, gpu_names, ... and their hash).
  const Attrs machine = host_attrs(read_host_sources());
  for (const auto& [k, v] : machine.items()) a.set(k, v);
  a.set("gpu_stack", gpu_stack());
  a.set("compiler", compiler());
  a.set("build_type", build_type());
  unsigned maj = 0, min = 0, rel = 0;
  a.set("hdf5_version", H5get_libversion(&maj, &min, &rel) >= 0 ? fmt::format("{}.{}.{}", maj, min, rel) : "unknown");
  a.set("blas", cpu::blas_vendor_description());
  a.set("blas_core", cpu::blas_core_origin());
  a.set("mpi_version", mpi_library_version());
  std::string args;
  for (const auto& s : argv) {
    if (!args.empty()) args += ' ';
    args += shell_quote(s);
  }
  a.set("argv", args);
  a.set("environment", environment());
  a.set("launcher_world_size", launcher_world_size());
  return a;
}

}  // namespace scalebench::record
