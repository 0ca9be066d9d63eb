// particle_writer.cpp — writes a generated dataset as HDF5 (schema: docs/data-format.md). The file
// is built under path + ".tmp" and renamed into place only when complete (commit_temp_file,
// kernels/common/write_file.h), so a failed or killed run never leaves a half-written file at
// `path`. Samples are generated and written one at a time ([1, 1, H, W] chunks), so memory stays at
// one sample whatever N is.
// It does not generate in parallel: 2000 samples of 128² take seconds on one core.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "harness/data/h5util.h"
#include "harness/data/particle_gen.h"
#include "harness/data/particles.h"
#include "kernels/common/check.h"
#include "kernels/common/write_file.h"

namespace scalebench::data {

using detail::H5Id;

namespace {

// Creates a chunked dataset of `rank` dims; labels (mostly zeros) are deflated when the filter is
// available, images (dense noise) stay raw: gzip would cost time and save little.
H5Id create_dataset(hid_t file, const char* name, hid_t type, int rank, const hsize_t* dims,
                    const hsize_t* chunk, bool deflate, const std::string& path) {
  H5Id space = detail::space_id(H5Screate_simple(rank, dims, nullptr));
  H5Id dcpl = detail::plist_id(H5Pcreate(H5P_DATASET_CREATE));
  SB_REQUIRE(space.valid() && dcpl.valid(), "datagen {}: cannot create dataspace for /{}", path, name);
  bool ok = H5Pset_chunk(dcpl.get(), rank, chunk) >= 0 &&
            H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) >= 0;
  if (deflate && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
    ok = ok && H5Pset_deflate(dcpl.get(), 1) >= 0;  // (shuffle is a no-op on 1-byte labels)
  SB_REQUIRE(ok, "datagen {}: cannot set the storage layout of /{}", path, name);
  H5Id d = detail::dset_id(
      H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
  SB_REQUIRE(d.valid(), "datagen {}: cannot create dataset /{}", path, name);
  return d;
}

// Writes sample i of a dataset whose samples are `rank`-dimensional slabs [1, ...].
void write_sample(const H5Id& d, hid_t memtype, int rank, const hsize_t* dims, std::int64_t i,
                  const void* buf, const std::string& path, const char* name) {
  hsize_t start[4] = {static_cast<hsize_t>(i), 0, 0, 0};
  hsize_t count[4] = {1, rank > 1 ? dims[1] : 1, rank > 2 ? dims[2] : 1, rank > 3 ? dims[3] : 1};
  H5Id fspace = detail::space_id(H5Dget_space(d.get()));
  // Memory shaped like the selection: HDF5 copies it as one block (a 1-D memory space would make
  // it walk the selection element by element).
  H5Id mspace = detail::space_id(H5Screate_simple(rank, count, nullptr));
  const bool ok = fspace.valid() && mspace.valid() &&
                  H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0 &&
                  H5Dwrite(d.get(), memtype, mspace.get(), fspace.get(), H5P_DEFAULT, buf) >= 0;
  SB_REQUIRE(ok, "datagen {}: cannot write /{} sample {}: {}", path, name, i,
             detail::io_error_text().empty() ? "HDF5 write failed" : detail::io_error_text());
}

}  // namespace

int generated_classes(Task task) { return task == Task::segmentation ? 3 : detail::kParticleKinds; }

namespace {

// Writes the samples into an open file; the datasets are the caller's, so that on a failure it can
// free the file's space before closing them (h5util.h: discard_file).
void write_samples(const GenConfig& cfg, hid_t f, H5Id& images, H5Id& labels, const std::string& path,
                   std::int64_t progress_every) {
  const bool seg = cfg.task == Task::segmentation;
  const auto s = static_cast<hsize_t>(cfg.size);
  const auto n = static_cast<hsize_t>(cfg.n);
  const bool attrs_ok =
      detail::write_string_attr(f, "schema", "scalebench-dataset") &&
      detail::write_int_attr(f, "schema_version", 1) &&
      detail::write_string_attr(f, "task", to_string(cfg.task)) &&
      detail::write_int_attr(f, "classes", generated_classes(cfg.task)) &&
      detail::write_string_attr(f, "class_names", seg ? detail::kPixelNames : detail::kParticleNames) &&
      detail::write_string_attr(f, "generator", "scalebench particle_gen 1") &&
      detail::write_uint_attr(f, "seed", cfg.seed) && detail::write_int_attr(f, "size", cfg.size);
  SB_REQUIRE(attrs_ok, "datagen {}: cannot write root attributes: {}", path, detail::io_error_text());

  const hsize_t idims[4] = {n, 1, s, s}, ichunk[4] = {1, 1, s, s};
  images = create_dataset(f, "images", H5T_IEEE_F32LE, 4, idims, ichunk, false, path);
  const hsize_t ldims[3] = {n, s, s};
  const hsize_t lchunk[3] = {1, s, s};
  const hsize_t cdims[1] = {n}, cchunk[1] = {std::min<hsize_t>(n, 4096)};
  labels = seg ? create_dataset(f, "labels", H5T_STD_U8LE, 3, ldims, lchunk, true, path)
               : create_dataset(f, "labels", H5T_STD_U8LE, 1, cdims, cchunk, false, path);

  std::vector<float> image(static_cast<size_t>(s * s));                  // [1, H, W]
  std::vector<std::int32_t> label(seg ? static_cast<size_t>(s * s) : 1);  // [H, W] or [1]
  std::vector<std::uint8_t> label8(label.size());
  for (std::int64_t i = 0; i < cfg.n; ++i) {
    generate_sample(cfg, i, image.data(), label.data());
    for (size_t k = 0; k < label.size(); ++k) label8[k] = static_cast<std::uint8_t>(label[k]);
    write_sample(images, H5T_NATIVE_FLOAT, 4, idims, i, image.data(), path, "images");
    if (seg)
      write_sample(labels, H5T_NATIVE_UINT8, 3, ldims, i, label8.data(), path, "labels");
    else
      write_sample(labels, H5T_NATIVE_UINT8, 1, cdims, i, label8.data(), path, "labels");
    if (progress_every > 0 && ((i + 1) % progress_every == 0 || i + 1 == cfg.n)) {
      std::printf("datagen: %lld/%lld samples\n", static_cast<long long>(i + 1),
                  static_cast<long long>(cfg.n));
      std::fflush(stdout);
    }
  }
}

void write_file(const GenConfig& cfg, const std::string& tmp, const std::string& path,
                std::int64_t progress_every) {
  H5Id file = detail::file_id(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  SB_REQUIRE(file.valid(), "datagen {}: cannot create {}: {}", path, tmp,
             detail::io_error_text().empty() ? "permissions or bad path?" : detail::io_error_text());
  H5Id images, labels;
  try {
    write_samples(cfg, file.get(), images, labels, path, progress_every);
  } catch (...) {
    detail::discard_file(file, {&images, &labels});
    throw;
  }
  // Flushing the chunks and metadata is where a full disk shows up.
  const std::string why = detail::finish_file(file, {&images, &labels});
  SB_REQUIRE(why.empty(), "datagen {}: cannot finish writing {}: {}", path, tmp, why);
}

}  // namespace

void write_dataset(const GenConfig& cfg, const std::string& path, std::int64_t progress_every) {
  namespace fs = std::filesystem;
  detail::silence_hdf5_errors();
  SB_REQUIRE(cfg.n >= 1, "datagen: --n {} must be >= 1", cfg.n);
  SB_REQUIRE(cfg.size >= 16 && cfg.size <= 4096, "datagen: --size {} outside 16..4096", cfg.size);
  SB_REQUIRE(!path.empty(), "datagen: empty output path");

  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    SB_REQUIRE(!ec, "datagen {}: cannot create directory {}: {}", path, parent.string(), ec.message());
  }
  const std::string tmp = temp_path_for(path);
  try {
    write_file(cfg, tmp, path, progress_every);
  } catch (...) {
    fs::remove(tmp, ec);  // never leave a partial file behind, under either name
    throw;
  }
  commit_temp_file(path, {.who = "datagen " + path});
}

}  // namespace scalebench::data
