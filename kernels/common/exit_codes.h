// exit_codes.h — the exit statuses of `scalebench` as an enum and a table, both made from
// exit_codes.def (the one description). `stopped` is the base of 128 + signal. Not here: which
// subcommand returns which (main.cpp and the rooms decide, naming these).
#pragma once

#include <array>
#include <string_view>

namespace scalebench {

enum class ExitCode : int {
#define SB_EXIT(name, code, meaning) name = code,
#include "kernels/common/exit_codes.def"
#undef SB_EXIT
};

struct ExitCodeRow {
  std::string_view name;
  int code;
  std::string_view meaning;
};

inline constexpr std::array kExitCodes = {
#define SB_EXIT(name, code, meaning) ExitCodeRow{#name, code, meaning},
#include "kernels/common/exit_codes.def"
#undef SB_EXIT
};

constexpr int exit_status(ExitCode c) { return static_cast<int>(c); }

}  // namespace scalebench
