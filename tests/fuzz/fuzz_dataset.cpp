// fuzz_dataset.cpp — the dataset reader as a fuzz target (see fuzz.h). Seeds: two files from the
// generator and structured variants written with the HDF5 C API — attributes of other types,
// lengths and values (fixed and variable-length strings, arrays, extremes), other ranks, extents,
// dtypes, layouts and filters, partly or never written data — which the byte mutations then damage.
// An accepted file must also read its first and last sample.
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz.h"
#include "harness/data/dataset.h"
#include "harness/data/particle_gen.h"
#include "kernels/common/check.h"

namespace sbfuzz {
namespace {

Bytes slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const Bytes& b) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(b.data(), std::streamsize(b.size()));
}

void put_attr(hid_t obj, const char* name, hid_t type, hsize_t n, const void* value) {
  hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) H5Awrite(a, type, value), H5Aclose(a);
  H5Sclose(space);
}

// A string attribute as variable- or fixed-length, scalar or an array of two, or an integer.
void put_string(hid_t obj, const char* name, const std::string& v, Rng& rng) {
  const std::size_t how = rng.below(6);
  if (how == 5) {
    const std::int64_t i = std::int64_t(rng.next());
    put_attr(obj, name, H5T_NATIVE_INT64, 1, &i);
    return;
  }
  hid_t t = H5Tcopy(H5T_C_S1);
  if (how <= 2) {  // variable length, as datagen and h5py write
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    const char* p[2] = {v.c_str(), v.c_str()};
    put_attr(obj, name, t, how == 2 ? 2 : 1, p);
  } else {
    H5Tset_size(t, v.size() + 1);
    std::string two = v + '\0' + v + '\0';
    put_attr(obj, name, t, how == 4 ? 2 : 1, two.data());
  }
  H5Tclose(t);
}

void put_int(hid_t obj, const char* name, std::int64_t v, Rng& rng) {
  switch (rng.below(5)) {
    case 0: {
      const double d = double(v) + 0.5;
      put_attr(obj, name, H5T_NATIVE_DOUBLE, 1, &d);
      break;
    }
    case 1: {
      const std::uint8_t u = std::uint8_t(v);
      put_attr(obj, name, H5T_NATIVE_UINT8, 1, &u);
      break;
    }
    case 2: {
      const std::int64_t two[2] = {v, v};
      put_attr(obj, name, H5T_NATIVE_INT64, 2, two);
      break;
    }
    default: put_attr(obj, name, H5T_NATIVE_INT64, 1, &v);
  }
}

// One dataset: `dims` declared, written completely, partly or not at all, chunked or not.
void put_dataset(hid_t f, const char* name, hid_t type, std::vector<hsize_t> dims, Rng& rng, int classes) {
  hid_t space = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  std::size_t numel = 1;
  for (hsize_t d : dims) numel *= std::size_t(d);
  // Chunked, or contiguous when small (a huge contiguous dataset partly written would make a huge
  // sparse file).
  if ((numel >= (1u << 22) || !rng.chance(4)) && !dims.empty() && numel > 0) {
    std::vector<hsize_t> chunk = dims;
    for (auto& c : chunk) c = c ? c : 1;
    chunk[0] = 1 + rng.below(2);
    H5Pset_chunk(dcpl, int(chunk.size()), chunk.data());
    if (rng.chance(2)) H5Pset_deflate(dcpl, 1);
    if (rng.chance(6)) H5Pset_fletcher32(dcpl);
  }
  hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  const std::size_t how = rng.below(8);  // 0: never written, 1: first sample only, else all
  if (d >= 0 && how > 0 && numel > 0 && numel < (1u << 16) && dims[0] <= 4096) {
    std::vector<double> v(numel);
    for (auto& x : v) x = rng.chance(50) ? double(int(rng.below(7)) - 2) : double(rng.below(std::size_t(classes)));
    if (how == 1 && dims[0] > 1) {
      hsize_t start[8] = {}, count[8] = {};
      for (std::size_t i = 0; i < dims.size(); ++i) count[i] = i ? dims[i] : 1;
      hid_t ms = H5Screate_simple(int(dims.size()), count, nullptr);
      H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
      H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, space, H5P_DEFAULT, v.data());
      H5Sclose(ms);
    } else {
      H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    }
  }
  if (d >= 0) H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
}

void write_variant(const std::string& path, Rng& rng) {
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const bool seg = rng.chance(2);
  const std::vector<std::string> tasks = {"segmentation", "classification", "", "detection", std::string(5000, 's')};
  if (!rng.chance(10)) put_string(f, "task", rng.chance(4) ? rng.pick(tasks) : tasks[seg ? 0 : 1], rng);
  const std::vector<std::int64_t> class_counts = {3, 5, 2, 1, 0, -1, 65536, 65537, std::int64_t(1) << 40};
  const std::int64_t classes = rng.chance(4) ? rng.pick(class_counts) : (seg ? 3 : 5);
  if (!rng.chance(10)) put_int(f, "classes", classes, rng);
  if (rng.chance(2)) {
    std::string names;
    const std::size_t k = std::size_t(std::max<std::int64_t>(0, std::min<std::int64_t>(classes, 70000))) + rng.below(3);
    for (std::size_t i = 0; i < k; ++i) {
      if (i) names += ',';
      names.append(1 + rng.below(3), char('a' + i % 26));
    }
    put_string(f, "class_names", names, rng);
  }
  if (rng.chance(3)) put_string(f, "schema", rng.chance(2) ? "scalebench-dataset" : "other", rng);
  if (rng.chance(3)) put_int(f, "schema_version", rng.chance(2) ? 1 : 2, rng);

  const std::vector<hsize_t> sizes = {8, 16, 1, 3, 32, 0};
  const hsize_t n = rng.chance(8) ? hsize_t(1) << (20 + rng.below(20)) : hsize_t(rng.below(6));
  const hsize_t c = rng.chance(6) ? rng.below(3) : 1, h = rng.chance(4) ? rng.pick(sizes) : 8;
  const hsize_t w = rng.chance(6) ? rng.pick(sizes) : h;
  std::vector<hsize_t> idims = {n, c, h, w};
  if (rng.chance(8)) idims.pop_back();
  if (rng.chance(8)) idims.push_back(2);
  const std::vector<hid_t> image_types = {H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_STD_U8LE};
  if (!rng.chance(12)) put_dataset(f, "images", rng.chance(5) ? rng.pick(image_types) : H5T_IEEE_F32LE, idims, rng, 4);
  std::vector<hsize_t> ldims = seg ? std::vector<hsize_t>{n, h, w} : std::vector<hsize_t>{n};
  if (rng.chance(8)) ldims = seg ? std::vector<hsize_t>{n} : std::vector<hsize_t>{n, h, w};
  if (rng.chance(10)) ldims[0] = n + 1;
  const std::vector<hid_t> label_types = {H5T_STD_U8LE, H5T_STD_I8LE, H5T_STD_I64BE, H5T_STD_U64LE, H5T_IEEE_F32LE,
                                          H5T_STD_U16LE};
  if (!rng.chance(12))
    put_dataset(f, "labels", rng.chance(4) ? rng.pick(label_types) : H5T_STD_U8LE, ldims, rng,
                int(std::max<std::int64_t>(1, std::min<std::int64_t>(classes, 8))));
  H5Fclose(f);
}

}  // namespace

Target dataset_target(const std::string& scratch) {
  Target t;
  t.name = "dataset";
  t.extension = ".h5";
  t.seeds = [scratch](Rng& rng) {
    std::vector<Bytes> out;
    const std::string path = scratch + "/seed.h5";
    for (auto task : {scalebench::data::Task::segmentation, scalebench::data::Task::classification}) {
      scalebench::data::GenConfig g;
      g.task = task;
      g.n = 4;
      g.size = 16;
      std::filesystem::remove(path);
      scalebench::data::write_dataset(g, path, 0);
      out.push_back(slurp(path));
    }
    for (int i = 0; i < 40; ++i) {
      write_variant(path, rng);
      if (std::filesystem::file_size(path) <= (1u << 20)) out.push_back(slurp(path));
    }
    return out;
  };
  t.mutate = [](Bytes& b, Rng& rng, const std::vector<Bytes>& seeds) {
    for (std::size_t k = 1 + rng.below(4); k > 0; --k) mutate_bytes(b, rng, seeds);
  };
  t.run = [scratch](const Bytes& b) {
    const std::string path = scratch + "/input.h5";
    spit(path, b);
    scalebench::data::Dataset ds(path);
    const auto& info = ds.info();
    if (info.n <= 0) return;
    std::vector<float> images(std::size_t(info.image_numel()));
    std::vector<std::int32_t> labels(std::size_t(info.label_numel()));
    ds.read({0}, images.data(), labels.data());
    ds.read({info.n - 1}, images.data(), labels.data());
  };
  return t;
}

}  // namespace sbfuzz
