// cuda_graph_note.cpp — the --cuda-graph outcome, kept (see cuda_graph_note.h).
#include "harness/train/cuda_graph_note.h"

#include <mutex>

namespace scalebench {
namespace {
std::mutex g_mu;
std::string g_note;
}  // namespace

void set_cuda_graph_note(const std::string& text) {
  std::lock_guard lock(g_mu);
  g_note = text;
}

std::string cuda_graph_note() {
  std::lock_guard lock(g_mu);
  return g_note;
}

}  // namespace scalebench
