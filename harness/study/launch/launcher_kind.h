// launcher_kind.h — the names of the launchers (local; slurm: one job per point; slurm-alloc: the
// whole sweep in one allocation), for sweep specs and the CLI; the launchers themselves are in launcher.h.
#pragma once

#include <array>

#include "kernels/common/enum_names.h"

namespace scalebench::study {

enum class LauncherKind { local, slurm, slurm_alloc };

}  // namespace scalebench::study
namespace scalebench {
template <>
struct EnumNames<study::LauncherKind> {
  static constexpr std::array<EnumEntry<study::LauncherKind>, 3> entries{{{study::LauncherKind::local, "local"},
                                                                          {study::LauncherKind::slurm, "slurm"},
                                                                          {study::LauncherKind::slurm_alloc, "slurm-alloc"}}};
};
}  // namespace scalebench
