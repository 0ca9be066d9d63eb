// launcher.cpp — the one switch from a launcher name to its implementation (see launcher.h).
#include "harness/study/launch/launcher.h"

namespace scalebench::study {

std::unique_ptr<Launcher> make_launcher(LauncherKind kind) {
  switch (kind) {
    case LauncherKind::local: return make_local_launcher();
    case LauncherKind::slurm: return make_slurm_launcher();
    case LauncherKind::slurm_alloc: return make_slurm_alloc_launcher();
  }
  return make_local_launcher();
}

}  // namespace scalebench::study
