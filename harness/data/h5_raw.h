// h5_raw.h — reading an HDF5 file's own bytes where libhdf5 1.10 trusts them too much: variable-length
// strings (h5_vlen.cpp) and object headers (h5_header.cpp), checked before libhdf5 would use them.
// Only for files opened read-only (read_only_file): a file being written may hold metadata that is
// not on disk yet. Private to harness/data and harness/record/h5io.
//
// Variable-length strings are read without HDF5's global-heap reader. HDF5 1.10's H5HG_read
// trusts the object sizes and indices stored in a global heap collection, and the length stored with
// each string: a file with one of those bytes changed makes it copy past its buffers (6 of 300
// mutated dataset files crashed there, in read_string_attr). Here a string's heap ID (length,
// collection address, object index) is read raw, through a registered conversion that leaves the
// stored bytes as they are, and the string is taken from the collection by hand after every offset
// and size has been checked against the collection and the file.
//
// Object headers (h5_header.cpp): a chunked dataset's layout message with a chunk dimension of 0
// makes H5Dopen2 divide by it (SIGFPE in H5D__chunk_set_info), and an attribute message whose value
// reaches past its end makes H5Aexists copy past the header (ASan), both found by tests/fuzz; the
// messages are found and read by hand first.
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

// The bytes of the file an HDF5 object lives in, addressed as HDF5 addresses them (relative to the
// base address, after any user block), with the file's address and length sizes.
class RawFile {
 public:
  // By HDF5's own descriptor for the default driver (so a file renamed over this one meanwhile is
  // not read instead), otherwise by name. valid() is false when neither works.
  explicit RawFile(hid_t obj);
  ~RawFile();
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;

  bool valid() const { return fd_ >= 0; }
  std::size_t addr_size() const { return addr_size_; }
  std::size_t length_size() const { return length_size_; }
  std::uint64_t size() const { return size_ > base_ ? size_ - base_ : 0; }  // addressable bytes
  // n bytes at HDF5 address addr; false when they are not all inside the file.
  bool read(void* buf, std::size_t n, std::uint64_t addr) const;

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0, base_ = 0;
  std::size_t addr_size_ = 8, length_size_ = 8;
};

// Little-endian unsigned integer of n <= 8 bytes.
std::uint64_t le(const unsigned char* p, std::size_t n);

// Why libhdf5 must not read the object header of `name` under `loc` ("." for loc itself): a chunk
// dimension of 0 or a truncated layout message, an attribute message whose name, datatype,
// dataspace or value reaches past its end. "" when none, or when the header is not in a form read
// here (then HDF5 reads it as usual). Attributes kept in dense storage (a fractal heap) are not seen.
std::string object_header_problem(hid_t loc, const char* name);

class VlenStrings {
 public:
  // For any object of a file (the file, a group, a dataset, an attribute). When the file's layout
  // (address and length sizes, user block) or bytes cannot be read, valid() is false.
  explicit VlenStrings(hid_t obj);
  VlenStrings(const VlenStrings&) = delete;
  VlenStrings& operator=(const VlenStrings&) = delete;

  bool valid() const { return file_.valid() && id_type_.valid(); }
  // An opaque memory type exactly as wide as one stored heap ID: H5Aread/H5Dread a variable-length
  // string (or a compound member of one) into it to get the raw IDs instead of the strings.
  hid_t id_type() const { return id_type_.get(); }
  std::size_t id_size() const { return 4 + file_.addr_size() + 4; }
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

  RawFile file_;
  H5Id id_type_;
  std::map<std::uint64_t, Collection> cache_;
};

}  // namespace scalebench::data::detail
