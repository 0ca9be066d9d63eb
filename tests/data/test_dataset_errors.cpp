// test_dataset_errors.cpp — every bad input the reader validates at open (and the read-time
// failures it cannot see at open) gives one scalebench::Error line naming the file and the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "data_test_util.h"
#include "harness/data/dataset.h"
#include "harness/data/particle_gen.h"

namespace sd = scalebench::data;
namespace fs = std::filesystem;
using sbtest::expect_error;
using sbtest::FileSpec;

namespace {

// Writes `spec` to a scratch file and expects opening it to fail with the needles.
void expect_open_error(const FileSpec& spec, const std::vector<std::string>& needles) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("bad.h5");
  sbtest::write_spec(path, spec);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  std::vector<std::string> all = needles;
  all.insert(all.begin(), path);
  expect_error([&] { sd::Dataset ds(path); }, all);
}

}  // namespace

TEST(DatasetErrors, ValidHandMadeFileOpens) {
  // The baseline every case below breaks in one way.
  sbtest::ScratchDir dir;
  sbtest::write_spec(dir.file("ok.h5"), FileSpec{});
  EXPECT_EQ(sd::Dataset(dir.file("ok.h5")).info().n, 4);
}

TEST(DatasetErrors, MissingFile) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("nope.h5");
  expect_error([&] { sd::Dataset ds(path); }, {path, "file not found"});
  expect_error([&] { sd::Dataset ds(dir.path().string()); }, {"not a regular file"});
}

TEST(DatasetErrors, NotAnHdf5File) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("text.h5");
  { std::ofstream(path) << "this is not hdf5\n" << std::string(4096, 'x'); }
  expect_error([&] { sd::Dataset ds(path); }, {path, "not an HDF5 file"});
  const std::string empty = dir.file("empty.h5");
  { std::ofstream{empty}; }
  expect_error([&] { sd::Dataset ds(empty); }, {empty, "not an HDF5 file"});
}

TEST(DatasetErrors, TruncatedFile) {
  sbtest::ScratchDir dir;
  sd::GenConfig cfg;
  cfg.n = 8;
  cfg.size = 32;
  const std::string path = dir.file("trunc.h5");
  sd::write_dataset(cfg, path, 0);
  fs::resize_file(path, fs::file_size(path) / 2);
  expect_error([&] { sd::Dataset ds(path); }, {path, "truncated or corrupt"});
}

TEST(DatasetErrors, MissingDatasets) {
  FileSpec no_images;
  no_images.images = false;
  expect_open_error(no_images, {"missing dataset /images"});
  FileSpec no_labels;
  no_labels.labels = false;
  expect_open_error(no_labels, {"missing dataset /labels"});
}

TEST(DatasetErrors, WrongImageRankOrDtype) {
  FileSpec rank3;
  rank3.image_dims = {4, 8, 8};
  expect_open_error(rank3, {"/images has rank 3, expected 4"});
  FileSpec f64;
  f64.image_type = H5T_IEEE_F64LE;
  expect_open_error(f64, {"/images has dtype float64, expected float32"});
  FileSpec ints;
  ints.image_type = H5T_STD_U8LE;
  expect_open_error(ints, {"/images has dtype uint8, expected float32"});
}

TEST(DatasetErrors, WrongLabelRankOrDtype) {
  FileSpec floats;
  floats.label_type = H5T_IEEE_F32LE;
  expect_open_error(floats, {"/labels has dtype float32, expected an integer type"});
  FileSpec seg_rank1;
  seg_rank1.label_dims = {4};
  expect_open_error(seg_rank1, {"/labels has rank 1, expected 3", "segmentation"});
  FileSpec cls_rank3;
  cls_rank3.task = "classification";
  expect_open_error(cls_rank3, {"/labels has rank 3, expected 1", "classification"});
}

TEST(DatasetErrors, SampleCountOrSizeMismatch) {
  FileSpec n_mismatch;
  n_mismatch.label_dims = {3, 8, 8};
  expect_open_error(n_mismatch, {"/images has 4 samples but /labels has 3"});
  FileSpec hw_mismatch;
  hw_mismatch.label_dims = {4, 8, 7};
  expect_open_error(hw_mismatch, {"/labels samples are 8x7 but /images samples are 8x8"});
}

TEST(DatasetErrors, TaskAndClassAttributes) {
  FileSpec unknown;
  unknown.task = "detection";
  expect_open_error(unknown, {"unknown task 'detection'"});
  FileSpec missing;
  missing.task.reset();
  expect_open_error(missing, {"missing root attribute 'task'"});
  FileSpec no_classes;
  no_classes.classes.reset();
  expect_open_error(no_classes, {"missing root attribute 'classes'"});
  FileSpec one_class;
  one_class.classes = 1;
  expect_open_error(one_class, {"classes = 1"});
  FileSpec names;
  names.class_names = "a,b";
  expect_open_error(names, {"class_names lists 2 names but classes = 3"});
  FileSpec schema;
  schema.schema = "something-else";
  expect_open_error(schema, {"schema = 'something-else'"});
  FileSpec version;
  version.schema_version = 2;
  expect_open_error(version, {"unsupported schema_version 2"});
}

// A damaged file's text attributes hold any bytes: what the reader shows of them (in an error, or
// the class names that train prints per epoch and a run file records) is printable ASCII, every
// other byte as \xNN, so a terminal or a log never receives the raw bytes.
TEST(DatasetErrors, DamagedAttributeBytesAreShownEscaped) {
  const std::string raw = "seg\xc3\x28\x1b[31m\x7f\xff";
  FileSpec task;
  task.task = raw;
  expect_open_error(task, {"unknown task 'seg\\xc3(\\x1b[31m\\x7f\\xff'"});
  FileSpec schema;
  schema.schema = raw;
  expect_open_error(schema, {"schema = 'seg\\xc3(\\x1b[31m\\x7f\\xff'"});
  sbtest::ScratchDir dir;
  const std::string path = dir.file("names.h5");
  FileSpec names;
  names.class_names = "back\xe9,\x1b]0;x\x07,track";
  sbtest::write_spec(path, names);
  const sd::Dataset ds(path);
  EXPECT_EQ(ds.info().class_names, (std::vector<std::string>{"back\\xe9", "\\x1b]0;x\\x07", "track"}));
}

TEST(DatasetErrors, LabelOutOfRangeNamesSampleAndValue) {
  FileSpec high;  // sample 2 (flat 2*64 + 10) holds 3 with classes = 3
  high.label_value = [](size_t i) { return i == 2 * 64 + 10 ? 3 : 1; };
  expect_open_error(high, {"label 3 at sample 2 is outside [0, 3)"});
  FileSpec negative;
  negative.label_type = H5T_STD_I8LE;
  negative.label_value = [](size_t i) { return i >= 64 + 63 ? -1 : 0; };
  expect_open_error(negative, {"label -1 at sample 1 is outside [0, 3)"});
  FileSpec cls;  // classification: first offending sample is named even when later ones are bad too
  cls.task = "classification";
  cls.classes = 5;
  cls.label_dims = {4};
  cls.label_value = [](size_t i) { return i >= 2 ? 200 : 4; };
  expect_open_error(cls, {"label 200 at sample 2 is outside [0, 5)"});
}

TEST(DatasetErrors, LabelScanCoversLargeFiles) {
  // More samples than one scan block (1 Mi labels): a bad label in the last sample is found.
  FileSpec big;
  big.image_dims = {40, 1, 256, 256};
  big.label_dims = {40, 256, 256};
  big.label_value = [](size_t i) { return i == 40u * 65536u - 1 ? 7 : 0; };
  expect_open_error(big, {"label 7 at sample 39"});
}

TEST(DatasetErrors, CorruptChunkFailsAtReadNamingTheSample) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("corrupt.h5");
  FileSpec spec;
  spec.fletcher32 = true;
  sbtest::write_spec(path, spec);
  sbtest::corrupt_image_chunk(path, 2);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  sd::Dataset ds(path);  // labels are fine: open succeeds
  std::vector<float> images(64);
  std::vector<std::int32_t> labels(64);
  ds.read({1}, images.data(), labels.data());
  expect_error([&] { ds.read({2}, images.data(), labels.data()); }, {path, "/images sample 2"});
  expect_error([&] { ds.read({4}, images.data(), labels.data()); }, {path, "sample index 4 out of range"});
}
