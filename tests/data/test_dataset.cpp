// test_dataset.cpp — writer → reader round trip: write_dataset's file layout and attributes, the
// atomic tmp-then-rename, progress lines, and Dataset::read returning exactly the generated
// samples. Bad files are in test_dataset_errors.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "data_test_util.h"
#include "harness/data/dataset.h"
#include "harness/data/particle_gen.h"

namespace sd = scalebench::data;
namespace fs = std::filesystem;

namespace {

std::string string_attr(hid_t f, const char* name) {
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  if (a < 0) return "<missing>";
  hid_t ft = H5Aget_type(a);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5Tget_cset(ft));  // datagen writes UTF-8; HDF5 will not convert ASCII<->UTF-8
  H5Tclose(ft);
  char* v = nullptr;
  std::string out = H5Aread(a, t, &v) >= 0 && v ? v : "<unreadable>";
  H5free_memory(v);
  H5Tclose(t);
  H5Aclose(a);
  return out;
}

std::int64_t int_attr(hid_t f, const char* name) {
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  if (a < 0) return -999;
  std::int64_t v = -998;
  H5Aread(a, H5T_NATIVE_INT64, &v);
  H5Aclose(a);
  return v;
}

}  // namespace

TEST(Dataset, SegmentationRoundTrip) {
  sbtest::ScratchDir dir;
  sd::GenConfig cfg;
  cfg.n = 6;
  cfg.size = 32;
  cfg.seed = 77;
  const std::string path = dir.file("sub/dir/seg.h5");  // parents are created
  sd::write_dataset(cfg, path, 0);
  ASSERT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));

  sd::Dataset ds(path);
  const auto& info = ds.info();
  EXPECT_EQ(info.task, sd::Task::segmentation);
  EXPECT_EQ(info.n, 6);
  EXPECT_EQ(info.channels, 1);
  EXPECT_EQ(info.height, 32);
  EXPECT_EQ(info.width, 32);
  EXPECT_EQ(info.classes, 3);
  EXPECT_EQ(info.class_names, (std::vector<std::string>{"background", "shower", "track"}));
  EXPECT_EQ(ds.path(), path);

  // Out of order, with a repeat: each slot holds exactly the generated sample.
  const std::vector<std::int64_t> idx = {4, 0, 4, 5};
  std::vector<float> images(idx.size() * 32 * 32);
  std::vector<std::int32_t> labels(idx.size() * 32 * 32);
  ds.read(idx, images.data(), labels.data());
  for (size_t k = 0; k < idx.size(); ++k) {
    std::vector<float> img(32 * 32);
    std::vector<std::int32_t> lab(32 * 32);
    sd::generate_sample(cfg, idx[k], img.data(), lab.data());
    EXPECT_EQ(std::memcmp(img.data(), images.data() + k * 1024, 1024 * sizeof(float)), 0) << k;
    EXPECT_TRUE(std::equal(lab.begin(), lab.end(), labels.begin() + static_cast<std::ptrdiff_t>(k * 1024)))
        << k;
  }
}

TEST(Dataset, ClassificationRoundTrip) {
  sbtest::ScratchDir dir;
  sd::GenConfig cfg;
  cfg.task = sd::Task::classification;
  cfg.n = 10;
  cfg.size = 16;
  const std::string path = dir.file("cls.h5");
  sd::write_dataset(cfg, path, 0);
  sd::Dataset ds(path);
  EXPECT_EQ(ds.info().task, sd::Task::classification);
  EXPECT_EQ(ds.info().classes, 5);
  EXPECT_EQ(ds.info().label_numel(), 1);
  EXPECT_EQ(ds.info().class_names,
            (std::vector<std::string>{"electron", "photon", "muon", "proton", "pion"}));
  std::vector<std::int64_t> idx = {9, 3, 0};
  std::vector<float> images(3 * 256);
  std::vector<std::int32_t> labels(3, -1);
  ds.read(idx, images.data(), labels.data());
  EXPECT_EQ(labels, (std::vector<std::int32_t>{4, 3, 0}));
  std::vector<float> img(256);
  std::int32_t lab = -1;
  sd::generate_sample(cfg, 3, img.data(), &lab);
  EXPECT_EQ(std::memcmp(img.data(), images.data() + 256, 256 * sizeof(float)), 0);
}

TEST(Dataset, FileLayoutAndAttributes) {
  sbtest::ScratchDir dir;
  sd::GenConfig cfg;
  cfg.n = 3;
  cfg.size = 24;
  cfg.seed = 12345;
  const std::string path = dir.file("a.h5");
  sd::write_dataset(cfg, path, 0);

  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  EXPECT_EQ(string_attr(f, "schema"), "scalebench-dataset");
  hid_t a = H5Aopen(f, "task", H5P_DEFAULT), t = H5Aget_type(a);
  EXPECT_GT(H5Tis_variable_str(t), 0);  // h5py reads variable-length UTF-8 as str
  EXPECT_EQ(H5Tget_cset(t), H5T_CSET_UTF8);
  H5Tclose(t);
  H5Aclose(a);
  EXPECT_EQ(int_attr(f, "schema_version"), 1);
  EXPECT_EQ(string_attr(f, "task"), "segmentation");
  EXPECT_EQ(int_attr(f, "classes"), 3);
  EXPECT_EQ(string_attr(f, "class_names"), "background,shower,track");
  EXPECT_EQ(string_attr(f, "generator"), "scalebench particle_gen 1");
  EXPECT_EQ(int_attr(f, "seed"), 12345);
  EXPECT_EQ(int_attr(f, "size"), 24);

  // /images float32 [N,1,H,W] chunked per sample; /labels uint8 [N,H,W] chunked per sample.
  hid_t im = H5Dopen2(f, "images", H5P_DEFAULT);
  hid_t lb = H5Dopen2(f, "labels", H5P_DEFAULT);
  ASSERT_GE(im, 0);
  ASSERT_GE(lb, 0);
  hid_t it = H5Dget_type(im), lt = H5Dget_type(lb);
  EXPECT_GT(H5Tequal(it, H5T_IEEE_F32LE), 0);
  EXPECT_GT(H5Tequal(lt, H5T_STD_U8LE), 0);
  hid_t ip = H5Dget_create_plist(im), lp = H5Dget_create_plist(lb);
  hsize_t ichunk[4] = {}, lchunk[3] = {};
  EXPECT_EQ(H5Pget_chunk(ip, 4, ichunk), 4);
  EXPECT_EQ(H5Pget_chunk(lp, 3, lchunk), 3);
  EXPECT_EQ(std::vector<hsize_t>(ichunk, ichunk + 4), (std::vector<hsize_t>{1, 1, 24, 24}));
  EXPECT_EQ(std::vector<hsize_t>(lchunk, lchunk + 3), (std::vector<hsize_t>{1, 24, 24}));
  H5Pclose(ip);
  H5Pclose(lp);
  H5Tclose(it);
  H5Tclose(lt);
  H5Dclose(im);
  H5Dclose(lb);
  H5Fclose(f);
}

TEST(Dataset, ProgressLines) {
  sbtest::ScratchDir dir;
  sd::GenConfig cfg;
  cfg.n = 7;
  cfg.size = 16;
  testing::internal::CaptureStdout();
  sd::write_dataset(cfg, dir.file("p.h5"), 3);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "datagen: 3/7 samples\ndatagen: 6/7 samples\ndatagen: 7/7 samples\n");
}

TEST(Dataset, OverwritesAnExistingFileAtomically) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("x.h5");
  { std::ofstream(path) << "old contents"; }
  sd::GenConfig cfg;
  cfg.n = 2;
  cfg.size = 16;
  sd::write_dataset(cfg, path, 0);
  EXPECT_EQ(sd::Dataset(path).info().n, 2);
}

TEST(Dataset, FailedWriteLeavesNothingBehind) {
  sbtest::ScratchDir dir;
  sd::GenConfig cfg;
  cfg.n = 2;
  cfg.size = 16;
  // The target is an existing directory: the data is written to x.tmp, the rename fails.
  const std::string path = dir.file("target");
  fs::create_directories(path + "/inside");
  sbtest::expect_error([&] { sd::write_dataset(cfg, path, 0); }, {path, "cannot rename"});
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_TRUE(fs::is_directory(path));

  // The parent "directory" is a regular file.
  const std::string blocker = dir.file("blocker");
  { std::ofstream(blocker) << "x"; }
  sbtest::expect_error([&] { sd::write_dataset(cfg, blocker + "/d.h5", 0); },
                       {blocker, "cannot create directory"});

  cfg.n = 0;
  sbtest::expect_error([&] { sd::write_dataset(cfg, dir.file("n.h5"), 0); }, {"--n 0"});
  EXPECT_FALSE(fs::exists(dir.file("n.h5")));
  EXPECT_FALSE(fs::exists(dir.file("n.h5.tmp")));
}

TEST(Dataset, ReaderAcceptsOtherIntegerLabelTypesAndNoSchemaAttrs) {
  // A file imported from elsewhere: int16 labels, no schema/schema_version attributes.
  sbtest::ScratchDir dir;
  sbtest::FileSpec spec;
  spec.label_type = H5T_STD_I16BE;
  spec.label_value = [](size_t i) { return static_cast<std::int64_t>(i % 3); };
  const std::string path = dir.file("imported.h5");
  sbtest::write_spec(path, spec);
  sd::Dataset ds(path);
  EXPECT_EQ(ds.info().class_names, (std::vector<std::string>{"class0", "class1", "class2"}));
  std::vector<float> images(64);
  std::vector<std::int32_t> labels(64);
  ds.read({1}, images.data(), labels.data());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(labels[static_cast<size_t>(i)], (64 + i) % 3);
  EXPECT_FLOAT_EQ(images[5], static_cast<float>((64 + 5) % 97) * 0.25f);
}
