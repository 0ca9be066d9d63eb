// launcher_kind.h — the names of the launchers (local, slurm), for sweep specs and the CLI; the
// launchers themselves are in launcher.h.
#pragma once

#include <array>

#include "kernels/common/enum_names.h"

namespace scalebench::study {

enum class LauncherKind { local, slurm };

}  // namespace scalebench::study
namespace scalebench {
template <>
struct EnumNames<study::LauncherKind> {
  static constexpr std::array<EnumEntry<study::LauncherKind>, 2> entries{
      {{study::LauncherKind::local, "local"}, {study::LauncherKind::slurm, "slurm"}}};
};
}  // namespace scalebench
