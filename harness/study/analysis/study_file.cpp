// study_file.cpp — study file write/read (see study_file.h).
#include "harness/study/analysis/study_file.h"

#include "harness/record/h5io.h"
#include "harness/record/run_file.h"
#include "kernels/common/check.h"

namespace scalebench::study {

void write_study_file(const std::string& path, const StudyFile& f) {
  record::h5::write_file_atomically(path, [&](hid_t file) {
    record::h5::write_attrs(file, f.attrs, path);
    record::h5::write_table(file, "runs", f.runs, path);
    if (f.metrics.rows() > 0) record::h5::write_table(file, "metrics", f.metrics, path);
    if (f.selection.rows() > 0) record::h5::write_table(file, "selection", f.selection, path);
  });
}

StudyFile read_study_file(const std::string& path) {
  auto file = record::h5::open_for_read(path);
  StudyFile f;
  f.attrs = record::h5::read_attrs(file.get(), path);
  SB_REQUIRE(f.attrs.str("kind") == "study" && record::h5::exists(file.get(), "runs"),
             "{}: not a scalebench study file (make one with `scalebench collect <study folder>`)", path);
  SB_REQUIRE(f.attrs.integer("schema_version", 1) <= record::kSchemaVersion,
             "{}: schema_version {} is newer than this scalebench reads ({})", path, f.attrs.integer("schema_version"),
             record::kSchemaVersion);
  f.runs = record::h5::read_table(file.get(), "runs", path);
  if (record::h5::exists(file.get(), "metrics")) f.metrics = record::h5::read_table(file.get(), "metrics", path);
  if (record::h5::exists(file.get(), "selection")) f.selection = record::h5::read_table(file.get(), "selection", path);
  return f;
}

}  // namespace scalebench::study
