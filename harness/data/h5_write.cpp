// h5_write.cpp — finishing or discarding a file this process writes, and naming why a write failed
// (see h5util.h for why HDF5 must never be left holding a file whose close failed).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "harness/data/h5util.h"

namespace scalebench::data::detail {
namespace {

// HDF5's POSIX drivers record "..., errno = 28, error message = '...', ..." on the error stack.
herr_t find_errno(unsigned, const H5E_error2_t* e, void* out) {
  const char* at = e->desc ? std::strstr(e->desc, "errno = ") : nullptr;
  if (!at) return 0;
  *static_cast<int*>(out) = std::atoi(at + 8);
  return 1;  // the innermost one is enough: stop walking
}

}  // namespace

std::string io_error_text() {
  const int saved = errno;
  int err = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_errno, &err);
  return errno_text(err ? err : saved);
}

std::string flush_file(hid_t file) {
  errno = 0;
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0) return "";
  const std::string why = io_error_text();
  return why.empty() ? "HDF5 could not flush the file" : why;
}

// Truncates the file to nothing through HDF5's own descriptor (default driver only), freeing its
// blocks; HDF5 still holds its metadata and writes it at its addresses on close.
void free_space(const H5Id& file) {
  H5Id fapl = plist_id(H5Fget_access_plist(file.get()));
  int* fd = nullptr;
  if (fapl.valid() && H5Pget_driver(fapl.get()) == H5FD_SEC2 &&
      H5Fget_vfd_handle(file.get(), fapl.get(), reinterpret_cast<void**>(&fd)) >= 0 && fd &&
      ::ftruncate(*fd, 0) != 0) {
    // nothing freed: closing may still fail to flush, and there is nothing more to try
  }
}

void discard_file(H5Id& file, std::initializer_list<H5Id*> objects) {
  if (!file.valid()) {
    for (H5Id* o : objects) o->reset();
    return;
  }
  free_space(file);
  for (H5Id* o : objects) o->reset();  // a dataset's close writes its cached chunks: room used again
  free_space(file);
  // The metadata into the freed room, so that closing has nothing left to write. After an earlier
  // failed flush this one reports an error from its preparation, but it writes the entries.
  H5Fflush(file.get(), H5F_SCOPE_GLOBAL);
  file.reset();
}

std::string finish_file(H5Id& file, std::initializer_list<H5Id*> objects) {
  const std::string why = flush_file(file.get());
  if (!why.empty()) {
    discard_file(file, objects);
    return why;
  }
  for (H5Id* o : objects) o->reset();
  errno = 0;
  if (H5Fclose(file.release()) >= 0) return "";
  const std::string late = io_error_text();
  return late.empty() ? "HDF5 could not close the file" : late;
}

}  // namespace scalebench::data::detail
