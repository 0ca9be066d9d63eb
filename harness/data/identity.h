// identity.h — what a dataset file holds, as one line: its samples, shape, task, classes and a
// checksum of its content (every image and label as the reader returns them, and the class
// names), e.g. "256 x 1x32x32 segmentation, 3 classes, content 3f2a9c0e5b7d1184". It joins the
// run id and the checkpoint's agreement text (TrainConfig::data_identity), so a file regenerated
// at the same path is another run, and a checkpoint of another file is refused, not resumed.
// Computing it reads the whole file once (the reader's open already reads every label); it is
// kept per process for a path whose size, modification time and inode have not changed, so a
// sweep identifies its dataset once for all its points.
// What it deliberately does not do: judge the file (an unreadable one has no identity: "", and
// the run's own open of it says what is wrong) or hash the file's bytes (HDF5 writes creation
// times into them: two generations of the same data would differ).
#pragma once

#include <string>

namespace scalebench::data {

std::string dataset_identity(const std::string& path);

}  // namespace scalebench::data
