// data_test_util.h — helpers for the data room's tests: a scratch directory removed afterwards, a
// hand-rolled HDF5 writer for files the generator would never produce (wrong ranks, dtypes,
// missing attributes, corrupt chunks), and an assertion on one-line error messages.
// Not a second dataset writer: valid files come from write_dataset.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/common/check.h"

namespace sbtest {

// A fresh directory per test, removed with everything in it when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // one directory, not a tree: a parameterised test's name holds a '/' ("Name/prefetch0"), and
    // the directory above it would outlive remove_all below
    std::string name = info ? info->name() : "x";
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::temp_directory_path() /
            ("sb_data_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + name);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// What to put in a hand-made dataset file. Defaults describe a valid 4-sample 8x8 segmentation
// file with 3 classes.
struct FileSpec {
  std::optional<std::string> task = "segmentation";
  std::optional<std::int64_t> classes = 3;
  std::optional<std::string> class_names;
  std::optional<std::string> schema;
  std::optional<std::int64_t> schema_version;
  bool images = true, labels = true;
  std::vector<hsize_t> image_dims = {4, 1, 8, 8};
  hid_t image_type = H5T_IEEE_F32LE;
  std::vector<hsize_t> label_dims = {4, 8, 8};
  hid_t label_type = H5T_STD_U8LE;
  std::function<std::int64_t(std::size_t)> label_value = [](std::size_t) { return 0; };
  bool fletcher32 = false;  // checksum the image chunks (to detect deliberate corruption)
};

inline void put_string_attr(hid_t obj, const char* name, const std::string& v) {
  hid_t t = H5Tcopy(H5T_C_S1);
  ASSERT_GE(H5Tset_size(t, v.size() + 1), 0);
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(a, 0);
  ASSERT_GE(H5Awrite(a, t, v.c_str()), 0);
  H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
}

inline void put_int_attr(hid_t obj, const char* name, std::int64_t v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(a, 0);
  ASSERT_GE(H5Awrite(a, H5T_NATIVE_INT64, &v), 0);
  H5Aclose(a);
  H5Sclose(s);
}

inline void write_spec(const std::string& path, const FileSpec& spec) {
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0) << path;
  if (spec.task) put_string_attr(f, "task", *spec.task);
  if (spec.classes) put_int_attr(f, "classes", *spec.classes);
  if (spec.class_names) put_string_attr(f, "class_names", *spec.class_names);
  if (spec.schema) put_string_attr(f, "schema", *spec.schema);
  if (spec.schema_version) put_int_attr(f, "schema_version", *spec.schema_version);

  auto numel = [](const std::vector<hsize_t>& d) {
    std::size_t n = 1;
    for (hsize_t v : d) n *= v;
    return n;
  };
  if (spec.images) {
    hid_t s = H5Screate_simple(static_cast<int>(spec.image_dims.size()), spec.image_dims.data(), nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    std::vector<hsize_t> chunk = spec.image_dims;
    chunk[0] = 1;
    ASSERT_GE(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()), 0);
    if (spec.fletcher32) {
      ASSERT_GE(H5Pset_fletcher32(dcpl), 0);
    }
    hid_t d = H5Dcreate2(f, "images", spec.image_type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    std::vector<float> v(numel(spec.image_dims));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 97) * 0.25f;
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
  }
  if (spec.labels) {
    hid_t s = H5Screate_simple(static_cast<int>(spec.label_dims.size()), spec.label_dims.data(), nullptr);
    hid_t d = H5Dcreate2(f, "labels", spec.label_type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    std::vector<std::int64_t> v(numel(spec.label_dims));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = spec.label_value(i);
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    H5Dclose(d);
    H5Sclose(s);
  }
  ASSERT_GE(H5Fclose(f), 0);
}

// Overwrites the stored bytes of sample k's image chunk (the file must use chunked /images).
inline void corrupt_image_chunk(const std::string& path, hsize_t k) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  hid_t d = H5Dopen2(f, "images", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  const hsize_t offset[4] = {k, 0, 0, 0};
  unsigned mask = 0;
  haddr_t addr = 0;
  hsize_t size = 0;
  ASSERT_GE(H5Dget_chunk_info_by_coord(d, offset, &mask, &addr, &size), 0);
  H5Dclose(d);
  H5Fclose(f);
  ASSERT_GT(size, 0u);
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
  io.seekp(static_cast<std::streamoff>(addr));
  const std::string junk(static_cast<std::size_t>(size / 2), '\x5a');
  io.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  ASSERT_TRUE(io.good());
}

// Runs fn, expects a scalebench::Error whose message is one line and contains every needle.
template <class Fn>
void expect_error(Fn&& fn, const std::vector<std::string>& needles) {
  try {
    fn();
    ADD_FAILURE() << "expected scalebench::Error containing '" << needles.front() << "'";
  } catch (const scalebench::Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "multi-line error: " << msg;
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
  }
}

}  // namespace sbtest
