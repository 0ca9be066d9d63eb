// dataset_prep.cpp — see dataset_prep.h.
#include "harness/study/launch/dataset_prep.h"

#include <filesystem>
#include <ostream>

#include "harness/data/particle_gen.h"

namespace scalebench::study {

void prepare_dataset(const SweepSpec& spec, bool dry_run, std::ostream& out) {
  namespace fs = std::filesystem;
  if (fs::exists(spec.data) || !spec.generate) return;
  if (dry_run) {
    out << "sweep: would generate the dataset " << spec.data << "\n";
    return;
  }
  std::error_code ec;
  fs::create_directories(fs::path(spec.data).parent_path(), ec);
  out << "sweep: generating the dataset " << spec.data << "\n" << std::flush;
  data::write_dataset(*spec.generate, spec.data, 0);
}

}  // namespace scalebench::study
