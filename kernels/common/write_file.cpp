// write_file.cpp — write_file_atomically and its second half (see write_file.h).
#include "kernels/common/write_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "kernels/common/check.h"

namespace scalebench {
namespace {

[[noreturn]] void fail(const AtomicWrite& how, const std::string& tmp, const std::string& what) {
  std::remove(tmp.c_str());  // never leave a partial file behind
  fail_input(how.who.empty() ? what : how.who + ": " + what);
}

// fsync a folder by path; best effort: some filesystems refuse it, and the rename is done already.
void fsync_dir(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Writes the whole span to fd; 0 or the errno of the failure.
int write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w > 0) p += w, n -= std::size_t(w);
    else if (w == 0) return ENOSPC;  // a regular file takes no bytes only when there is no room
    else if (errno != EINTR) return errno;
  }
  return 0;
}

// fsync (when durable) and rename tmp over path, then fsync the folder.
void commit(const std::string& tmp, const std::string& path, const AtomicWrite& how) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    fail(how, tmp, fmt::format("cannot rename {} to {}: {}", tmp, path, errno_text(errno)));
  if (how.durable) fsync_dir(path);
}

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof(buf) - 1) == 0 ? std::string(buf) : std::string("unknown");
}

}  // namespace

std::string errno_text(int err) {
  if (err == ENOSPC) return "disk full (No space left on device)";
  if (err == EDQUOT) return fmt::format("disk quota exceeded ({})", std::strerror(err));
  return err ? std::strerror(err) : "";
}

std::string temp_path_for(const std::string& path) { return path + ".tmp"; }

void write_file_atomically(const std::string& path, std::string_view bytes, const AtomicWrite& how) {
  const std::string tmp = how.per_writer_temp ? fmt::format("{}.tmp.{}.{}", path, host_name(), ::getpid())
                                              : temp_path_for(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);  // the umask decides
  if (fd < 0) fail(how, tmp, fmt::format("cannot create {}: {}", tmp, errno_text(errno)));
  const std::size_t half = how.stage ? bytes.size() / 2 : bytes.size();
  int err = write_all(fd, bytes.data(), half);
  if (err == 0 && how.stage) {
    how.stage("half-written");
    err = write_all(fd, bytes.data() + half, bytes.size() - half);
  }
  // Without the fsync a power loss could leave the rename done and the bytes not.
  if (err == 0 && how.durable && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS reports a failed write-back here
  if (err != 0) fail(how, tmp, fmt::format("cannot write {} ({} bytes): {}", tmp, bytes.size(), errno_text(err)));
  if (how.stage) how.stage("before-rename");
  commit(tmp, path, how);
}

void commit_temp_file(const std::string& path, const AtomicWrite& how) {
  const std::string tmp = temp_path_for(path);
  if (how.durable) {
    const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    int err = fd < 0 ? errno : ::fsync(fd) != 0 ? errno : 0;
    if (fd >= 0) ::close(fd);
    if (err != 0) fail(how, tmp, fmt::format("cannot sync {}: {}", tmp, errno_text(err)));
  }
  commit(tmp, path, how);
}

}  // namespace scalebench
