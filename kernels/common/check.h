// check.h — the one error type of scalebench and the macros that raise it.
// Every failure that reaches a user goes through scalebench::Error so the CLI can print one clear
// line and exit non-zero. The library checks live with the code that needs them, so that this header
// pulls in no GPU or MPI headers: CUDA_CHECK/CUBLAS_CHECK in kernels/cuda/cuda_check.h, CUDNN_CHECK in
// kernels/cudnn/cudnn_check.h, NCCL_CHECK and MPI_CHECK in harness/comm/{nccl,mpi}_check.h.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace scalebench {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error already printed for the whole job: a collective verdict every rank reaches alike
// (ranks that disagree on the configuration, Slurm and MPI that disagree), printed once by rank 0
// before any rank could exit (harness/comm/consistency.h, fail_everywhere). scalebench's main
// prints nothing more for it, so mpirun shows the line once instead of once per rank.
class ReportedError : public Error {
 public:
  using Error::Error;
};

// Throws Error("file:line: message"). Used by the macros below; callable directly for errors
// that are not a failed condition (e.g. an unknown enum value).
[[noreturn]] inline void fail_at(const char* file, int line, const std::string& msg) {
  throw Error(fmt::format("{}:{}: {}", file, line, msg));
}

// Input errors meant for users: no file:line, the message alone must name the bad field/value.
[[noreturn]] inline void fail_input(const std::string& msg) { throw Error(msg); }

// The one line a failure is reported and recorded with: e.what(), except for an allocation that
// failed, whose what() ("std::bad_alloc") says nothing a user can act on.
inline std::string failure_text(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of memory: an allocation failed (the model, batch or data set needs more memory than this process "
           "may use: try a smaller --batch or model, or raise the job's memory limit)";
  return e.what();
}

}  // namespace scalebench

// SB_CHECK(cond, "fmt {}", args...) — internal invariant; message carries file:line.
#define SB_CHECK(cond, ...)                                                         \
  do {                                                                              \
    if (!(cond)) ::scalebench::fail_at(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
  } while (0)

// SB_REQUIRE(cond, "fmt {}", args...) — user-facing validation; the message is the whole line.
#define SB_REQUIRE(cond, ...)                                          \
  do {                                                                 \
    if (!(cond)) ::scalebench::fail_input(::fmt::format(__VA_ARGS__)); \
  } while (0)
