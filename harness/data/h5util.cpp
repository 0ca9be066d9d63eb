// h5util.cpp — HDF5 helpers for the data room (see h5util.h). No schema knowledge here.
#include "harness/data/h5util.h"

#include "harness/data/h5_raw.h"

#include <array>
#include <cstring>
#include <fstream>
#include <vector>

namespace scalebench::data::detail {

// HDF5 1.10 frees a file whose close failed but keeps its id, and its exit handler (H5_term_library)
// then closes it again and crashes: exit 139 after the right error, on a disk too full to take even
// the file's metadata (h5util.h: discard_file frees what it can first). Every file here is closed
// by its owner, so the handler has nothing else to do: it is turned off before the library starts
// (H5dont_atexit only counts then; this runs before main, in every binary that links this file,
// i.e. every one that reaches HDF5 through harness/data or harness/record).
[[maybe_unused]] const bool kNoHdf5ExitHandler = H5dont_atexit() >= 0;

void silence_hdf5_errors() {
  thread_local bool done = false;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    done = true;
  }
}

bool has_hdf5_signature(const std::string& path) {
  static constexpr std::array<unsigned char, 8> kSig = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  // The superblock sits at 0 or at a power of two ≥ 512 (a user block precedes it).
  for (std::streamoff off = 0; off + 8 <= size; off = (off == 0 ? 512 : off * 2)) {
    std::array<unsigned char, 8> buf{};
    in.seekg(off);
    if (!in.read(reinterpret_cast<char*>(buf.data()), buf.size())) return false;
    if (buf == kSig) return true;
  }
  return false;
}

std::optional<std::string> read_string_attr(hid_t obj, const char* name, bool& ok) {
  auto bad = [&ok] {
    ok = false;
    return std::optional<std::string>{};
  };
  ok = true;
  const htri_t exists = H5Aexists(obj, name);
  if (exists <= 0) {
    ok = exists == 0;
    return std::nullopt;
  }
  H5Id attr = attr_id(H5Aopen(obj, name, H5P_DEFAULT));
  if (!attr.valid()) return bad();
  H5Id ftype = type_id(H5Aget_type(attr.get()));
  if (!ftype.valid() || H5Tget_class(ftype.get()) != H5T_STRING) return bad();
  H5Id space = space_id(H5Aget_space(attr.get()));
  if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1) return bad();

  const htri_t is_var = H5Tis_variable_str(ftype.get());
  if (is_var < 0) return bad();
  if (is_var > 0 && read_only_file(obj)) {
    // By hand, never through H5HG_read (h5_raw.h): a mutated heap made it copy past its buffers.
    VlenStrings heap(attr.get());
    std::vector<unsigned char> raw(heap.id_size());
    if (!heap.valid() || H5Aread(attr.get(), heap.id_type(), raw.data()) < 0) return bad();
    auto value = heap.get(raw.data());
    return value ? value : bad();
  }
  if (is_var > 0) {  // a file this process writes (its heap may not be on disk yet)
    H5Id mtype = type_id(H5Tcopy(H5T_C_S1));
    // The memory type must carry the file's character set: HDF5 does not convert ASCII↔UTF-8.
    if (!mtype.valid() || H5Tset_size(mtype.get(), H5T_VARIABLE) < 0 ||
        H5Tset_cset(mtype.get(), H5Tget_cset(ftype.get())) < 0)
      return bad();
    char* value = nullptr;
    if (H5Aread(attr.get(), mtype.get(), &value) < 0) return bad();
    std::string out = value ? value : "";
    H5free_memory(value);
    return out;
  }
  const size_t n = H5Tget_size(ftype.get());
  if (n == 0) return bad();
  H5Id mtype = type_id(H5Tcopy(H5T_C_S1));
  if (!mtype.valid() || H5Tset_size(mtype.get(), n + 1) < 0 ||
      H5Tset_strpad(mtype.get(), H5T_STR_NULLTERM) < 0 ||
      H5Tset_cset(mtype.get(), H5Tget_cset(ftype.get())) < 0)
    return bad();
  std::vector<char> buf(n + 1, '\0');
  if (H5Aread(attr.get(), mtype.get(), buf.data()) < 0) return bad();
  return std::string(buf.data(), strnlen(buf.data(), n));
}

std::optional<std::int64_t> read_int_attr(hid_t obj, const char* name, bool& ok) {
  auto bad = [&ok] {
    ok = false;
    return std::optional<std::int64_t>{};
  };
  ok = true;
  const htri_t exists = H5Aexists(obj, name);
  if (exists <= 0) {
    ok = exists == 0;
    return std::nullopt;
  }
  H5Id attr = attr_id(H5Aopen(obj, name, H5P_DEFAULT));
  if (!attr.valid()) return bad();
  H5Id ftype = type_id(H5Aget_type(attr.get()));
  if (!ftype.valid() || H5Tget_class(ftype.get()) != H5T_INTEGER) return bad();
  H5Id space = space_id(H5Aget_space(attr.get()));
  if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1) return bad();
  std::int64_t v = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0) return bad();
  return v;
}

namespace {
bool write_scalar_attr(hid_t obj, const char* name, hid_t type, const void* value) {
  H5Id space = space_id(H5Screate(H5S_SCALAR));
  if (!space.valid()) return false;
  H5Id attr = attr_id(H5Acreate2(obj, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) return false;
  return H5Awrite(attr.get(), type, value) >= 0;
}
}  // namespace

bool write_string_attr(hid_t obj, const char* name, const std::string& value) {
  H5Id type = type_id(H5Tcopy(H5T_C_S1));
  if (!type.valid() || H5Tset_size(type.get(), H5T_VARIABLE) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0)
    return false;
  const char* p = value.c_str();
  return write_scalar_attr(obj, name, type.get(), &p);
}

bool write_int_attr(hid_t obj, const char* name, std::int64_t value) {
  return write_scalar_attr(obj, name, H5T_NATIVE_INT64, &value);
}

bool write_uint_attr(hid_t obj, const char* name, std::uint64_t value) {
  return write_scalar_attr(obj, name, H5T_NATIVE_UINT64, &value);
}

}  // namespace scalebench::data::detail
