// test_h5io.cpp — Attrs and Tables through HDF5: typed round trip, empty tables, unknown members
// skipped, fixed-length strings read, and the atomic write leaving no temporary behind.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "harness/record/h5io.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"

using namespace scalebench::record;

TEST(H5io, AttrsAndTableRoundTrip) {
  sbtest::TempDir dir;
  const std::string path = dir / "t.h5";
  Attrs a;
  a.set("i", std::int64_t{-42});
  a.set("d", 2.5);
  a.set("nan", kNaN);
  a.set("s", std::string("µ-ünïcode, \"quoted\""));
  a.set("empty", "");
  Table t;
  for (int r = 0; r < 3; ++r) {
    Attrs row;
    row.set("n", r);
    row.set("x", 0.5 * r);
    row.set("name", "row" + std::to_string(r));
    t.append(row);
  }
  h5::write_file_atomically(path, [&](hid_t f) {
    h5::write_attrs(f, a, path);
    h5::write_table(f, "t", t, path);
    Table empty;
    empty.add("only", Column::Kind::f64);
    h5::write_table(f, "empty", empty, path);
  });
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto f = h5::open_for_read(path);
  const Attrs b = h5::read_attrs(f.get(), path);
  EXPECT_EQ(b.integer("i"), -42);
  EXPECT_DOUBLE_EQ(b.num("d"), 2.5);
  EXPECT_TRUE(std::isnan(b.num("nan")));
  EXPECT_EQ(b.str("s"), "µ-ünïcode, \"quoted\"");
  EXPECT_TRUE(b.has("empty"));
  EXPECT_EQ(b.str("empty"), "");
  const Table u = h5::read_table(f.get(), "t", path);
  ASSERT_EQ(u.rows(), 3u);
  EXPECT_EQ(u.find("n")->kind, Column::Kind::i64);
  EXPECT_EQ(u.find("name")->kind, Column::Kind::str);
  EXPECT_EQ(u.integer("n", 2), 2);
  EXPECT_DOUBLE_EQ(u.num("x", 1), 0.5);
  EXPECT_EQ(u.str("name", 2), "row2");
  EXPECT_TRUE(std::isnan(u.num("missing", 0)));  // absent columns read as empty values
  const Table e = h5::read_table(f.get(), "empty", path);
  EXPECT_EQ(e.rows(), 0u);
  ASSERT_NE(e.find("only"), nullptr);
}

TEST(H5io, ReadsFixedLengthStringsAndSkipsUnknownMembers) {
  // A table as another tool might write it: a fixed-length string member and an array member.
  sbtest::TempDir dir;
  const std::string path = dir / "foreign.h5";
  struct Row {
    char name[8];
    float v;
    int arr[2];
  };
  Row rows[2] = {{"alpha", 1.5f, {1, 2}}, {"beta", -2.0f, {3, 4}}};
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t s8 = H5Tcopy(H5T_C_S1);
  H5Tset_size(s8, 8);
  const hsize_t two = 2;
  hid_t arr = H5Tarray_create2(H5T_NATIVE_INT, 1, &two);
  hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(Row));
  H5Tinsert(ct, "name", HOFFSET(Row, name), s8);
  H5Tinsert(ct, "v", HOFFSET(Row, v), H5T_NATIVE_FLOAT);
  H5Tinsert(ct, "arr", HOFFSET(Row, arr), arr);
  hid_t sp = H5Screate_simple(1, &two, nullptr);
  hid_t ds = H5Dcreate2(f, "t", ct, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(H5Dwrite(ds, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
  H5Dclose(ds), H5Sclose(sp), H5Tclose(ct), H5Tclose(arr), H5Tclose(s8), H5Fclose(f);

  auto file = h5::open_for_read(path);
  const Table t = h5::read_table(file.get(), "t", path);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.str("name", 0), "alpha");
  EXPECT_EQ(t.str("name", 1), "beta");
  EXPECT_DOUBLE_EQ(t.num("v", 1), -2.0);
  EXPECT_EQ(t.find("arr"), nullptr);
}

TEST(H5io, OpenForReadNamesTheFile) {
  sbtest::TempDir dir;
  try {
    h5::open_for_read(dir / "nope.h5");
    FAIL() << "no error";
  } catch (const scalebench::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.h5: no such file"), std::string::npos) << e.what();
  }
  { std::FILE* f = std::fopen((dir / "text.h5").c_str(), "w"); std::fputs("hello", f); std::fclose(f); }
  EXPECT_THROW(h5::open_for_read(dir / "text.h5"), scalebench::Error);
}

TEST(H5io, FailedFillLeavesNoFileBehind) {
  sbtest::TempDir dir;
  const std::string path = dir / "x.h5";
  EXPECT_THROW(h5::write_file_atomically(path, [](hid_t) { throw scalebench::Error("boom"); }), scalebench::Error);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(H5io, DamagedStringHeapIsAnErrorNotACrash) {
  // A table's string cells (and string attributes) live in a global heap; every byte of its
  // objects' headers flipped in turn must read back or fail with an Error (libhdf5's own reader
  // copied past its buffers on such files).
  sbtest::TempDir dir;
  const std::string path = dir / "t.h5", bad = dir / "bad.h5";
  Table t;
  for (int r = 0; r < 3; ++r) {
    Attrs row;
    row.set("name", "row-name-" + std::to_string(r));
    t.append(row);
  }
  h5::write_file_atomically(path, [&](hid_t f) {
    Attrs a;
    a.set("s", std::string("a string attribute"));
    h5::write_attrs(f, a, path);
    h5::write_table(f, "t", t, path);
  });
  std::ifstream in(path, std::ios::binary);
  const std::string b{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::size_t gcol = b.find("GCOL");
  ASSERT_NE(gcol, std::string::npos);
  int errors = 0;
  for (std::size_t i = 0; i < 3 * 124; ++i) {
    const std::size_t k = gcol + 4 + i / 3;
    if (k >= b.size()) break;
    std::string m = b;
    m[k] = "\x00\xff\x14"[i % 3];
    std::ofstream(bad, std::ios::binary | std::ios::trunc) << m;
    try {
      auto f = h5::open_for_read(bad);
      h5::read_attrs(f.get(), bad);
      h5::read_table(f.get(), "t", bad);
    } catch (const scalebench::Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(Table, AppendWidensWithNewColumns) {
  Table t;
  Attrs a;
  a.set("x", 1.0);
  t.append(a);
  Attrs b;
  b.set("x", 2.0);
  b.set("tag", "late");
  t.append(b);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.str("tag", 0), "");
  EXPECT_EQ(t.str("tag", 1), "late");
  EXPECT_DOUBLE_EQ(t.num("x", 1), 2.0);
}
