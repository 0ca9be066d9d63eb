// h5_header.cpp — an object header's layout and attribute messages checked by hand (see h5_raw.h):
// libhdf5 1.10.8 divides by chunk dimensions while opening a dataset, and copies an attribute's
// value by sizes it does not hold against the message (ASan: heap-buffer-overflow in H5Aexists),
// before anything can check them.
// The layouts (HDF5 file format spec, "Data Object Headers", "Data Layout Message", "Attribute
// Message", "Datatype Message", "Dataspace Message"):
//   header v1: u8 version 1 | reserved | u16 messages | u32 refs | u32 size | pad to 16; messages:
//              u16 type | u16 size | u8 flags | 3 reserved | data (size, a multiple of 8)
//   header v2: "OHDR" | u8 version 2 | u8 flags | [16 bytes of times] | [4 bytes of attribute limits]
//              | chunk size (1, 2, 4 or 8 bytes) | messages: u8 type | u16 size | u8 flags |
//              [u16 order] | data; u32 checksum; continuation chunks: "OCHK" | messages | checksum
//   continuation message (0x10): address | length of another chunk of messages
//   layout message (0x08), chunked (class 2): v1/v2: u8 version | u8 rank+1 | u8 class | 5 reserved
//              | address | u32 dims; v3: u8 version | u8 class | u8 rank+1 | address | u32 dims;
//              v4: u8 version | u8 class | u8 flags | u8 rank+1 | u8 width | dims of `width` bytes
//   attribute message (0x0C): u8 version | u8 flags (v1: reserved) | u16 name size | u16 datatype
//              size | u16 dataspace size | [v3: u8 encoding] | name | datatype | dataspace | value;
//              v1 pads name, datatype and dataspace to 8 bytes
//   datatype: u8 class and version | 3 bytes of bits | u32 element size | ...
//   dataspace: v1: u8 version | u8 rank | u8 flags | 5 reserved | dims; v2: u8 version | u8 rank |
//              u8 flags | u8 type (0 scalar, 1 simple, 2 null) | dims (each a length)
// A header not in one of these forms is left to HDF5 ("" returned): this check only has to catch
// what HDF5 would act on unchecked in a header it would otherwise read.
#include <fmt/format.h>

#include <vector>

#include "harness/data/h5_raw.h"

namespace scalebench::data::detail {
namespace {

constexpr std::uint64_t kMaxChunk = std::uint64_t{1} << 20;  // a header chunk larger than 1 MiB: not read
constexpr int kMaxChunks = 64;

struct Block {
  std::uint64_t addr, size;
  std::size_t head = 0, tail = 0;  // a v2 continuation chunk: "OCHK" before, a checksum after
};

// The layout message's problem, "" when it has none (or is not chunked).
std::string layout_problem(const unsigned char* d, std::size_t n, std::size_t addr_size) {
  if (n < 2) return "";
  const unsigned version = d[0];
  std::size_t rank = 0, width = 4, at = 0;
  if ((version == 1 || version == 2) && n >= 8 && d[2] == 2) {
    rank = d[1], at = 8 + addr_size;
  } else if (version == 3 && d[1] == 2 && n >= 3) {
    rank = d[2], at = 3 + addr_size;
  } else if (version == 4 && d[1] == 2 && n >= 5) {
    rank = d[3], width = d[4], at = 5;
    if (width < 1 || width > 8) return fmt::format("has chunk dimensions of {} bytes", width);
  } else {
    return "";
  }
  if (rank == 0 || at + rank * width > n) return "has a truncated layout message";
  for (std::size_t i = 0; i < rank; ++i)
    if (le(d + at + i * width, width) == 0) return fmt::format("has a chunk dimension of 0 (dimension {})", i);
  return "";
}

std::size_t pad8(std::size_t n) { return (n + 7) / 8 * 8; }

// The attribute message's problem, "" when its parts and value fit in it (or when its datatype or
// dataspace is shared, so not in the message).
std::string attribute_problem(const unsigned char* d, std::size_t n, std::size_t length_size) {
  if (n < 8) return "has a truncated attribute message";
  const unsigned version = d[0];
  if (version < 1 || version > 3) return "";
  if (version >= 2 && (d[1] & 0x03)) return "";  // shared datatype or dataspace
  const std::size_t name = le(d + 2, 2), dt = le(d + 4, 2), ds = le(d + 6, 2);
  std::size_t at = version == 3 ? 9 : 8;
  const auto part = [&](std::size_t len) { return version == 1 ? pad8(len) : len; };
  if (name == 0 || at + part(name) > n) return "has an attribute name longer than its message";
  bool terminated = false;
  for (std::size_t i = 0; i < name && !terminated; ++i) terminated = d[at + i] == 0;
  if (!terminated) return "has an attribute name without its end";
  at += part(name);
  if (dt < 8 || at + part(dt) > n) return "has an attribute datatype longer than its message";
  const std::uint64_t element = le(d + at + 4, 4);
  at += part(dt);
  if (ds < 4 || at + part(ds) > n) return "has an attribute dataspace longer than its message";
  const unsigned char* s = d + at;
  const std::size_t rank = s[1], dims_at = s[0] == 1 ? 8 : 4;
  std::uint64_t count = (s[0] == 2 && s[3] == 2) ? 0 : 1;  // a null dataspace holds nothing
  if (dims_at + rank * length_size > ds) return "has an attribute dataspace longer than its message";
  for (std::size_t i = 0; i < rank && count; ++i) {
    const std::uint64_t dim = le(s + dims_at + i * length_size, length_size);
    if (dim && count > ~std::uint64_t{0} / dim) return "has an attribute of more elements than 2^64";
    count *= dim;
  }
  at += part(ds);
  if (element && count > (n - at) / element)
    return fmt::format("has an attribute value of {} x {} bytes in {} bytes", count, element, n - at);
  return "";
}

}  // namespace

std::string object_header_problem(hid_t loc, const char* name) {
  H5O_info_t info{};
  if (H5Oget_info_by_name2(loc, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) return "";
  const RawFile f(loc);
  if (!f.valid()) return "";
  const std::size_t as = f.addr_size(), ls = f.length_size();
  unsigned char h[64] = {};
  if (!f.read(h, 16, info.addr)) return "";
  std::vector<Block> blocks;
  std::size_t type_bytes = 2, flag_gap = 3, order_bytes = 0;
  bool v2 = false;
  if (h[0] == 1) {
    blocks.push_back({info.addr + 16, le(h + 8, 4)});
  } else if (std::string(reinterpret_cast<char*>(h), 4) == "OHDR" && h[4] == 2) {
    v2 = true;
    const unsigned flags = h[5];
    std::size_t at = 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
    const std::size_t size_bytes = std::size_t(1) << (flags & 3);
    if (!f.read(h, at + size_bytes, info.addr)) return "";
    blocks.push_back({info.addr + at + size_bytes, le(h + at, size_bytes)});
    type_bytes = 1, flag_gap = 0, order_bytes = flags & 0x04 ? 2 : 0;
  } else {
    return "";
  }
  const std::size_t message_header = type_bytes + 2 + 1 + flag_gap + order_bytes;
  for (std::size_t b = 0; b < blocks.size() && b < kMaxChunks; ++b) {
    const Block blk = blocks[b];
    if (blk.size > kMaxChunk || blk.size < blk.head + blk.tail) return "";
    std::vector<unsigned char> bytes(blk.size);
    if (!f.read(bytes.data(), bytes.size(), blk.addr)) return "";
    std::size_t p = blk.head;
    const std::size_t end = bytes.size() - blk.tail;
    while (p + message_header <= end) {
      const std::uint64_t type = le(&bytes[p], type_bytes);
      const std::size_t size = std::size_t(le(&bytes[p + type_bytes], 2));
      p += message_header;
      if (size > end - p) return "";
      if (type == 0x08 || type == 0x0C) {
        const std::string why =
            type == 0x08 ? layout_problem(&bytes[p], size, as) : attribute_problem(&bytes[p], size, ls);
        if (!why.empty()) return why;
      } else if (type == 0x10 && size >= as + ls) {
        blocks.push_back({le(&bytes[p], as), le(&bytes[p + as], ls), v2 ? 4u : 0u, v2 ? 4u : 0u});
      }
      p += size;
    }
  }
  return "";
}

}  // namespace scalebench::data::detail
