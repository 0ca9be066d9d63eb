// sbatch_lines.h — test helper: the `#SBATCH` lines of a generated Slurm script, in order (what the
// Slurm script tests compare). Nothing else.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace sbtest {

inline std::vector<std::string> sbatch_lines(const std::string& script) {
  std::vector<std::string> out;
  std::stringstream ss(script);
  for (std::string l; std::getline(ss, l);)
    if (l.rfind("#SBATCH", 0) == 0) out.push_back(l);
  return out;
}

}  // namespace sbtest
