// build_info.h — the git sha the binary was configured from. Defined in a file CMake generates at
// configure time (kernels/common/build_info.cpp.in → <build>/generated/build_info.cpp), so a new
// commit recompiles that one file instead of every object (a compile definition on sb_common did:
// it reached every target's command line). The version stays the SCALEBENCH_VERSION definition.
#pragma once

namespace scalebench {

const char* build_git_sha();  // "unknown" when configured outside a git checkout

}  // namespace scalebench
