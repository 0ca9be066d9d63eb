// h5_vlen.h — variable-length strings read without HDF5's global-heap reader. HDF5 1.10's H5HG_read
// trusts the object sizes and indices stored in a global heap collection, and the length stored with
// each string: a file with one of those bytes changed makes it copy past its buffers (6 of 300
// mutated dataset files crashed there, in read_string_attr). Here a string's heap ID (length,
// collection address, object index) is read raw, through a registered conversion that leaves the
// stored bytes as they are, and the string is taken from the collection by hand after every offset
// and size has been checked against the collection and the file.
// Only for files opened read-only (read_only_file): a file being written may hold heap objects that
// are not on disk yet. Private to harness/data and harness/record/h5io.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/data/h5util.h"

namespace scalebench::data::detail {

// True when obj's file is open read-only.
bool read_only_file(hid_t obj);

class VlenStrings {
 public:
  // For any object of a file (the file, a group, a dataset, an attribute). When the file's layout
  // (address and length sizes, user block) or bytes cannot be read, valid() is false.
  explicit VlenStrings(hid_t obj);
  ~VlenStrings();
  VlenStrings(const VlenStrings&) = delete;
  VlenStrings& operator=(const VlenStrings&) = delete;

  bool valid() const { return fd_ >= 0 && id_type_.valid(); }
  // An opaque memory type exactly as wide as one stored heap ID: H5Aread/H5Dread a variable-length
  // string (or a compound member of one) into it to get the raw IDs instead of the strings.
  hid_t id_type() const { return id_type_.get(); }
  std::size_t id_size() const { return 4 + addr_size_ + 4; }
  // The string a raw heap ID names (up to its first NUL); nullopt when the ID or its collection is
  // not valid.
  std::optional<std::string> get(const unsigned char* raw_id);

 private:
  struct Collection {
    bool ok = false;
    std::vector<unsigned char> bytes;
    std::map<std::uint32_t, std::pair<std::size_t, std::uint64_t>> objects;  // index → (offset, size)
  };
  const Collection& load(std::uint64_t addr);

  int fd_ = -1;
  std::uint64_t file_size_ = 0, base_ = 0;
  std::size_t addr_size_ = 8, length_size_ = 8;
  H5Id id_type_;
  std::map<std::uint64_t, Collection> cache_;
};

}  // namespace scalebench::data::detail
