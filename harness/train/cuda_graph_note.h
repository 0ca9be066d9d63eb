// cuda_graph_note.h — what became of --cuda-graph in this process: "replayed from step N", or why
// the step runs eagerly (the option off, a step that cannot be captured, a capture that failed at
// run time). Kept for the run file's context (`cuda_graph`, harness/record/recorder.cpp), so a run's
// file says whether its steps were graphs. The last note stands (a later failure replaces a success).
// Not here: deciding anything (harness/train/epoch_graph.cpp), printing (the trainer's log does).
#pragma once

#include <string>

namespace scalebench {

void set_cuda_graph_note(const std::string& text);
std::string cuda_graph_note();  // "" when no cuda run set one

}  // namespace scalebench
