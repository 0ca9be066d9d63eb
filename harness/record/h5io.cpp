// h5io.cpp — Attrs/Table ↔ HDF5 and the atomic whole-file write (see h5io.h).
#include "harness/record/h5io.h"

#include <sys/stat.h>

#include <cstring>

#include "harness/data/h5_raw.h"
#include "kernels/common/check.h"
#include "kernels/common/write_file.h"

namespace scalebench::record::h5 {
namespace {

using data::detail::attr_id;
using data::detail::dset_id;
using data::detail::space_id;
using data::detail::type_id;

[[noreturn]] void hdf5_failed(const std::string& where, const char* what) {
  fail_input(fmt::format("{}: HDF5 could not {}", where, what));
}

H5Id vlen_string_type(H5T_cset_t cset) {
  H5Id t = type_id(H5Tcopy(H5T_C_S1));
  if (!t.valid() || H5Tset_size(t.get(), H5T_VARIABLE) < 0 || H5Tset_cset(t.get(), cset) < 0) return {};
  return t;
}

bool write_double_attr(hid_t obj, const char* name, double value) {
  H5Id space = space_id(H5Screate(H5S_SCALAR));
  if (!space.valid()) return false;
  H5Id attr = attr_id(H5Acreate2(obj, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  return attr.valid() && H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value) >= 0;
}

struct AttrScan {
  Attrs out;
  bool failed = false;
};

herr_t scan_attr(hid_t obj, const char* name, const H5A_info_t*, void* op) {
  auto& scan = *static_cast<AttrScan*>(op);
  H5Id attr = attr_id(H5Aopen(obj, name, H5P_DEFAULT));
  if (!attr.valid()) return scan.failed = true, -1;
  H5Id type = type_id(H5Aget_type(attr.get()));
  H5Id space = space_id(H5Aget_space(attr.get()));
  if (!type.valid() || !space.valid()) return scan.failed = true, -1;
  if (H5Sget_simple_extent_npoints(space.get()) != 1) return 0;  // arrays: not ours, skip
  bool ok = true;
  switch (H5Tget_class(type.get())) {
    case H5T_INTEGER:
      if (auto v = data::detail::read_int_attr(obj, name, ok)) scan.out.set(name, AttrValue(*v));
      break;
    case H5T_FLOAT: {
      double v = 0;
      ok = H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v) >= 0;
      if (ok) scan.out.set(name, AttrValue(v));
      break;
    }
    case H5T_STRING:
      if (auto v = data::detail::read_string_attr(obj, name, ok)) scan.out.set(name, AttrValue(*v));
      break;
    default: break;  // unknown kinds are ignored, as the schema promises
  }
  if (!ok) return scan.failed = true, -1;
  return 0;
}

// A compound memory type holding just one member `name` of type `member` (size bytes): HDF5 then
// reads that field of every row, converting from the file's type.
H5Id one_member_type(const char* name, hid_t member, std::size_t size) {
  H5Id t = type_id(H5Tcreate(H5T_COMPOUND, size));
  if (!t.valid() || H5Tinsert(t.get(), name, 0, member) < 0) return {};
  return t;
}

}  // namespace

namespace {

// The file built in memory (the core driver, no backing store), returned as bytes: HDF5 itself
// never writes to disk here, so a full disk cannot fail inside it (HDF5 1.10's exit handler crashes
// on a file whose close failed); the caller writes the bytes with write_file_atomically (plain
// POSIX calls, whose errno says what went wrong).
std::vector<unsigned char> build_in_memory(const std::string& tmp, const std::function<void(hid_t file)>& fill) {
  H5Id fapl = data::detail::plist_id(H5Pcreate(H5P_FILE_ACCESS));
  if (!fapl.valid() || H5Pset_fapl_core(fapl.get(), std::size_t{1} << 20, false) < 0)
    hdf5_failed(tmp, "set up an in-memory file");
  H5Id file = data::detail::file_id(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
  if (!file.valid()) hdf5_failed(tmp, "create the file in memory");
  fill(file.get());
  if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) hdf5_failed(tmp, "flush the in-memory file");
  const ssize_t size = H5Fget_file_image(file.get(), nullptr, 0);
  std::vector<unsigned char> image(size > 0 ? std::size_t(size) : 0);
  if (size <= 0 || H5Fget_file_image(file.get(), image.data(), image.size()) != size)
    hdf5_failed(tmp, "assemble the file");
  if (H5Fclose(file.release()) < 0) hdf5_failed(tmp, "close the in-memory file");
  return image;
}

}  // namespace

std::vector<unsigned char> build_file_image(const std::string& path, const std::function<void(hid_t file)>& fill) {
  data::detail::silence_hdf5_errors();
  return build_in_memory(temp_path_for(path), fill);
}

void write_image_atomically(const std::string& path, const std::vector<unsigned char>& image, bool durable) {
  scalebench::write_file_atomically(path, {reinterpret_cast<const char*>(image.data()), image.size()}, {.durable = durable});
}

void write_file_atomically(const std::string& path, const std::function<void(hid_t file)>& fill) {
  write_image_atomically(path, build_file_image(path, fill));
}

H5Id open_for_read(const std::string& path) {
  data::detail::silence_hdf5_errors();
  struct stat st {};
  SB_REQUIRE(::stat(path.c_str(), &st) == 0, "{}: no such file", path);
  SB_REQUIRE(data::detail::has_hdf5_signature(path), "{}: not an HDF5 file", path);
  H5Id f = data::detail::file_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  SB_REQUIRE(f.valid(), "{}: cannot open the HDF5 file (truncated or corrupt?)", path);
  return f;
}

bool exists(hid_t loc, const char* name) { return H5Lexists(loc, name, H5P_DEFAULT) > 0; }

H5Id create_group(hid_t loc, const char* name, const std::string& where) {
  H5Id g{H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  if (!g.valid()) hdf5_failed(where, fmt::format("create group {}", name).c_str());
  return g;
}

H5Id open_group(hid_t loc, const char* name, const std::string& where) {
  if (!exists(loc, name)) return {};
  H5Id g{H5Gopen2(loc, name, H5P_DEFAULT), H5Gclose};
  if (!g.valid()) hdf5_failed(where, fmt::format("open group {}", name).c_str());
  return g;
}

void write_attrs(hid_t obj, const Attrs& attrs, const std::string& where) {
  for (const auto& [name, v] : attrs.items()) {
    bool ok = false;
    if (const auto* i = std::get_if<std::int64_t>(&v)) ok = data::detail::write_int_attr(obj, name.c_str(), *i);
    if (const auto* d = std::get_if<double>(&v)) ok = write_double_attr(obj, name.c_str(), *d);
    if (const auto* s = std::get_if<std::string>(&v)) ok = data::detail::write_string_attr(obj, name.c_str(), *s);
    if (!ok) hdf5_failed(where, fmt::format("write attribute '{}'", name).c_str());
  }
}

Attrs read_attrs(hid_t obj, const std::string& where) {
  // libhdf5 1.10 decodes attribute messages unchecked: a damaged one is read by hand first.
  if (data::detail::read_only_file(obj)) {
    const std::string why = data::detail::object_header_problem(obj, ".");
    SB_REQUIRE(why.empty(), "{}: the object {} (corrupt file)", where, why);
  }
  AttrScan scan;
  hsize_t idx = 0;
  if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, scan_attr, &scan) < 0 || scan.failed)
    hdf5_failed(where, "read its attributes");
  return std::move(scan.out);
}

void write_table(hid_t loc, const char* name, const Table& table, const std::string& where) {
  const auto& cols = table.columns();
  SB_CHECK(!cols.empty(), "{}: table {} has no columns", where, name);
  const std::size_t n = table.rows(), stride = 8 * cols.size();
  static_assert(sizeof(char*) == 8 && sizeof(double) == 8);
  H5Id ftype = type_id(H5Tcreate(H5T_COMPOUND, stride));
  H5Id mtype = type_id(H5Tcreate(H5T_COMPOUND, stride));
  H5Id str = vlen_string_type(H5T_CSET_UTF8);
  if (!ftype.valid() || !mtype.valid() || !str.valid()) hdf5_failed(where, "create the table's types");
  std::vector<unsigned char> buf(n * stride);
  for (std::size_t c = 0; c < cols.size(); ++c) {
    const Column& col = cols[c];
    SB_CHECK(col.size() == n, "{}: column {} has {} rows, expected {}", where, col.name, col.size(), n);
    const bool i64 = col.kind == Column::Kind::i64, f64 = col.kind == Column::Kind::f64;
    const hid_t ft = i64 ? H5T_STD_I64LE : f64 ? H5T_IEEE_F64LE : str.get();
    const hid_t mt = i64 ? H5T_NATIVE_INT64 : f64 ? H5T_NATIVE_DOUBLE : str.get();
    if (H5Tinsert(ftype.get(), col.name.c_str(), 8 * c, ft) < 0 || H5Tinsert(mtype.get(), col.name.c_str(), 8 * c, mt) < 0)
      hdf5_failed(where, fmt::format("add column '{}'", col.name).c_str());
    for (std::size_t r = 0; r < n; ++r) {
      unsigned char* p = buf.data() + r * stride + 8 * c;
      if (i64) std::memcpy(p, &col.i[r], 8);
      if (f64) std::memcpy(p, &col.f[r], 8);
      if (!i64 && !f64) {
        const char* s = col.s[r].c_str();  // HDF5 copies the characters during H5Dwrite
        std::memcpy(p, &s, 8);
      }
    }
  }
  const hsize_t dims[1] = {n};
  H5Id space = space_id(H5Screate_simple(1, dims, nullptr));
  if (!space.valid()) hdf5_failed(where, "create the table's dataspace");
  H5Id dset = dset_id(H5Dcreate2(loc, name, ftype.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!dset.valid()) hdf5_failed(where, fmt::format("create table {}", name).c_str());
  if (n > 0 && H5Dwrite(dset.get(), mtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
    hdf5_failed(where, fmt::format("write table {}", name).c_str());
}

Table read_table(hid_t loc, const char* name, const std::string& where) {
  H5Id dset = dset_id(H5Dopen2(loc, name, H5P_DEFAULT));
  if (!dset.valid()) hdf5_failed(where, fmt::format("open table {}", name).c_str());
  H5Id ftype = type_id(H5Dget_type(dset.get()));
  H5Id space = space_id(H5Dget_space(dset.get()));
  if (!ftype.valid() || !space.valid()) hdf5_failed(where, fmt::format("read the type of {}", name).c_str());
  SB_REQUIRE(H5Tget_class(ftype.get()) == H5T_COMPOUND && H5Sget_simple_extent_ndims(space.get()) == 1,
             "{}: {} is not a one-dimensional compound table", where, name);
  const hssize_t npoints = H5Sget_simple_extent_npoints(space.get());
  const int members = H5Tget_nmembers(ftype.get());
  if (npoints < 0 || members < 0) hdf5_failed(where, fmt::format("read the shape of {}", name).c_str());
  const auto n = std::size_t(npoints);
  Table t;
  for (int m = 0; m < members; ++m) {
    char* raw = H5Tget_member_name(ftype.get(), unsigned(m));
    if (!raw) hdf5_failed(where, "read a column name");
    const std::string col = raw;
    H5free_memory(raw);
    H5Id member = type_id(H5Tget_member_type(ftype.get(), unsigned(m)));
    if (!member.valid()) hdf5_failed(where, "read a column type");
    const auto bad = [&] { hdf5_failed(where, fmt::format("read column '{}' of {}", col, name).c_str()); };
    const H5T_class_t cls = H5Tget_class(member.get());
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
      const bool is_int = cls == H5T_INTEGER;
      H5Id mt = one_member_type(col.c_str(), is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, 8);
      Column& c = t.add(col, is_int ? Column::Kind::i64 : Column::Kind::f64);
      void* dst = is_int ? static_cast<void*>((c.i.resize(n), c.i.data())) : static_cast<void*>((c.f.resize(n), c.f.data()));
      if (!mt.valid() || (n > 0 && H5Dread(dset.get(), mt.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, dst) < 0)) bad();
    } else if (cls == H5T_STRING) {
      const htri_t var = H5Tis_variable_str(member.get());
      const H5T_cset_t cset = H5Tget_cset(member.get());
      if (var < 0 || cset < 0) bad();
      Column& c = t.add(col, Column::Kind::str);
      c.s.resize(n);
      if (n == 0) continue;
      if (var > 0 && data::detail::read_only_file(loc)) {
        // By hand, not through libhdf5's global-heap reader (harness/data/h5_raw.h): a damaged run
        // or study file must not crash collect, status or compare.
        data::detail::VlenStrings heap(loc);
        const std::size_t w = heap.id_size();
        H5Id mt = heap.valid() ? one_member_type(col.c_str(), heap.id_type(), w) : H5Id{};
        std::vector<unsigned char> ids(n * w);
        if (!mt.valid() || H5Dread(dset.get(), mt.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ids.data()) < 0) bad();
        for (std::size_t r = 0; r < n; ++r) {
          auto v = heap.get(&ids[r * w]);
          if (!v) bad();
          c.s[r] = std::move(*v);
        }
      } else if (var > 0) {  // a file this process is writing
        H5Id st = vlen_string_type(cset);
        H5Id mt = st.valid() ? one_member_type(col.c_str(), st.get(), sizeof(char*)) : H5Id{};
        std::vector<char*> ptrs(n, nullptr);
        if (!mt.valid() || H5Dread(dset.get(), mt.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()) < 0) bad();
        for (std::size_t r = 0; r < n; ++r) c.s[r] = ptrs[r] ? ptrs[r] : "";
#if H5_VERSION_GE(1, 12, 0)
        if (H5Treclaim(mt.get(), space.get(), H5P_DEFAULT, ptrs.data()) < 0) bad();
#else
        if (H5Dvlen_reclaim(mt.get(), space.get(), H5P_DEFAULT, ptrs.data()) < 0) bad();
#endif
      } else {
        const std::size_t len = H5Tget_size(member.get()) + 1;
        H5Id st = type_id(H5Tcopy(H5T_C_S1));
        if (!st.valid() || H5Tset_size(st.get(), len) < 0 || H5Tset_strpad(st.get(), H5T_STR_NULLTERM) < 0 ||
            H5Tset_cset(st.get(), cset) < 0)
          bad();
        H5Id mt = one_member_type(col.c_str(), st.get(), len);
        std::vector<char> chars(n * len, '\0');
        if (!mt.valid() || H5Dread(dset.get(), mt.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, chars.data()) < 0) bad();
        for (std::size_t r = 0; r < n; ++r) c.s[r] = std::string(&chars[r * len], strnlen(&chars[r * len], len));
      }
    }  // other member kinds (enums, arrays) are not part of the schema: skipped
  }
  return t;
}

void write_matrix(hid_t loc, const char* name, std::size_t rows, std::size_t cols, const std::vector<double>& v,
                  const std::string& where) {
  SB_CHECK(v.size() == rows * cols, "{}: matrix {} has {} values for {}x{}", where, name, v.size(), rows, cols);
  const hsize_t dims[2] = {rows, cols};
  H5Id space = space_id(H5Screate_simple(2, dims, nullptr));
  H5Id dset = space.valid() ? dset_id(H5Dcreate2(loc, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                                 H5P_DEFAULT))
                            : H5Id{};
  if (!dset.valid()) hdf5_failed(where, fmt::format("create {}", name).c_str());
  if (!v.empty() && H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    hdf5_failed(where, fmt::format("write {}", name).c_str());
}

std::vector<double> read_matrix(hid_t loc, const char* name, std::size_t& rows, std::size_t& cols,
                                const std::string& where) {
  H5Id dset = dset_id(H5Dopen2(loc, name, H5P_DEFAULT));
  H5Id space = dset.valid() ? space_id(H5Dget_space(dset.get())) : H5Id{};
  if (!space.valid()) hdf5_failed(where, fmt::format("open {}", name).c_str());
  hsize_t dims[2] = {0, 0};
  SB_REQUIRE(H5Sget_simple_extent_ndims(space.get()) == 2 && H5Sget_simple_extent_dims(space.get(), dims, nullptr) == 2,
             "{}: {} is not a two-dimensional array", where, name);
  rows = dims[0], cols = dims[1];
  std::vector<double> v(rows * cols);
  if (!v.empty() && H5Dread(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    hdf5_failed(where, fmt::format("read {}", name).c_str());
  return v;
}

}  // namespace scalebench::record::h5
