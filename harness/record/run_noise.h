// run_noise.h — what else was happening on the machine while a run ran (issue 47 "why
// inconclusive"): /proc read once at the run's start and once at its end, never during it (cost: a
// few file reads). Recorded in /context as the noise_* fields of kNoiseFields; report names them for
// runs flagged noisy, compare for INCONCLUSIVE rows (docs/results-schema.md lists them).
// Other processes' CPU share is the machine's busy CPU time over the run minus this process's own
// (getrusage), over wall time × CPUs: the other ranks of a multi-process run on this host count as
// "others" (threads-transport ranks are this process). Deliberately not a sampler: a burst between
// the two reads shows only in the deltas (steal, others' share), not in the load averages.
// The cgroup CPU limit belongs to the host fingerprint (host_fingerprint.h), not here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/record/table.h"

namespace scalebench::record {

struct NoiseSample {
  double load1 = -1;            // /proc/loadavg's 1-minute average (-1: unreadable)
  int running = -1;             // /proc/stat procs_running (this process's running threads included)
  std::uint64_t busy = 0, idle = 0, steal = 0, total = 0;  // /proc/stat "cpu" line, ticks
  double mean_mhz = 0;          // mean of /proc/cpuinfo's "cpu MHz" over CPUs (0: none given)
  double self_cpu_s = 0;        // this process's user + system CPU time
  double wall_s = 0;            // a steady clock
  int cpus = 0;                 // CPUs counted in /proc/stat (cpuN lines)
};

// The fields record_noise sets, in order (numbers; NaN when unreadable).
const std::vector<std::string>& noise_fields();

// From the texts of /proc/loadavg, /proc/stat and /proc/cpuinfo (pure, for tests); self_cpu_s and
// wall_s are the caller's.
NoiseSample parse_noise(const std::string& loadavg, const std::string& stat, const std::string& cpuinfo);
// This machine, now.
NoiseSample sample_noise();

// Sets the noise_* fields of `context` from the samples at the run's start and end.
void record_noise(Attrs& context, const NoiseSample& start, const NoiseSample& end);

}  // namespace scalebench::record
