// commbench.cpp — the sweep of commbench (see commbench.h): sets up the transport, runs every
// (size, algorithm) pair on every rank, gathers the timings and hands rank 0's report to the
// formatter. Sizes are the outer loop so that each finished size prints at once (progress under Slurm).
// On the nccl transport (GPU builds) the benchmarked buffer is device memory; inputs go up and
// results come back for verification outside the timed calls.
#include "harness/comm/commbench.h"
#include "kernels/common/write_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <ostream>
#include <utility>

#include "harness/comm/commbench_detail.h"
#include "harness/comm/commbench_nccl.h"
#include "harness/comm/gpu_world.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/threads_comm.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

namespace bench_detail {

// CPU seconds (user + system, every thread) this process has used: what the timed calls cost the
// cores beside their wall time (the kernel's TCP work included), for `scalebench project --comm-cpu-shared`.
double process_cpu_s() {
  timespec ts{};
  SB_CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0, "commbench: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// --gap-ms: the core kept busy for `ms` of wall time (not a sleep: on a node with a CPU quota the
// compute before a training step's exchange spends the quota, and that is what the gap stands for).
void busy_gap(double ms) {
  if (ms <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms);
  volatile double sink = 1.0;
  while (std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 1000; ++i) sink = sink * 1.0000001 + 1e-9;
}

double max_over_ranks(Communicator& comm, double v) {
  double out = v;
  for (const auto& s : comm.allgather(std::string_view(reinterpret_cast<const char*>(&v), sizeof(v)))) {
    double x = 0;
    std::memcpy(&x, s.data(), sizeof(x));
    out = std::max(out, x);
  }
  return out;
}

double sum_over_ranks(Communicator& comm, double v) {
  double out = 0;
  for (const auto& s : comm.allgather(std::string_view(reinterpret_cast<const char*>(&v), sizeof(v)))) {
    double x = 0;
    std::memcpy(&x, s.data(), sizeof(x));
    out += x;
  }
  return out;
}

Spread spread_over_ranks(Communicator& comm, const std::vector<double>& call_s) {
  double sum = 0, lo = call_s.empty() ? 0 : call_s[0], hi = lo;
  for (double v : call_s) sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
  Spread sp;
  sp.mean_us = max_over_ranks(comm, call_s.empty() ? 0 : sum / double(call_s.size())) * 1e6;
  sp.min_us = max_over_ranks(comm, lo) * 1e6;
  sp.max_us = max_over_ranks(comm, hi) * 1e6;
  return sp;
}

std::unique_ptr<BenchBuffer> make_buffer(Communicator& comm, std::vector<float>& host) {
  if (comm.caps().device_buffers) return make_device_bench_buffer(comm, host);
  SB_CHECK(!comm.caps().device_buffers, "commbench: the {} transport needs device buffers", comm.transport());
  return std::make_unique<BenchBuffer>(host);
}

}  // namespace bench_detail

using namespace bench_detail;

namespace {

// Small integers: every partial sum is an integer below 2^24, so the float sum is exact in any order.
float input(std::size_t i, int r) { return static_cast<float>((i * 7 + static_cast<std::size_t>(r) * 13) % 17 + 1); }

void validate(const CommbenchOptions& o) {
  SB_REQUIRE(o.transport == "threads" || o.transport == "mpi" || o.transport == "nccl",
             "--transport '{}': expected threads, mpi or nccl", o.transport);
  SB_REQUIRE(o.transport != "nccl" || nccl_built(),
             "--transport nccl: the nccl transport is not in this build (built without CUDA)");
  SB_REQUIRE(!o.colls.empty(), "--coll: give at least one of {} (or all)", enum_choices<Coll>());
  SB_REQUIRE(!o.types.empty(), "--dtype: give at least one of {}", comm_type_choices());
  for (const auto& a : o.algos) parse_allreduce_algo(a);  // Error naming a bad one (on nccl: schedule.h)
  SB_REQUIRE(o.transport == "mpi" || (o.ranks >= 1 && o.ranks <= 256), "--ranks {}: expected 1..256", o.ranks);
  SB_REQUIRE(o.warmup >= 0, "--warmup {}: expected >= 0", o.warmup);
  SB_REQUIRE(o.iters >= 1, "--iters {}: expected >= 1", o.iters);
  SB_REQUIRE(o.timeout_s > 0, "--timeout {}: expected > 0 seconds", o.timeout_s);
  SB_REQUIRE(o.spin_us >= 0, "--spin-us {}: expected >= 0", o.spin_us);
  SB_REQUIRE(std::isfinite(o.gap_ms) && o.gap_ms >= 0 && o.gap_ms <= 600e3, "--gap-ms {}: expected 0 to 600000 ms",
             o.gap_ms);
  parse_sizes(o.sizes);
  SB_REQUIRE(o.chunk_bytes >= sizeof(float) && o.chunk_bytes % sizeof(float) == 0,
             "--chunk {}: expected a positive multiple of 4 bytes", o.chunk_bytes);
  SB_REQUIRE(o.depth >= 1 && o.depth <= 64, "--depth {}: expected 1..64", o.depth);
  SB_REQUIRE(o.ranks_per_node >= 0, "--ranks-per-node {}: expected >= 0 (0: by host name)", o.ranks_per_node);
}

// The training step's agreement: `iters` timed allgather_fixed calls of Communicator::kAgreeBytes,
// each after the gap, warm-up calls first; the mean per call, max over ranks, in microseconds.
double time_agreement(Communicator& comm, const CommbenchOptions& o) {
  const std::vector<char> mine(Communicator::kAgreeBytes, 1);
  std::vector<char> all(Communicator::kAgreeBytes * std::size_t(comm.size()));
  for (int w = 0; w < o.warmup; ++w) busy_gap(o.gap_ms), comm.allgather_fixed(mine.data(), mine.size(), all.data());
  comm.barrier();
  double wall = 0;
  for (int it = 0; it < o.iters; ++it) {
    busy_gap(o.gap_ms);
    const auto t0 = std::chrono::steady_clock::now();
    comm.allgather_fixed(mine.data(), mine.size(), all.data());
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return max_over_ranks(comm, wall / o.iters) * 1e6;
}

// Runs the whole sweep on one rank; fills `rep` (on every rank) and prints on rank 0.
void sweep(Communicator& comm, const CommbenchOptions& o, CommbenchReport& rep, std::ostream& out) {
  const auto sizes = parse_sizes(o.sizes);
  const int n = comm.size(), me = comm.rank();
  // Rank 0's ring step ends (AllreduceOptions::step_ends), read after each timed call.
  std::vector<std::chrono::steady_clock::time_point> step_ends;
  std::vector<std::unique_ptr<Allreducer>> algos;
  for (const auto& a : o.algos) {
    AllreduceOptions ao;
    ao.algo = parse_allreduce_algo(a);
    if (ao.algo == AllreduceAlgo::ring && me == 0 && !comm.caps().device_buffers) ao.step_ends = &step_ends;
    ao.chunk_bytes = o.chunk_bytes;
    ao.depth = o.depth;
    ao.ranks_per_node = o.ranks_per_node;
    algos.push_back(std::make_unique<Allreducer>(comm, ao));
  }
  const NodeMap nodes = make_node_map(comm, o.ranks_per_node);
  rep.transport = comm.transport();
  rep.ranks = n;
  rep.hostnames = nodes.hostnames;
  rep.nodes = nodes.num_nodes();
  rep.opts = o;
  const bool algo_table = !algos.empty() && std::find(o.colls.begin(), o.colls.end(), Coll::allreduce) != o.colls.end();
  if (me == 0 && algo_table) write_table_header(out, rep);

  const std::size_t max_count = *std::max_element(sizes.begin(), sizes.end()) / sizeof(float);
  std::vector<float> host(max_count);
  const auto buf = make_buffer(comm, host);
  for (std::size_t bytes : algo_table ? sizes : std::vector<std::size_t>{}) {
    const std::size_t count = bytes / sizeof(float);
    std::vector<CommbenchRow> same_size;
    for (std::size_t a = 0; a < algos.size(); ++a) {
      Allreducer& ar = *algos[a];
      // Verification call on exact inputs.
      for (std::size_t i = 0; i < count; ++i) host[i] = input(i, me);
      buf->set(count);
      ar(buf->data(), count);
      buf->get(count);
      double err = 0;
      for (std::size_t i = 0; i < count; ++i) {
        float want = 0;
        for (int r = 0; r < n; ++r) want += input(i, r);
        const double e = std::fabs(static_cast<double>(host[i]) - want);
        err = std::isnan(e) || e > err ? e : err;
      }
      // Timed calls reduce zeros: repeated in-place sums of real data would grow without bound, and a
      // float add costs the same for any normal value.
      buf->zero(count);
      for (int w = 0; w < o.warmup; ++w) busy_gap(o.gap_ms), ar(buf->data(), count);
      comm.barrier();
      double cpu = 0;  // the timed calls' own, the gaps left out
      std::vector<double> calls;  // each timed call's wall seconds
      std::vector<double> step_us;  // rank 0's ring steps, each call's in order (the first from the call's start)
      for (int it = 0; it < o.iters; ++it) {
        busy_gap(o.gap_ms);
        step_ends.clear();
        const double cpu0 = process_cpu_s();
        const auto t0 = std::chrono::steady_clock::now();
        auto prev = t0;
        ar(buf->data(), count);
        calls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        cpu += process_cpu_s() - cpu0;
        for (const auto end : step_ends)
          step_us.push_back(std::chrono::duration<double, std::micro>(end - std::exchange(prev, end)).count());
      }
      const double cpu_mean = cpu / o.iters;
      CommbenchRow row;
      row.algo = o.algos[a];
      row.bytes = bytes;
      const Spread sp = spread_over_ranks(comm, calls);
      row.time_us = sp.mean_us;  // max over ranks of the mean per call
      row.time_min_us = sp.min_us;
      row.time_max_us = sp.max_us;
      row.max_abs_err = max_over_ranks(comm, err);
      row.cpu_us = max_over_ranks(comm, cpu_mean) * 1e6;
      row.step_us = std::move(step_us);
      row.algbw_gbps = static_cast<double>(bytes) / (row.time_us * 1e-6) / 1e9;
      row.busbw_gbps = row.algbw_gbps * 2.0 * (n - 1) / n;
      same_size.push_back(row);
    }
    if (me == 0) write_table_row(out, rep, same_size);
    rep.rows.insert(rep.rows.end(), same_size.begin(), same_size.end());
  }
  sweep_collectives(comm, o, rep, out);
  rep.agree_us = time_agreement(comm, o);
  if (me == 0) write_agreement(out, rep);
}

void finish(const CommbenchReport& rep, const CommbenchOptions& o) {
  if (!o.json_path.empty()) write_file_atomically(o.json_path, to_json(rep), {.who = "commbench --json"});
}

void check_errors(const CommbenchReport& rep) {
  for (const auto& r : rep.rows)
    SB_CHECK(r.max_abs_err == 0, "commbench: {} allreduce of {} bytes over {} ranks is wrong: max error {} on inputs that reduce exactly",
             r.algo, r.bytes, rep.ranks, r.max_abs_err);
  for (const auto& r : rep.coll_rows)
    SB_CHECK(r.wrong == 0, "commbench: {} ({}, {}) of {} bytes over {} ranks is wrong: {} element(s) off their exact value",
             coll_info(r.coll).name, comm_type_name(r.type), r.in_place ? "in place" : "out of place", r.bytes, rep.ranks,
             r.wrong);
}

// Runs the sweep on one communicator of a multi-process job; false on ranks other than 0, which
// have nothing to write.
bool sweep_job(Communicator& comm, const CommbenchOptions& opts, CommbenchReport& rep, std::ostream& out) {
  try {
    sweep(comm, opts, rep, out);
  } catch (const Error& e) {
    // Other ranks may be inside a collective this rank will never reach: end the job, do not hang it.
    if (comm.size() > 1) comm.abort(e.what());
    throw;
  }
  // From here on no rank communicates, so a failure on one rank cannot strand the others.
  if (comm.rank() != 0) {
    check_errors(rep);
    return false;
  }
  return true;
}


}  // namespace

int commbench_main(const CommbenchOptions& opts, std::ostream& out) {
  validate(opts);
  CommbenchReport rep;
  if (opts.transport == "nccl") {
    const bool lead = run_nccl_bench(
        opts, rep, [&](Communicator& comm, CommbenchReport& mine) { sweep(comm, opts, mine, out); },
        [&](Communicator& comm, CommbenchReport& mine) { return sweep_job(comm, opts, mine, out); });
    if (!lead) return 0;
  } else if (opts.transport == "threads") {
    ThreadsWorld::run(opts.ranks, [&](Communicator& comm) {
      CommbenchReport mine;
      sweep(comm, opts, mine, out);
      if (comm.rank() == 0) rep = std::move(mine);
    }, CommOptions{opts.timeout_s, opts.spin_us * 1e-6});
  } else {
    MpiSession session;
    auto comm = make_mpi_world(CommOptions{opts.timeout_s, opts.spin_us * 1e-6});
    if (!sweep_job(*comm, opts, rep, out)) return 0;
  }
  finish(rep, opts);
  check_errors(rep);
  return 0;
}

}  // namespace scalebench::comm
