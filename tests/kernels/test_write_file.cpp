// test_write_file.cpp — write_file_atomically (kernels/common/write_file.h): it writes and replaces
// a file whole, leaves no temporary file behind on success or failure, calls the crash-test stages
// with the old file still in place, and a folder it cannot write to gives one error naming the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernels/common/write_file.h"
#include "tests/common/harness_test_util.h"

namespace {

namespace fs = std::filesystem;
using scalebench::AtomicWrite;
using scalebench::write_file_atomically;

std::string contents(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(WriteFile, WritesAndReplacesWholeAndLeavesNoTemporaryFile) {
  sbtest::TempDir d;
  const std::string path = d / "a.json";
  write_file_atomically(path, "first\n");
  EXPECT_EQ(contents(path), "first\n");
  write_file_atomically(path, std::string("sec\0ond", 7), {.durable = false});  // bytes, not C strings
  EXPECT_EQ(contents(path), std::string("sec\0ond", 7));
  write_file_atomically(path, "");
  EXPECT_EQ(contents(path), "");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path()), fs::directory_iterator()), 1);
  // a stale temporary file of a killed writer is overwritten, not appended to
  std::ofstream(path + ".tmp") << "stale stale stale";
  write_file_atomically(path, "third");
  EXPECT_EQ(contents(path), "third");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(WriteFile, TheOldFileStaysUntilTheRename) {
  sbtest::TempDir d;
  const std::string path = d / "f";
  write_file_atomically(path, "old");
  std::vector<std::string> seen;
  AtomicWrite how;
  how.stage = [&](std::string_view stage) {
    seen.emplace_back(stage);
    EXPECT_EQ(contents(path), "old") << stage;  // a reader, or a crash now, finds the old file whole
    EXPECT_TRUE(fs::exists(path + ".tmp")) << stage;
  };
  write_file_atomically(path, "new bytes", how);
  EXPECT_EQ(seen, (std::vector<std::string>{"half-written", "before-rename"}));
  EXPECT_EQ(contents(path), "new bytes");
}

TEST(WriteFile, AFolderItCannotWriteToIsOneLineNamingTheFile) {
  sbtest::TempDir d;
  const std::string missing = d / "no/such/folder/f.json";
  std::string e = sbtest::error_of([&] { write_file_atomically(missing, "x", {.who = "--trace"}); });
  EXPECT_EQ(e.rfind("--trace: cannot create " + missing + ".tmp: No such file or directory", 0), 0u) << e;
  // a file where the folder should be
  std::ofstream(d / "plain") << "x";
  e = sbtest::error_of([&] { write_file_atomically(d / "plain/f.json", "x"); });
  EXPECT_NE(e.find(d / "plain/f.json.tmp"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  // the target is a folder: the rename fails, and the temporary file goes with it
  fs::create_directories(d / "dir");
  e = sbtest::error_of([&] { write_file_atomically(d / "dir", "x"); });
  EXPECT_NE(e.find("cannot rename " + (d / "dir.tmp") + " to " + (d / "dir")), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(d / "dir.tmp"));
  // a folder without write permission (root writes anyway: checked only for other users)
  if (::geteuid() != 0) {
    fs::create_directories(d / "ro");
    fs::permissions(d / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    e = sbtest::error_of([&] { write_file_atomically(d / "ro/f", "x"); });
    EXPECT_NE(e.find(d / "ro/f.tmp"), std::string::npos) << e;
    EXPECT_NE(e.find("Permission denied"), std::string::npos) << e;
    fs::permissions(d / "ro", fs::perms::owner_all);
  }
}

TEST(WriteFile, CommitRenamesAFileItsWriterFilled) {
  sbtest::TempDir d;
  const std::string path = d / "data.h5";
  std::ofstream(scalebench::temp_path_for(path)) << "filled by HDF5";
  scalebench::commit_temp_file(path, {.who = "datagen " + path});
  EXPECT_EQ(contents(path), "filled by HDF5");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  const std::string e = sbtest::error_of([&] { scalebench::commit_temp_file(path); });  // nothing to commit
  EXPECT_NE(e.find(path + ".tmp"), std::string::npos) << e;
}

TEST(WriteFile, ErrnoTextSaysDiskFull) {
  EXPECT_EQ(scalebench::errno_text(ENOSPC), "disk full (No space left on device)");
  EXPECT_EQ(scalebench::errno_text(0), "");
}

}  // namespace

namespace {

// Writers on several hosts of a shared file system (the NCCL unique-id file): each writes its own
// temporary file (host and pid in its name), so a stale ".tmp" of another writer is left alone and
// the target is still replaced whole.
TEST(WriteFile, PerWriterTemporaryFilesLeaveOthersAlone) {
  sbtest::TempDir d;
  const std::string path = d / "id";
  std::ofstream(path + ".tmp") << "another writer's";
  write_file_atomically(path, "mine\n", {.who = "id file", .durable = false, .per_writer_temp = true});
  EXPECT_EQ(contents(path), "mine\n");
  EXPECT_EQ(contents(path + ".tmp"), "another writer's");
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path()), fs::directory_iterator()), 2);  // no temp of ours
  const std::string e = sbtest::error_of([&] {
    write_file_atomically(d / "missing/id", "x", {.who = "id file", .per_writer_temp = true});
  });
  EXPECT_NE(e.find("id file: cannot create " + (d / "missing/id.tmp.")), std::string::npos) << e;
}

}  // namespace
