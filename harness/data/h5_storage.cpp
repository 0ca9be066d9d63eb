// h5_storage.cpp — do a dataset's stored bytes hold what its extent declares? (see h5util.h)
// A file may declare any extent in a few bytes: chunks never written read back as the fill value,
// and a filter can shrink a chunk of zeros to almost nothing, so a 6 KB file declaring 10^9 images
// sent the label scan reading fill values for hours. Checked from the layout and the chunk index
// only (no data is read): every chunk of the extent present, contiguous data inside the file, and
// at most kMaxStoredRatio declared bytes per stored byte.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "harness/data/h5util.h"

namespace scalebench::data::detail {

std::string storage_problem(hid_t dset, std::uint64_t file_size) {
  H5Id space = space_id(H5Dget_space(dset));
  H5Id type = type_id(H5Dget_type(dset));
  H5Id dcpl = plist_id(H5Dget_create_plist(dset));
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 0 || !type.valid() || !dcpl.valid()) return "has an unreadable shape or layout";
  std::vector<hsize_t> dims(std::size_t(rank), 0);
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) != rank) return "has an unreadable shape";
  // Doubles: an extent may overflow 64 bits, and these are only compared.
  double declared = double(H5Tget_size(type.get()));
  for (hsize_t d : dims) declared *= double(d);
  if (declared == 0) return "";

  const hsize_t stored = H5Dget_storage_size(dset);  // 0 also on error: then nothing counts as stored
  if (stored > file_size)
    return fmt::format("claims {} bytes of storage in a file of {} bytes", stored, file_size);
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_CHUNKED) {
    std::vector<hsize_t> chunk(std::size_t(rank), 0);
    if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank) return "has an unreadable chunk shape";
    double needed = 1;
    for (int i = 0; i < rank; ++i) {
      if (chunk[std::size_t(i)] == 0) return "has a zero chunk dimension";
      needed *= std::ceil(double(dims[std::size_t(i)]) / double(chunk[std::size_t(i)]));
    }
    hsize_t have = 0;
    if (H5Dget_num_chunks(dset, space.get(), &have) < 0) return "has an unreadable chunk index";
    if (double(have) < needed)
      return fmt::format("declares {:.0f} bytes in {:.0f} chunks but stores only {} of them", declared, needed, have);
    // Without a filter every chunk is stored whole: libhdf5 1.10 reads a whole chunk into a buffer
    // sized by the index's claim (ASan: heap-buffer-overflow in H5D__select_read, sb_fuzz --seed 4).
    double chunk_bytes = double(H5Tget_size(type.get()));
    for (hsize_t c : chunk) chunk_bytes *= double(c);
    if (H5Pget_nfilters(dcpl.get()) == 0 && double(stored) != double(have) * chunk_bytes)
      return fmt::format("stores {} bytes in {} unfiltered chunks of {:.0f} bytes", stored, have, chunk_bytes);
  } else if (layout == H5D_COMPACT) {
    // The value sits in the object header: it must hold every declared byte (libhdf5 1.10 would
    // copy the declared size out of a shorter one).
    if (double(stored) < declared)
      return fmt::format("declares {:.0f} bytes but its compact storage holds {}", declared, stored);
  } else if (layout == H5D_CONTIGUOUS) {
    const haddr_t offset = H5Dget_offset(dset);
    if (double(stored) < declared || offset == HADDR_UNDEF || offset > file_size || stored > file_size - offset)
      return fmt::format("declares {:.0f} bytes but the file stores {} of them", declared, stored);
  }
  if (stored == 0 || declared / double(stored) > double(kMaxStoredRatio))
    return fmt::format("declares {:.0f} bytes in {} bytes of storage (more than {}:1)", declared, stored,
                       kMaxStoredRatio);
  return "";
}

}  // namespace scalebench::data::detail
