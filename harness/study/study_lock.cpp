// study_lock.cpp — the study-folder lock (see study_lock.h).
#include "harness/study/study_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "harness/record/context.h"
#include "harness/record/liveness.h"
#include "kernels/common/check.h"

namespace scalebench::study {

StudyLock::StudyLock(const std::string& output, const char* what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(output, ec);
  SB_REQUIRE(!ec, "{}: cannot create the folder: {}", output, ec.message());
  const std::string path = (fs::path(output) / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  SB_REQUIRE(fd_ >= 0, "{}: cannot open the study lock: {}", path, std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder(256, '\0');
    const ssize_t n = ::pread(fd_, holder.data(), holder.size() - 1, 0);
    holder.resize(n > 0 ? std::size_t(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
    ::close(fd_);
    SB_REQUIRE(err != EWOULDBLOCK, "{}: another {} is running into this study folder ({}); wait for it to end, "
               "or write elsewhere (sweep --output DIR, ab -o DIR)", output, what, holder.empty() ? "holder unknown" : holder);
    SB_REQUIRE(false, "{}: cannot lock: {}", path, std::strerror(err));
  }
  const record::RunOwner me = record::this_process(0);
  const std::string who = fmt::format("pid {} on host {}, since {}\n", me.pid, me.host, record::utc_now());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, who.data(), who.size(), 0) < 0) {
    // Only the holder's description is lost; the lock itself holds.
  }
}

StudyLock::~StudyLock() { ::close(fd_); }

}  // namespace scalebench::study
