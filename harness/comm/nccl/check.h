// check.h — NCCL_CHECK(call): a failed NCCL call becomes a scalebench::Error carrying the call,
// file:line, NCCL's error name (ncclGetErrorString), NCCL's last-error text (ncclGetLastError: the
// detail NCCL logs as a WARN, e.g. "Trying to recv to self without a matching send") and the host.
// NCCL_CHECK accepts only ncclSuccess. On a non-blocking communicator most calls may also answer
// ncclInProgress: use NCCL_CHECK_NB there, which passes ncclInProgress back to the caller (who must
// then poll ncclCommGetAsyncError, as the nccl transport does) and throws on anything else.
// GPU-only: include it from harness/comm/nccl/ sources only. Lives beside the nccl transport, not in
// kernels/common/check.h, so that check.h stays free of GPU headers (as mpi_check.h does for MPI).
#pragma once

#include <nccl.h>

#include <string>

#include "harness/comm/communicator.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

// "ncclInvalidUsage: invalid usage (run with NCCL_DEBUG=WARN for details); last NCCL error: ..."
inline std::string nccl_error_text(ncclResult_t rc) {
  const char* last = ncclGetLastError(nullptr);  // the comm argument is unused by NCCL
  std::string s = ncclGetErrorString(rc);
  if (last != nullptr && *last != '\0') s += fmt::format("; last NCCL error: {}", last);
  return s;
}

[[noreturn]] inline void nccl_fail(ncclResult_t rc, const char* call, const char* file, int line) {
  fail_at(file, line, fmt::format("{} failed: {} (code {}, on {})", call, nccl_error_text(rc), static_cast<int>(rc),
                                  hostname()));
}

}  // namespace scalebench::comm

#define NCCL_CHECK(call)                                                         \
  do {                                                                           \
    const ncclResult_t sb_nccl_rc_ = (call);                                     \
    if (sb_nccl_rc_ != ncclSuccess)                                              \
      ::scalebench::comm::nccl_fail(sb_nccl_rc_, #call, __FILE__, __LINE__);     \
  } while (0)

// Evaluates to the call's result (ncclSuccess or ncclInProgress); throws on any other result.
#define NCCL_CHECK_NB(call)                                                                     \
  ([&]() -> ncclResult_t {                                                                      \
    const ncclResult_t sb_nccl_rc_ = (call);                                                    \
    if (sb_nccl_rc_ != ncclSuccess && sb_nccl_rc_ != ncclInProgress)                            \
      ::scalebench::comm::nccl_fail(sb_nccl_rc_, #call, __FILE__, __LINE__);                    \
    return sb_nccl_rc_;                                                                         \
  }())
