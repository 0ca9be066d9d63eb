// cpu_warnings.h — warnings about a CPU run's set-up that leave the run valid but its timings
// costly: threads beyond the CPUs they may use, OpenBLAS kernels below what the CPU supports. Each
// is one line on the log ("train: warning: …") and is kept for the run file's context
// (`cpu_warnings`), so a slow run still says why when only its file is left.
// Not here: refusing anything (both are legitimate choices), deciding when to warn (trainer.cpp).
#pragma once

#include <iosfwd>
#include <string>

namespace scalebench {

// Prints "train: warning: <text>" and keeps <text>.
void warn_cpu(std::ostream& log, const std::string& text);
// The texts kept so far, one per line; "" when none.
std::string cpu_warnings();
void clear_cpu_warnings();  // tests

}  // namespace scalebench
