// h5_vlen.cpp — variable-length strings from the global heap, checked by hand (see h5_raw.h).
// The on-disk layouts (HDF5 file format spec, "Global Heap" and "Variable-length Data"):
//   heap ID:     u32 length (characters) | address of the collection | u32 object index
//   collection:  "GCOL" | u8 version 1 | 3 reserved | length: collection size (header included)
//   object:      u16 index | u16 references | 4 reserved | length: size | data, padded to 8 bytes
// Index 0 is the collection's free space (its size counts the header). A walk that HDF5 would not
// end exactly at the collection's end, or an object reaching past it, makes the collection invalid.
#include "harness/data/h5_raw.h"

#include <cstring>
#include <mutex>

namespace scalebench::data::detail {
namespace {

constexpr const char* kIdTag = "scalebench raw vlen heap id";
constexpr std::uint64_t kMaxCollection = std::uint64_t{1} << 28;  // 256 MiB: far above any we write

// The conversion from a stored variable-length string to our opaque type of the same width: the
// raw ID already sits in the conversion buffer, so there is nothing to do. It accepts only our
// tagged type, so no other conversion path changes.
herr_t keep_raw_id(hid_t src, hid_t dst, H5T_cdata_t* cdata, size_t, size_t, size_t, void*, void*, hid_t) {
  if (cdata->command != H5T_CONV_INIT) return 0;
  if (H5Tget_class(dst) != H5T_OPAQUE || H5Tis_variable_str(src) <= 0 || H5Tget_size(src) != H5Tget_size(dst))
    return -1;
  char* tag = H5Tget_tag(dst);
  const bool ours = tag && std::strcmp(tag, kIdTag) == 0;
  H5free_memory(tag);
  if (!ours) return -1;
  cdata->need_bkg = H5T_BKG_NO;
  return 0;
}

bool register_raw_id_conversion() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] {
    H5Id vstr = type_id(H5Tcopy(H5T_C_S1));
    H5Id opaque = type_id(H5Tcreate(H5T_OPAQUE, 16));
    ok = vstr.valid() && opaque.valid() && H5Tset_size(vstr.get(), H5T_VARIABLE) >= 0 &&
         H5Tregister(H5T_PERS_SOFT, "scalebench_raw_vlen_id", vstr.get(), opaque.get(), keep_raw_id) >= 0;
  });
  return ok;
}

}  // namespace

bool read_only_file(hid_t obj) {
  H5Id file = file_id(H5Iget_file_id(obj));
  unsigned intent = 0;
  return file.valid() && H5Fget_intent(file.get(), &intent) >= 0 && (intent & H5F_ACC_RDWR) == 0;
}

VlenStrings::VlenStrings(hid_t obj) : file_(obj) {
  if (!file_.valid() || !register_raw_id_conversion()) return;
  id_type_ = type_id(H5Tcreate(H5T_OPAQUE, id_size()));
  if (id_type_.valid() && H5Tset_tag(id_type_.get(), kIdTag) < 0) id_type_.reset();
}

const VlenStrings::Collection& VlenStrings::load(std::uint64_t addr) {
  if (auto it = cache_.find(addr); it != cache_.end()) return it->second;
  Collection& c = cache_[addr];
  const std::size_t ls = file_.length_size(), header = 4 + 1 + 3 + ls, object_header = 2 + 2 + 4 + ls;
  unsigned char h[16] = {};
  if (!file_.read(h, header, addr)) return c;
  const std::uint64_t size = le(h + 8, ls);
  if (std::memcmp(h, "GCOL", 4) != 0 || h[4] != 1 || size < header || size > file_.size() - addr ||
      size > kMaxCollection)
    return c;
  c.bytes.resize(std::size_t(size));
  if (!file_.read(c.bytes.data(), c.bytes.size(), addr)) return c;
  // The walk HDF5's own parser makes; a tail too short for an object header is free space.
  std::size_t p = header;
  while (p < c.bytes.size() && c.bytes.size() - p >= object_header) {
    const auto index = std::uint32_t(le(&c.bytes[p], 2));
    const std::uint64_t obj = le(&c.bytes[p + 8], ls);
    const std::uint64_t left = c.bytes.size() - p;
    if (obj > left) return c;
    const std::uint64_t need = index == 0 ? obj : object_header + ((obj + 7) / 8) * 8;
    if (need == 0 || need > left) return c;  // HDF5 would loop forever, or run past the end
    if (index > 0) c.objects[index] = {p + object_header, obj};
    p += std::size_t(need);
  }
  c.ok = true;
  return c;
}

std::optional<std::string> VlenStrings::get(const unsigned char* raw) {
  if (!valid()) return std::nullopt;
  const std::size_t as = file_.addr_size();
  const std::uint64_t length = le(raw, 4), addr = le(raw + 4, as);
  const auto index = std::uint32_t(le(raw + 4 + as, 4));
  if (length == 0) return std::string();  // an empty (or never written) string has no heap object
  const Collection& c = load(addr);
  const auto it = c.ok ? c.objects.find(index) : c.objects.end();
  if (it == c.objects.end() || it->second.second != length) return std::nullopt;
  const char* s = reinterpret_cast<const char*>(&c.bytes[it->second.first]);
  return std::string(s, strnlen(s, std::size_t(length)));
}

}  // namespace scalebench::data::detail
