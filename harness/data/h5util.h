// h5util.h — small HDF5 C API helpers shared by the dataset reader and writer (private to
// harness/data): an owning handle that closes itself, error-stack silencing, and typed attribute
// get/put. It does not know the dataset schema; dataset.cpp and particle_writer.cpp do.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "kernels/common/write_file.h"

namespace scalebench::data::detail {

// Owns one HDF5 identifier and closes it with the matching H5?close on destruction.
class H5Id {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Id() = default;
  H5Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~H5Id() { reset(); }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  H5Id(H5Id&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = H5I_INVALID_HID; }
  H5Id& operator=(H5Id&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      closer_ = o.closer_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  void reset() {
    if (id_ >= 0 && closer_) closer_(id_);
    id_ = H5I_INVALID_HID;
  }
  // Gives up ownership (the caller closes it, e.g. to check H5Fclose's result).
  hid_t release() {
    const hid_t id = id_;
    id_ = H5I_INVALID_HID;
    return id;
  }
  bool valid() const { return id_ >= 0; }
  hid_t get() const { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

inline H5Id file_id(hid_t id) { return {id, H5Fclose}; }
inline H5Id dset_id(hid_t id) { return {id, H5Dclose}; }
inline H5Id space_id(hid_t id) { return {id, H5Sclose}; }
inline H5Id type_id(hid_t id) { return {id, H5Tclose}; }
inline H5Id plist_id(hid_t id) { return {id, H5Pclose}; }
inline H5Id attr_id(hid_t id) { return {id, H5Aclose}; }

// HDF5 prints its error stack to stderr by default; we report our own one-line errors instead.
// With a thread-safe HDF5 the setting is per thread, so every thread that calls HDF5 calls this
// (it is cheap after the first call on a thread).
void silence_hdf5_errors();

// True when the file at `path` carries the HDF5 superblock signature at offset 0, 512, 1024, ...
// (checked by hand so "not an HDF5 file" can be told apart from "HDF5 but corrupt").
bool has_hdf5_signature(const std::string& path);

// --- writing: errors named, and no file left for HDF5's exit handler to crash on ---------------
// (h5_write.cpp) HDF5 1.10 frees a file whose close failed (a full disk: its metadata cannot be
// flushed) but keeps its id, and the library's exit handler then closes it again and crashes
// (exit 139 after the right first error). So a written file is flushed before it is closed — a
// failed flush leaves it open and intact — and a file being thrown away is first truncated to
// nothing through HDF5's own descriptor, which frees its blocks so that what closing still writes
// has room.

// What the last failed HDF5 call met, from the error stack's system errno (or errno): "disk full
// (No space left on device)" for ENOSPC, "disk quota exceeded (...)" for EDQUOT, the system's text
// for another errno, "" when none was recorded.
std::string io_error_text();
using ::scalebench::errno_text;  // the same for one errno value (kernels/common/write_file.h)

// Writes everything HDF5 holds for the file (open datasets' chunks, metadata). "" or why not.
std::string flush_file(hid_t file);

// Flushes, then closes the file (and `objects` first, e.g. its datasets). "" on success; on a
// failed flush the file is discarded as below and the reason returned.
std::string finish_file(H5Id& file, std::initializer_list<H5Id*> objects = {});

// Throws the file away safely: truncates it, closes `objects`, then the file; errors are ignored
// (the caller removes the file and reports the first error).
void discard_file(H5Id& file, std::initializer_list<H5Id*> objects = {});

// At most this many declared bytes per stored byte (deflate, the filter datagen and h5py use,
// compresses at most about 1032:1). More means a corrupt or crafted file.
inline constexpr std::uint64_t kMaxStoredRatio = 2048;

// Why the stored bytes of dataset `dset` cannot hold what its extent declares, or "" when they can:
// a chunk of the extent missing (a sparse file), contiguous data past the end of the file, storage
// claimed beyond the file's size, or more than kMaxStoredRatio declared bytes per stored byte.
// Reads the chunk index, no data: cheap even for an extent of 10^9 samples in a 6 KB file.
std::string storage_problem(hid_t dset, std::uint64_t file_size);

// Attribute readers: nullopt when the attribute does not exist; throw (via the caller's message)
// is left to the caller. A string attribute may be fixed- or variable-length. An integer attribute
// must be of integer class; `ok` is set false when it exists but is not readable as the type.
std::optional<std::string> read_string_attr(hid_t obj, const char* name, bool& ok);
std::optional<std::int64_t> read_int_attr(hid_t obj, const char* name, bool& ok);

// Attribute writers (variable-length UTF-8 strings, so h5py reads them as str). Return false on
// failure.
bool write_string_attr(hid_t obj, const char* name, const std::string& value);
bool write_int_attr(hid_t obj, const char* name, std::int64_t value);
bool write_uint_attr(hid_t obj, const char* name, std::uint64_t value);

}  // namespace scalebench::data::detail
