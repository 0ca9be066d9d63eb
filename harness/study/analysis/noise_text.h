// noise_text.h — one line naming the noise some runs ran under (record/run_noise.h's noise_*
// columns and the cgroup CPU limit), for report's noisy points and compare's INCONCLUSIVE rows.
// Not here: deciding whether a run was noisy (point_stats.h flags it; compare's statistics).
#pragma once

#include <string>
#include <vector>

#include "harness/record/table.h"

namespace scalebench::study {

// Over `rows`: "load 0.4..2.9 on 2 CPUs, 1..4 runnable, others' CPU <=38%, steal <=0%, clock
// 2100..2100 MHz, cgroup limit none" — ranges over the rows' start and end readings, the worst
// share; "" when none of the rows recorded any (files from before run_noise.h).
std::string ran_under(const record::Table& t, const std::vector<std::size_t>& rows);

}  // namespace scalebench::study
