// cpu_warnings.cpp — the CPU set-up warnings, printed and kept (see cpu_warnings.h).
#include "harness/train/cpu_warnings.h"

#include <mutex>
#include <ostream>

namespace scalebench {
namespace {

std::mutex g_mu;
std::string g_kept;

}  // namespace

void warn_cpu(std::ostream& log, const std::string& text) {
  log << "train: warning: " << text << '\n' << std::flush;
  std::lock_guard lock(g_mu);
  g_kept += (g_kept.empty() ? "" : "\n") + text;
}

std::string cpu_warnings() {
  std::lock_guard lock(g_mu);
  return g_kept;
}

void clear_cpu_warnings() {
  std::lock_guard lock(g_mu);
  g_kept.clear();
}

}  // namespace scalebench
