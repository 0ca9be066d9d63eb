// dataset.cpp — the HDF5 image dataset reader (schema: docs/data-format.md). Everything a later
// read could trip over is checked once at open, so a bad file fails at start-up with one line
// naming the file and the problem rather than mid-epoch on some rank. It does not cache samples
// (the OS page cache does that) and does not convert image dtypes: images must be float32.
#include "harness/data/dataset.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/data/h5_raw.h"
#include "harness/data/h5util.h"
#include "kernels/common/check.h"
#include "kernels/common/printable.h"

namespace scalebench::data {

using detail::H5Id;

const char* to_string(Task t) {
  switch (t) {
    case Task::segmentation: return "segmentation";
    case Task::classification: return "classification";
  }
  return "unknown";
}

namespace {

// A short dtype name for error messages ("float64", "uint8", "string", ...).
std::string describe_type(hid_t type) {
  const H5T_class_t cls = H5Tget_class(type);
  const size_t bytes = H5Tget_size(type);
  switch (cls) {
    case H5T_FLOAT: return "float" + std::to_string(8 * bytes);
    case H5T_INTEGER:
      return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * bytes);
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    default: return "non-numeric";
  }
}

// Text from the file as scalebench shows it (kernels/common/printable.h), bytes >= 0x80 escaped too:
// a damaged file's attribute need not be UTF-8, and a message, a progress line or a run file never
// carries the file's raw bytes to a terminal.
std::string escaped(const std::string& s) { return scalebench::printable(s, HighBytes::escape); }
// The same, cut at 60 characters, for a one-line message.
std::string printable(const std::string& s) { return s.size() > 60 ? escaped(s.substr(0, 60)) + "..." : escaped(s); }

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? "" : item.substr(b, e - b + 1));
  }
  return out;
}

// Checks every label in [0, classes), reading blocks of about 1 Mi labels (whole samples, or rows
// of one sample when a sample is larger) so memory stays small whatever the declared shape, and the
// first offending sample can be named. T is the memory type.
template <class T>
void scan_labels(hid_t labels, hid_t fspace, hid_t memtype, const DatasetInfo& info,
                 const std::string& p) {
  constexpr std::int64_t kBlock = std::int64_t{1} << 20;
  const bool seg = info.task == Task::segmentation;
  const std::int64_t per = info.label_numel();
  // A block: `samples` whole samples, or (when one sample exceeds kBlock) `rows` rows of one.
  const std::int64_t samples = std::max<std::int64_t>(1, kBlock / per);
  const std::int64_t rows = per <= kBlock ? info.height : std::max<std::int64_t>(1, kBlock / info.width);
  std::vector<T> buf(static_cast<size_t>(std::min(per * samples, seg ? rows * info.width * samples : samples)));
  for (std::int64_t s0 = 0; s0 < info.n; s0 += samples) {
    const std::int64_t cnt = std::min(samples, info.n - s0);
    for (std::int64_t r0 = 0; r0 < (seg ? info.height : 1); r0 += rows) {
      const std::int64_t rc = seg ? std::min(rows, info.height - r0) : 1;
      const hsize_t start[3] = {static_cast<hsize_t>(s0), static_cast<hsize_t>(r0), 0};
      const hsize_t count[3] = {static_cast<hsize_t>(cnt), static_cast<hsize_t>(rc),
                                static_cast<hsize_t>(info.width)};
      const std::int64_t total = seg ? cnt * rc * info.width : cnt;
      // The memory space has the selection's shape: HDF5 copies matching shapes in one block, but
      // walks a rank-changing (e.g. 3-D file → 1-D memory) selection element by element, ~15x slower.
      H5Id mspace = detail::space_id(H5Screate_simple(seg ? 3 : 1, count, nullptr));
      const bool ok =
          mspace.valid() &&
          H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0 &&
          H5Dread(labels, memtype, mspace.get(), fspace, H5P_DEFAULT, buf.data()) >= 0;
      SB_REQUIRE(ok, "dataset {}: cannot read /labels samples {}..{} (truncated or corrupt file)", p, s0,
                 s0 + cnt - 1);
      const auto end = buf.begin() + static_cast<std::ptrdiff_t>(total);
      const auto bad = std::find_if(buf.begin(), end, [&](T v) {
        return static_cast<std::int64_t>(v) < 0 || static_cast<std::int64_t>(v) >= info.classes;
      });
      SB_REQUIRE(bad == end, "dataset {}: label {} at sample {} is outside [0, {})", p,
                 static_cast<std::int64_t>(*bad), s0 + (bad - buf.begin()) / (seg ? rc * info.width : 1),
                 info.classes);
    }
  }
}

}  // namespace

struct Dataset::Impl {
  H5Id file, images, labels;
  H5Id image_fspace, label_fspace;  // file dataspaces, re-selected per sample
  H5Id image_mspace, label_mspace;  // one sample: [1, C, H, W] and [1, H, W] or [1]
  int label_rank = 0;
};

Dataset::Dataset(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  namespace fs = std::filesystem;
  detail::silence_hdf5_errors();
  const std::string& p = path_;

  std::error_code ec;
  SB_REQUIRE(fs::exists(p, ec), "dataset {}: file not found", p);
  SB_REQUIRE(fs::is_regular_file(p, ec), "dataset {}: not a regular file", p);
  SB_REQUIRE(std::ifstream(p, std::ios::binary).good(),
             "dataset {}: cannot open for reading (permissions?)", p);
  SB_REQUIRE(detail::has_hdf5_signature(p), "dataset {}: not an HDF5 file", p);

  Impl& m = *impl_;
  // Read-only and never written while training: skip HDF5's file locks, which fail on many
  // cluster file systems (Lustre, NFS) and would read here as an unopenable file.
  H5Id fapl = detail::plist_id(H5Pcreate(H5P_FILE_ACCESS));
  SB_CHECK(fapl.valid(), "H5Pcreate(H5P_FILE_ACCESS) failed");
#if H5_VERSION_GE(1, 10, 7)
  SB_CHECK(H5Pset_file_locking(fapl.get(), false, true) >= 0, "H5Pset_file_locking failed");
#endif
  m.file = detail::file_id(H5Fopen(p.c_str(), H5F_ACC_RDONLY, fapl.get()));
  SB_REQUIRE(m.file.valid(), "dataset {}: cannot open: truncated or corrupt HDF5 file", p);
  const hid_t f = m.file.get();

  // --- root attributes -------------------------------------------------------------------------
  // libhdf5 1.10 decodes every attribute message of the header unchecked: read them by hand first.
  const std::string header = detail::object_header_problem(f, ".");
  SB_REQUIRE(header.empty(), "dataset {}: the root group {} (corrupt file)", p, header);
  bool ok = true;
  const auto schema = detail::read_string_attr(f, "schema", ok);
  SB_REQUIRE(ok, "dataset {}: root attribute 'schema' is not a string", p);
  SB_REQUIRE(!schema || *schema == "scalebench-dataset",
             "dataset {}: root attribute schema = '{}', expected 'scalebench-dataset'", p,
             printable(schema.value_or("")));
  const auto version = detail::read_int_attr(f, "schema_version", ok);
  SB_REQUIRE(ok, "dataset {}: root attribute 'schema_version' is not an integer", p);
  SB_REQUIRE(!version || *version == 1,
             "dataset {}: unsupported schema_version {} (this reader knows 1)", p, *version);

  const auto task = detail::read_string_attr(f, "task", ok);
  SB_REQUIRE(ok, "dataset {}: root attribute 'task' is not a string", p);
  SB_REQUIRE(task.has_value(),
             "dataset {}: missing root attribute 'task' (segmentation|classification)", p);
  if (*task == "segmentation") {
    info_.task = Task::segmentation;
  } else if (*task == "classification") {
    info_.task = Task::classification;
  } else {
    SB_REQUIRE(false, "dataset {}: unknown task '{}' (expected segmentation|classification)", p,
               printable(*task));
  }

  const auto classes = detail::read_int_attr(f, "classes", ok);
  SB_REQUIRE(ok, "dataset {}: root attribute 'classes' is not an integer", p);
  SB_REQUIRE(classes.has_value(), "dataset {}: missing root attribute 'classes'", p);
  SB_REQUIRE(*classes >= 2 && *classes <= 65536, "dataset {}: classes = {}, expected 2..65536", p,
             *classes);
  info_.classes = static_cast<int>(*classes);

  const auto names = detail::read_string_attr(f, "class_names", ok);
  SB_REQUIRE(ok, "dataset {}: root attribute 'class_names' is not a string", p);
  if (names) {
    info_.class_names = split_names(escaped(*names));  // train prints them, run files record them
    SB_REQUIRE(static_cast<int>(info_.class_names.size()) == info_.classes,
               "dataset {}: class_names lists {} names but classes = {}", p,
               info_.class_names.size(), info_.classes);
  } else {
    for (int c = 0; c < info_.classes; ++c) info_.class_names.push_back("class" + std::to_string(c));
  }

  // --- /images ---------------------------------------------------------------------------------
  auto open_dataset = [&](const char* name) {
    const htri_t exists = H5Lexists(f, name, H5P_DEFAULT);
    SB_REQUIRE(exists >= 0, "dataset {}: cannot read the root group (corrupt file)", p);
    SB_REQUIRE(exists > 0, "dataset {}: missing dataset /{}", p, name);
    // An external link's data lives in another file, which every check below (the object header
    // read by hand, the stored bytes against this file's size) cannot see: refuse it by name
    // rather than calling the file corrupt.
    H5L_info_t link{};
    SB_REQUIRE(H5Lget_info(f, name, &link, H5P_DEFAULT) >= 0, "dataset {}: cannot read the link /{} (corrupt file)", p,
               name);
    if (link.type == H5L_TYPE_EXTERNAL) {
      std::string target(link.u.val_size, '\0');
      const char *file = nullptr, *object = nullptr;
      unsigned flags = 0;
      const bool named = H5Lget_val(f, name, target.data(), target.size(), H5P_DEFAULT) >= 0 &&
                         H5Lunpack_elink_val(target.data(), target.size(), &flags, &file, &object) >= 0;
      fail_input(fmt::format("dataset {}: /{} is an external link{}: scalebench reads data sets stored in the file "
                             "itself (h5copy copies one in)", p, name,
                             named ? fmt::format(" to {}:{}", file, object) : std::string()));
    }
    // libhdf5 1.10 divides by the chunk dimensions while opening: read them by hand first.
    const std::string chunks = detail::object_header_problem(f, name);
    SB_REQUIRE(chunks.empty(), "dataset {}: /{} {} (corrupt file)", p, name, chunks);
    H5Id d = detail::dset_id(H5Dopen2(f, name, H5P_DEFAULT));
    SB_REQUIRE(d.valid(), "dataset {}: /{} is not a dataset or cannot be opened", p, name);
    return d;
  };
  auto dims_of = [&](const H5Id& d, const char* name, std::vector<hsize_t>& dims) {
    H5Id space = detail::space_id(H5Dget_space(d.get()));
    const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
    SB_REQUIRE(rank >= 0, "dataset {}: cannot read the shape of /{}", p, name);
    dims.assign(static_cast<size_t>(rank), 0);
    SB_REQUIRE(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) == rank,
               "dataset {}: cannot read the shape of /{}", p, name);
    return space;
  };

  m.images = open_dataset("images");
  {
    H5Id type = detail::type_id(H5Dget_type(m.images.get()));
    SB_REQUIRE(type.valid(), "dataset {}: cannot read the dtype of /images", p);
    SB_REQUIRE(H5Tget_class(type.get()) == H5T_FLOAT && H5Tget_size(type.get()) == 4,
               "dataset {}: /images has dtype {}, expected float32", p, describe_type(type.get()));
  }
  std::vector<hsize_t> idims;
  m.image_fspace = dims_of(m.images, "images", idims);
  SB_REQUIRE(idims.size() == 4, "dataset {}: /images has rank {}, expected 4 [N, C, H, W]", p,
             idims.size());
  SB_REQUIRE(idims[1] >= 1 && idims[2] >= 1 && idims[3] >= 1 && idims[1] <= 4096 &&
                 idims[2] <= 65536 && idims[3] <= 65536,
             "dataset {}: /images has shape [{}, {}, {}, {}], C/H/W out of range", p, idims[0],
             idims[1], idims[2], idims[3]);
  info_.n = static_cast<std::int64_t>(idims[0]);
  info_.channels = static_cast<int>(idims[1]);
  info_.height = static_cast<int>(idims[2]);
  info_.width = static_cast<int>(idims[3]);

  // --- /labels ---------------------------------------------------------------------------------
  m.labels = open_dataset("labels");
  {
    H5Id type = detail::type_id(H5Dget_type(m.labels.get()));
    SB_REQUIRE(type.valid(), "dataset {}: cannot read the dtype of /labels", p);
    SB_REQUIRE(H5Tget_class(type.get()) == H5T_INTEGER,
               "dataset {}: /labels has dtype {}, expected an integer type (uint8)", p,
               describe_type(type.get()));
  }
  std::vector<hsize_t> ldims;
  m.label_fspace = dims_of(m.labels, "labels", ldims);
  m.label_rank = static_cast<int>(ldims.size());
  if (info_.task == Task::segmentation) {
    SB_REQUIRE(ldims.size() == 3,
               "dataset {}: /labels has rank {}, expected 3 [N, H, W] for task segmentation", p,
               ldims.size());
  } else {
    SB_REQUIRE(ldims.size() == 1,
               "dataset {}: /labels has rank {}, expected 1 [N] for task classification", p,
               ldims.size());
  }
  SB_REQUIRE(ldims[0] == idims[0], "dataset {}: /images has {} samples but /labels has {}", p,
             idims[0], ldims[0]);
  if (info_.task == Task::segmentation) {
    SB_REQUIRE(ldims[1] == idims[2] && ldims[2] == idims[3],
               "dataset {}: /labels samples are {}x{} but /images samples are {}x{}", p, ldims[1],
               ldims[2], idims[2], idims[3]);
  }

  // --- the stored bytes hold the declared extent, before anything reads a sample ----------------
  // (a file may declare 10^9 samples in 6 KB: the scan below would then read fill values for hours)
  SB_REQUIRE(idims[0] <= (hsize_t{1} << 40), "dataset {}: /images declares {} samples (more than 2^40)", p,
             idims[0]);
  std::error_code size_ec;
  const std::uintmax_t file_size = fs::file_size(p, size_ec);
  SB_REQUIRE(!size_ec, "dataset {}: cannot read the file size: {}", p, size_ec.message());
  for (const auto& [d, name] : {std::pair{m.images.get(), "images"}, std::pair{m.labels.get(), "labels"}}) {
    const std::string why = detail::storage_problem(d, file_size);
    SB_REQUIRE(why.empty(), "dataset {}: /{} {} (a sparse, truncated or corrupt file)", p, name, why);
  }

  // Memory spaces shaped like one sample's file selection ([1, C, H, W] / [1, H, W] / [1]), so
  // HDF5 can copy each sample as one block.
  const hsize_t isample[4] = {1, idims[1], idims[2], idims[3]};
  m.image_mspace = detail::space_id(H5Screate_simple(4, isample, nullptr));
  const hsize_t lsample[3] = {1, idims[2], idims[3]};
  m.label_mspace = detail::space_id(H5Screate_simple(m.label_rank, lsample, nullptr));
  SB_CHECK(m.image_mspace.valid() && m.label_mspace.valid(), "H5Screate_simple failed");

  // --- every label in [0, classes) ---------------------------------------------------------------
  // One-byte labels (what datagen writes) are scanned as stored, skipping HDF5's slow conversion
  // path; wider types as int64, so no on-disk value can wrap into range.
  H5Id ltype = detail::type_id(H5Dget_type(m.labels.get()));
  SB_REQUIRE(ltype.valid(), "dataset {}: cannot read the dtype of /labels", p);
  const bool one_byte = H5Tget_size(ltype.get()) == 1;
  const bool is_signed = H5Tget_sign(ltype.get()) != H5T_SGN_NONE;
  if (one_byte && is_signed)
    scan_labels<std::int8_t>(m.labels.get(), m.label_fspace.get(), H5T_NATIVE_INT8, info_, p);
  else if (one_byte)
    scan_labels<std::uint8_t>(m.labels.get(), m.label_fspace.get(), H5T_NATIVE_UINT8, info_, p);
  else
    scan_labels<std::int64_t>(m.labels.get(), m.label_fspace.get(), H5T_NATIVE_INT64, info_, p);
}

Dataset::~Dataset() = default;

void Dataset::read(const std::vector<std::int64_t>& indices, float* images,
                   std::int32_t* labels) const {
  detail::silence_hdf5_errors();  // per thread: read() usually runs on the prefetch thread
  Impl& m = *impl_;
  const std::int64_t inumel = info_.image_numel();
  const std::int64_t lnumel = info_.label_numel();
  for (size_t k = 0; k < indices.size(); ++k) {
    const std::int64_t i = indices[k];
    SB_REQUIRE(i >= 0 && i < info_.n, "dataset {}: sample index {} out of range [0, {})", path_, i,
               info_.n);
    // One sample = one chunk [1, C, H, W] / [1, H, W] / [1] on disk.
    const hsize_t istart[4] = {static_cast<hsize_t>(i), 0, 0, 0};
    const hsize_t icount[4] = {1, static_cast<hsize_t>(info_.channels),
                               static_cast<hsize_t>(info_.height), static_cast<hsize_t>(info_.width)};
    const bool img_ok =
        H5Sselect_hyperslab(m.image_fspace.get(), H5S_SELECT_SET, istart, nullptr, icount, nullptr) >= 0 &&
        H5Dread(m.images.get(), H5T_NATIVE_FLOAT, m.image_mspace.get(), m.image_fspace.get(),
                H5P_DEFAULT, images + static_cast<std::int64_t>(k) * inumel) >= 0;
    SB_REQUIRE(img_ok, "dataset {}: cannot read /images sample {} (corrupt file?)", path_, i);

    const hsize_t lstart[3] = {static_cast<hsize_t>(i), 0, 0};
    const hsize_t lcount[3] = {1, static_cast<hsize_t>(info_.height), static_cast<hsize_t>(info_.width)};
    const bool lab_ok =
        H5Sselect_hyperslab(m.label_fspace.get(), H5S_SELECT_SET, lstart, nullptr, lcount, nullptr) >= 0 &&
        H5Dread(m.labels.get(), H5T_NATIVE_INT32, m.label_mspace.get(), m.label_fspace.get(),
                H5P_DEFAULT, labels + static_cast<std::int64_t>(k) * lnumel) >= 0;
    SB_REQUIRE(lab_ok, "dataset {}: cannot read /labels sample {} (corrupt file?)", path_, i);
  }
}

}  // namespace scalebench::data
