// test_dataset_hostile.cpp — files made to hurt the reader (issue 15): a 6 KB file declaring 10^9
// images (the label scan read fill values for hours), a global heap whose object size was changed
// (libhdf5 copied past its buffers in H5HG_read: SIGSEGV from read_string_attr), a chunk index
// claiming less storage than any filter produces, and one sample larger than a scan block (the
// scan's buffer stays ~1 Mi labels). Each must fail with one line naming the file, or read right.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>

#include "data_test_util.h"
#include "harness/data/dataset.h"
#include "harness/data/particle_gen.h"

namespace sd = scalebench::data;
using sbtest::expect_error;
using sbtest::FileSpec;

namespace {

// A segmentation file whose datasets declare `n` samples of 32x32 and hold no chunk at all.
void write_sparse(const std::string& path, hsize_t n) {
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  sbtest::put_string_attr(f, "task", "segmentation");
  sbtest::put_int_attr(f, "classes", 3);
  const hsize_t idims[4] = {n, 1, 32, 32}, ichunk[4] = {1, 1, 32, 32};
  const hsize_t ldims[3] = {n, 32, 32}, lchunk[3] = {1, 32, 32};
  for (const auto& [name, rank, dims, chunk, type] :
       {std::tuple{"images", 4, idims, ichunk, H5T_IEEE_F32LE}, std::tuple{"labels", 3, ldims, lchunk, H5T_STD_U8LE}}) {
    hid_t s = H5Screate_simple(rank, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_GE(H5Pset_chunk(dcpl, rank, chunk), 0);
    hid_t d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
  }
  ASSERT_GE(H5Fclose(f), 0);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

std::uint64_t le64(const std::string& b, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + std::size_t(i)]);
  return v;
}

}  // namespace

TEST(DatasetHostile, SparseFileDeclaringBillionsOfImagesFailsAtOnce) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("sparse.h5");
  write_sparse(path, 1000000000);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  ASSERT_LT(std::filesystem::file_size(path), 16384u);
  const auto t0 = std::chrono::steady_clock::now();
  expect_error([&] { sd::Dataset ds(path); },
               {path, "/images declares", "1000000000 chunks but stores only 0", "sparse"});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(DatasetHostile, PartlyWrittenChunkedFileIsRefused) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file("partial.h5");
  write_sparse(path, 8);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  {  // write 3 of the 8 image chunks and every label
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "images", H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    const hsize_t start[4] = {0, 0, 0, 0}, count[4] = {3, 1, 32, 32};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr);
    hid_t ms = H5Screate_simple(4, count, nullptr);
    std::vector<float> v(3 * 32 * 32, 0.5f);
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, v.data()), 0);
    hid_t l = H5Dopen2(f, "labels", H5P_DEFAULT);
    std::vector<std::uint8_t> zeros(8 * 32 * 32, 0);
    ASSERT_GE(H5Dwrite(l, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()), 0);
    H5Dclose(l), H5Sclose(ms), H5Sclose(fs), H5Dclose(d), H5Fclose(f);
  }
  expect_error([&] { sd::Dataset ds(path); }, {path, "/images", "in 8 chunks but stores only 3 of them"});
}

TEST(DatasetHostile, CorruptGlobalHeapObjectSizeIsAnErrorNotACrash) {
  // The string attributes are variable-length: their characters live in a global heap collection
  // ("GCOL"). Object 2's size gains 2^32 * 20, as one mutated byte did.
  sbtest::ScratchDir dir;
  const std::string path = dir.file("heap.h5");
  sd::GenConfig cfg;
  cfg.n = 4;
  cfg.size = 16;
  sd::write_dataset(cfg, path, 0);
  std::string b = slurp(path);
  const std::size_t gcol = b.find("GCOL");
  ASSERT_NE(gcol, std::string::npos);
  const std::size_t obj1 = gcol + 16, size1 = le64(b, obj1 + 8);
  const std::size_t obj2 = obj1 + 16 + (size1 + 7) / 8 * 8;
  ASSERT_EQ(b[obj2], 2);  // object index 2
  b[obj2 + 8 + 4] = 20;
  spit(path, b);
  expect_error([&] { sd::Dataset ds(path); }, {path, "root attribute", "is not a string"});
}

TEST(DatasetHostile, EveryHeapByteChangedIsAnErrorOrReadsTheSameFile) {
  // Each byte of the heap collection's header and objects, flipped: never a crash or a hang.
  sbtest::ScratchDir dir;
  const std::string path = dir.file("ok.h5"), bad = dir.file("bad.h5");
  sd::GenConfig cfg;
  cfg.n = 4;
  cfg.size = 16;
  sd::write_dataset(cfg, path, 0);
  const std::string b = slurp(path);
  const std::size_t gcol = b.find("GCOL");
  ASSERT_NE(gcol, std::string::npos);
  int errors = 0;
  for (std::size_t k = gcol; k < gcol + 160 && k < b.size(); ++k) {
    std::string m = b;
    m[k] = char(m[k] ^ 0xff);
    spit(bad, m);
    try {
      sd::Dataset ds(bad);
    } catch (const scalebench::Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(DatasetHostile, ChunkIndexClaimingTooLittleStorageIsRefused) {
  // Labels in one deflated chunk; the chunk index then claims 1 stored byte for it (no filter
  // stores 64 KiB in one): refused before any label is read.
  sbtest::ScratchDir dir;
  const std::string path = dir.file("ratio.h5");
  FileSpec spec;
  spec.image_dims = {64, 1, 32, 32};
  spec.labels = false;
  sbtest::write_spec(path, spec);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  haddr_t addr = 0;
  hsize_t stored = 0;
  {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hsize_t dims[3] = {64, 32, 32};
    hid_t s = H5Screate_simple(3, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, dims);
    H5Pset_deflate(dcpl, 9);
    hid_t d = H5Dcreate2(f, "labels", H5T_STD_U8LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    std::vector<std::uint8_t> zeros(64 * 32 * 32, 0);
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()), 0);
    H5Dclose(d), H5Pclose(dcpl), H5Sclose(s), H5Fclose(f);
    f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "labels", H5P_DEFAULT);
    const hsize_t origin[3] = {0, 0, 0};
    unsigned mask = 0;
    ASSERT_GE(H5Dget_chunk_info_by_coord(d, origin, &mask, &addr, &stored), 0);
    H5Dclose(d), H5Fclose(f);
  }
  EXPECT_NO_THROW(sd::Dataset ok(path));
  // The v1 B-tree key of that chunk: u32 stored size, u32 filter mask, then the chunk's offsets
  // (0, 0, 0, 0), then its address.
  std::string b = slurp(path);
  std::string key(8 + 32 + 8, '\0');
  for (int i = 0; i < 4; ++i) key[std::size_t(i)] = char((stored >> (8 * i)) & 0xff);
  for (int i = 0; i < 8; ++i) key[std::size_t(40 + i)] = char((addr >> (8 * i)) & 0xff);
  const std::size_t at = b.find(key);
  ASSERT_NE(at, std::string::npos) << "chunk key not found";
  b[at] = 1, b[at + 1] = 0, b[at + 2] = 0, b[at + 3] = 0;
  spit(path, b);
  expect_error([&] { sd::Dataset ds(path); }, {path, "/labels declares 65536 bytes in 1 bytes of storage",
                                               "more than 2048:1"});
}

TEST(DatasetHostile, SampleLargerThanAScanBlockIsScannedInRows) {
  // 1100x1100 labels: 1.15 Mi per sample, more than one scan block; the bad label is in the last
  // row of the last sample, and the first two samples' last rows are fine.
  FileSpec big;
  big.image_dims = {3, 1, 1100, 1100};
  big.label_dims = {3, 1100, 1100};
  const std::size_t per = 1100 * 1100;
  big.label_value = [per](std::size_t i) { return i == 3 * per - 5 ? 9 : (i % per) % 3; };
  sbtest::ScratchDir dir;
  const std::string path = dir.file("big.h5");
  sbtest::write_spec(path, big);
  expect_error([&] { sd::Dataset ds(path); }, {path, "label 9 at sample 2 is outside [0, 3)"});
  big.label_value = [](std::size_t i) { return std::int64_t(i % 3); };
  sbtest::write_spec(path, big);
  sd::Dataset ok(path);
  EXPECT_EQ(ok.info().n, 3);
}

namespace {

// A datagen-shaped file ([4, 1, 16, 16] images in [1, 1, 16, 16] chunks), optionally in the newest
// format (object header v2, layout message v4), with the layout message's chunk dimension 2 set to
// 0 in the file's bytes. libhdf5 1.10 divided by it in H5Dopen2 (SIGFPE in H5D__chunk_set_info).
void expect_zero_chunk_dim_refused(bool latest) {
  sbtest::ScratchDir dir;
  const std::string path = dir.file(latest ? "v4.h5" : "v3.h5");
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  ASSERT_GE(f, 0);
  sbtest::put_string_attr(f, "task", "classification");
  sbtest::put_int_attr(f, "classes", 3);
  const hsize_t idims[4] = {4, 1, 16, 16}, ichunk[4] = {1, 1, 16, 16}, ldims[1] = {4};
  hid_t s = H5Screate_simple(4, idims, nullptr), ls = H5Screate_simple(1, ldims, nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 4, ichunk);
  hid_t d = H5Dcreate2(f, "images", H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  std::vector<float> v(4 * 256, 0.5f);
  H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  hid_t l = H5Dcreate2(f, "labels", H5T_STD_U8LE, ls, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const std::uint8_t lab[4] = {0, 1, 2, 0};
  H5Dwrite(l, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, lab);
  H5Dclose(l), H5Dclose(d), H5Pclose(dcpl), H5Sclose(ls), H5Sclose(s), H5Fclose(f), H5Pclose(fapl);
  EXPECT_NO_THROW(sd::Dataset ok(path));
  // The chunk dimensions 1, 1, 16, 16 and the element size 4, as 4-byte (v3) or 1-byte (v4) values.
  std::string b = slurp(path);
  const std::string dims = latest ? std::string("\x01\x01\x10\x10\x04", 5)
                                  : std::string("\x01\0\0\0\x01\0\0\0\x10\0\0\0\x10\0\0\0\x04\0\0\0", 20);
  const std::size_t at = b.find(dims);
  ASSERT_NE(at, std::string::npos);
  b[at + (latest ? 2 : 8)] = 0;
  spit(path, b);
  // (A v2 object header carries a checksum, which HDF5 checks before it decodes the layout.)
  expect_error([&] { sd::Dataset ds(path); },
               {path, latest ? "/images is not a dataset or cannot be opened" : "/images has a chunk dimension of 0"});
}

}  // namespace

TEST(DatasetHostile, ZeroChunkDimensionIsRefusedBeforeHdf5DividesByIt) {
  expect_zero_chunk_dim_refused(false);
  expect_zero_chunk_dim_refused(true);
}
