// harness_test_util.h — helpers for the tests: a temporary folder removed at the end, running the
// scalebench binary (SB_BINARY, set by tests/CMakeLists.txt), and the message of the error a call throws.
#pragma once

#include <stdlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "kernels/common/check.h"

namespace sbtest {

// The message of the scalebench::Error that f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const scalebench::Error& e) {
    return e.what();
  }
  return "(no error)";
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sb_test_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs a shell command, returns its exit status and stdout+stderr.
inline int run(const std::string& cmd, std::string* output = nullptr) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf{};
  std::string out;
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(p);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace sbtest
