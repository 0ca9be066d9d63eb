// run_filter.h — which of the run files collect read it counts, so that nothing is pooled that
// should not be:
//   copies      files of one run id (an rsync twice, two scratch folders merged) are one run: the
//               ok one is kept (else the one updated last; else the first by path), the others
//               dropped and counted;
//   other data  a dataset regenerated in place between two sweeps leaves runs of one point on two
//               datasets (their data_identity differs; point ids leave the data out, so that
//               compare still matches a baseline taken on other data). When the runs disagree about
//               their data, only those on the data the study's dataset path holds now are kept —
//               the ones `status` counts — and the others are dropped and counted; when that file
//               is not here, or holds none of them, which runs are the study's cannot be told: an
//               error, and nothing is written.
// A file whose data_identity is empty (written before it was recorded, or a run that could not
// read its data) agrees with any: it is kept unless the runs disagree.
// What it deliberately does not do: read run files (collect.cpp) or judge liveness (status.h).
#pragma once

#include <string>
#include <vector>

#include "harness/record/run_file.h"

namespace scalebench::study {

// The run files collect read, file i at paths[i].
struct ReadRuns {
  std::vector<record::RunFile> files;
  std::vector<std::string> paths;
};

// Drops all but one file of each run id; returns "" or the one line that says how many went.
std::string drop_copies(ReadRuns& runs, std::size_t& dropped);

// Keeps only the runs on the data `data_path` holds now when the runs were made on more than one
// dataset ("" when none is known: then the runs' own path, if they share one). Returns "" or the
// one line that says how many went; throws scalebench::Error (one line) when it cannot tell.
std::string drop_other_data(ReadRuns& runs, const std::string& data_path, std::size_t& dropped);

// The data identities of the runs but `current`, with their counts, for one line:
// "64 x 1x32x32 segmentation, 3 classes, content 3f2a… (4 runs)". Empty identities are left out.
std::string other_identities(const std::vector<record::RunFile>& files, const std::string& current,
                             std::size_t& count);

}  // namespace scalebench::study
