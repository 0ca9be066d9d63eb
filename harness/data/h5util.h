// h5util.h — small HDF5 C API helpers shared by the dataset reader and writer (private to
// harness/data): an owning handle that closes itself, error-stack silencing, and typed attribute
// get/put. It does not know the dataset schema; dataset.cpp and particle_writer.cpp do.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>

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
