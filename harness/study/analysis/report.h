// report.h — `scalebench report study.h5`: one table per model × strategy with, per point
// (repetitions aggregated by their median): devices, global batch, LR (after the scaling rule),
// steps/epoch, epoch time, images/s, speedup, efficiency, TFLOP/s, MFU, exposed communication,
// final validation loss, and mIoU (segmentation) or accuracy (classification). Points with no ok
// run show their status and error instead. Formats: text, markdown, json (NaN → null).
// Reads only the study file; computes nothing that collect did not.
#pragma once

#include <string>

#include "harness/study/analysis/format.h"
#include "harness/study/analysis/study_file.h"

namespace scalebench::study {

std::string report(const StudyFile& f, Format format);

}  // namespace scalebench::study
