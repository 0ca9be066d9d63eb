// h5_layout.cpp — a dataset's chunk dimensions read from its object header by hand (see h5_raw.h):
// libhdf5 1.10.8 divides by them while opening the dataset, before anything can check them.
// The layouts (HDF5 file format spec, "Data Object Headers", "Data Layout Message"):
//   header v1: u8 version 1 | reserved | u16 messages | u32 refs | u32 size | pad to 16; messages:
//              u16 type | u16 size | u8 flags | 3 reserved | data (size, a multiple of 8)
//   header v2: "OHDR" | u8 version 2 | u8 flags | [16 bytes of times] | [4 bytes of attribute limits]
//              | chunk size (1, 2, 4 or 8 bytes) | messages: u8 type | u16 size | u8 flags |
//              [u16 order] | data; u32 checksum; continuation chunks: "OCHK" | messages | checksum
//   continuation message (0x10): address | length of another chunk of messages
//   layout message (0x08), chunked (class 2): v1/v2: u8 version | u8 rank+1 | u8 class | 5 reserved
//              | address | u32 dims; v3: u8 version | u8 class | u8 rank+1 | address | u32 dims;
//              v4: u8 version | u8 class | u8 flags | u8 rank+1 | u8 width | dims of `width` bytes
// A header not in one of these forms is left to HDF5 ("" returned): this check only has to catch a
// zero dimension in a header HDF5 would otherwise read.
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

}  // namespace

std::string chunk_dims_problem(hid_t loc, const char* name) {
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
      if (type == 0x08) {
        const std::string why = layout_problem(&bytes[p], size, as);
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
