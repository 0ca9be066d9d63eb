// read_file.cpp — read_text_file (see read_file.h).
#include "kernels/common/read_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernels/common/check.h"

namespace scalebench {

std::string read_text_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  SB_REQUIRE(!std::filesystem::is_directory(path, ec), "{}: {}", what, std::strerror(EISDIR));
  std::ifstream in(path, std::ios::binary);
  SB_REQUIRE(in, "{}: {}", what, std::strerror(errno ? errno : EIO));
  std::stringstream ss;
  ss << in.rdbuf();
  SB_REQUIRE(!in.bad(), "{}: {}", what, std::strerror(errno ? errno : EIO));
  return ss.str();
}

}  // namespace scalebench
