// report.h — `scalebench report study.h5`: a provenance header (hosts, CPU, GPUs, host fingerprint,
// the commit — the run files' git_sha, else the commit the binary was built from, git_sha_build, for
// a binary outside a git tree; each with its run count when the runs disagree —, when the runs ran,
// when collected, schema), then one table per model × strategy (× each value of any other swept
// field) with, per point
// (repetitions aggregated by their median): devices, global batch, LR (after the scaling rule),
// steps/epoch, epoch time, images/s and its 95 % interval, speedup and the N = 1 runs it is
// measured against, efficiency and its 95 % interval, TFLOP/s, MFU, exposed communication, final
// validation loss, mIoU (segmentation) or accuracy (classification), and the point's flags with
// their rules stated above the tables (point_stats.h); under a table, what each noisy point's runs
// ran under (noise_text.h). Points with no ok run show their status and
// error instead. Formats: text, markdown, json (NaN → null).
// A swept study (a field other than model, strategy and N varies), unless `full`: one compact
// table instead, one row per point with the swept fields as columns and each figure once
// (strategy, N, global batch, images/s, speedup, efficiency and intervals, mIoU/accuracy, runs,
// flags, status); JSON is always complete.
// Reads only the study file; computes nothing that collect did not.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "harness/study/analysis/format.h"
#include "harness/study/analysis/study_file.h"

namespace scalebench::study {

std::string report(const StudyFile& f, Format format, bool full = false);
// Its sections for a study with a target or a [select] (report_tuning.cpp), as text or Markdown
// ("" when there are none; not `full`: with a selection by steps to target, only the selection),
// and in JSON the members "steps_to_target" and "selection" of the top object (always there, empty
// when there are none).
std::string report_tuning(const StudyFile& f, Format format, bool full);
void add_report_tuning(const StudyFile& f, nlohmann::ordered_json& doc);

}  // namespace scalebench::study
