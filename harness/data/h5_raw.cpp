// h5_raw.cpp — a file's own bytes as HDF5 addresses them (see h5_raw.h).
#include "harness/data/h5_raw.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace scalebench::data::detail {

std::uint64_t le(const unsigned char* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

RawFile::RawFile(hid_t obj) {
  H5Id file = file_id(H5Iget_file_id(obj));
  if (!file.valid()) return;
  H5Id fcpl = plist_id(H5Fget_create_plist(file.get()));
  hsize_t userblock = 0;
  if (!fcpl.valid() || H5Pget_sizes(fcpl.get(), &addr_size_, &length_size_) < 0 ||
      H5Pget_userblock(fcpl.get(), &userblock) < 0 || addr_size_ < 2 || addr_size_ > 8 || length_size_ < 2 ||
      length_size_ > 8)
    return;
  base_ = userblock;
  H5Id fapl = plist_id(H5Fget_access_plist(file.get()));
  int* handle = nullptr;
  int fd = -1;
  if (fapl.valid() && H5Pget_driver(fapl.get()) == H5FD_SEC2 &&
      H5Fget_vfd_handle(file.get(), fapl.get(), reinterpret_cast<void**>(&handle)) >= 0 && handle)
    fd = ::fcntl(*handle, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    const ssize_t n = H5Fget_name(file.get(), nullptr, 0);
    std::string name(n > 0 ? std::size_t(n) : 0, '\0');
    if (n > 0 && H5Fget_name(file.get(), name.data(), name.size() + 1) == n)
      fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  }
  struct stat st {};
  if (fd >= 0 && ::fstat(fd, &st) == 0) {
    fd_ = fd;
    size_ = std::uint64_t(st.st_size);
  } else if (fd >= 0) {
    ::close(fd);
  }
}

RawFile::~RawFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawFile::read(void* buf, std::size_t n, std::uint64_t addr) const {
  if (fd_ < 0 || addr > size() || n > size() - addr) return false;
  auto* p = static_cast<unsigned char*>(buf);
  std::uint64_t off = base_ + addr;
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(off));
    if (got <= 0) return false;
    p += got, off += std::uint64_t(got), n -= std::size_t(got);
  }
  return true;
}

}  // namespace scalebench::data::detail
