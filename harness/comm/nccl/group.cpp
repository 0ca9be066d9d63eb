// group.cpp — NcclDeviceGroup (comm.h): one process driving N GPUs, the `mirrored`
// strategy on GPUs. The N communicators are created like ncclCommInitAll, but non-blocking: one
// unique id, every ncclCommInitRankConfig inside one ncclGroupStart/End (each with its device
// current), then each polled against the deadline. Teardown finalises them together (a finalise
// waits for the other local ranks, so one thread finalising them one by one would deadlock).
// Not here: one-process-per-GPU job worlds (world.cpp, id_file.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/comm.h"
#include "harness/comm/nccl/state.h"
#include "kernels/cuda/check.h"

namespace scalebench::comm {

using nccl_detail::Core;
using nccl_detail::GroupAbort;
using nccl_detail::NcclComm;

struct NcclDeviceGroup::State {
  std::vector<int> devices;
  CommOptions opts;
  std::shared_ptr<GroupAbort> abort = std::make_shared<GroupAbort>();
  std::vector<std::shared_ptr<Core>> cores;
  std::vector<std::unique_ptr<NcclComm>> comms;
};

NcclDeviceGroup::NcclDeviceGroup(std::vector<int> devices, CommOptions opts) : s_(std::make_unique<State>()) {
  const int n = static_cast<int>(devices.size());
  SB_REQUIRE(n >= 1, "nccl transport: a device group needs at least one device");
  SB_REQUIRE(opts.timeout_s > 0, "comm timeout must be > 0 s, got {}", opts.timeout_s);
  const int visible = cuda_device_count();
  for (int r = 0; r < n; ++r) {
    const int d = devices[static_cast<std::size_t>(r)];
    SB_REQUIRE(d >= 0 && d < visible, "nccl transport: a group of {} GPUs needs device {}, but {} CUDA device(s) are "
               "visible on {} ({})", n, d, visible, hostname(), nccl_detail::visible_devices_text());
    SB_REQUIRE(std::count(devices.begin(), devices.end(), d) == 1,
               "nccl transport: device {} appears twice in the group (NCCL allows one rank per GPU)", d);
  }
  s_->devices = devices;
  s_->opts = opts;
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  std::vector<ncclComm_t> handles(static_cast<std::size_t>(n), nullptr);
  std::vector<ncclConfig_t> cfgs(static_cast<std::size_t>(n), nccl_detail::nonblocking_config());
  ncclResult_t bad = ncclSuccess;
  {
    int caller_device = -1;
    if (cudaGetDevice(&caller_device) != cudaSuccess) (void)cudaGetLastError();
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < n && bad == ncclSuccess; ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (cudaSetDevice(devices[i]) != cudaSuccess) {
        bad = ncclUnhandledCudaError;
        break;
      }
      const ncclResult_t rc = ncclCommInitRankConfig(&handles[i], n, id, r, &cfgs[i]);
      if (rc != ncclSuccess && rc != ncclInProgress) bad = rc;
    }
    const ncclResult_t end = ncclGroupEnd();
    if (bad == ncclSuccess && end != ncclSuccess && end != ncclInProgress) bad = end;
    if (caller_device >= 0) (void)cudaSetDevice(caller_device);
  }
  auto abort_all = [&] {
    for (auto& h : handles)
      if (h != nullptr) (void)ncclCommAbort(h);
  };
  if (bad != ncclSuccess) {
    abort_all();
    throw Error(fmt::format("nccl transport: creating a group of {} GPUs on {} failed: {}", n, hostname(),
                            nccl_error_text(bad)));
  }
  const auto start = nccl_detail::Clock::now();
  try {
    for (int r = 0; r < n; ++r) {
      const auto i = static_cast<std::size_t>(r);
      ncclComm_t h = handles[i];
      handles[i] = nullptr;  // the Core owns it now (and aborts it if its own set-up fails)
      s_->cores.push_back(std::make_shared<Core>(h, devices[i], r, n, opts, s_->abort));
    }
    for (auto& c : s_->cores)
      c->wait_ready([n] { return fmt::format("creation of a group of {} GPUs", n); }, start,
                    "another device of the group did not finish initialising (a GPU is busy, faulty or in an "
                    "exclusive compute mode)");
  } catch (...) {
    abort_all();
    for (auto& c : s_->cores) c->abort_comm("group creation failed");
    throw;
  }
  for (auto& c : s_->cores) s_->comms.push_back(std::make_unique<NcclComm>(c, false));
}

NcclDeviceGroup::~NcclDeviceGroup() {
  // After a failure (a rank raised the group abort, or an error is unwinding) nothing is finalised:
  // a finalise waits for every local rank, and an aborted one never comes.
  if (s_->abort->raised.load() || std::uncaught_exceptions() > 0) {
    for (auto& c : s_->cores) c->release(false);
    return;
  }
  // Finalise every healthy communicator at once, then wait for all of them against one deadline.
  std::vector<Core*> live;
  for (auto& c : s_->cores)
    if (c->begin_finalize()) live.push_back(c.get());
  const auto start = nccl_detail::Clock::now();
  std::vector<char> done(live.size(), 0);
  std::size_t left = live.size();
  while (left > 0) {
    for (std::size_t i = 0; i < live.size(); ++i) {
      if (done[i]) continue;
      std::string err;
      if (!live[i]->finalize_done(&err)) continue;
      done[i] = 1;
      --left;
      if (err.empty()) {
        live[i]->finish_release();
      } else {
        std::fprintf(stderr, "scalebench: warning: %s: finalize failed: %s; aborting the communicator\n",
                     live[i]->prefix().c_str(), err.c_str());
        live[i]->abort_comm(err);
      }
    }
    if (left == 0) break;
    if (std::chrono::duration<double>(nccl_detail::Clock::now() - start).count() > s_->opts.timeout_s) {
      for (std::size_t i = 0; i < live.size(); ++i)
        if (!done[i]) {
          std::fprintf(stderr, "scalebench: warning: %s: finalize did not complete within %g s; aborting\n",
                       live[i]->prefix().c_str(), s_->opts.timeout_s);
          live[i]->abort_comm("finalize timed out");
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (auto& c : s_->cores) c->release(false);  // anything left (aborted ones are already released)
}

int NcclDeviceGroup::size() const { return static_cast<int>(s_->devices.size()); }

int NcclDeviceGroup::device(int rank) const {
  SB_CHECK(rank >= 0 && rank < size(), "nccl device group: rank {} out of range", rank);
  return s_->devices[static_cast<std::size_t>(rank)];
}

Communicator& NcclDeviceGroup::comm(int rank) {
  SB_CHECK(rank >= 0 && rank < size(), "nccl device group: rank {} out of range", rank);
  return *s_->comms[static_cast<std::size_t>(rank)];
}

void NcclDeviceGroup::failed(int rank, const std::string& why) { s_->abort->raise(rank, why); }

void NcclDeviceGroup::run(int n, const std::function<void(Communicator&)>& fn, CommOptions opts) {
  SB_REQUIRE(n >= 1, "nccl transport: rank count must be >= 1, got {}", n);
  std::vector<int> devices(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) devices[static_cast<std::size_t>(r)] = r;
  NcclDeviceGroup group(devices, opts);
  std::mutex mu;
  std::exception_ptr first;  // the failure that started the collapse; the others' are its echoes
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        CUDA_CHECK(cudaSetDevice(group.device(r)));
        fn(group.comm(r));
      } catch (const std::exception& e) {
        group.failed(r, e.what());  // no-op if another rank (or this one's Core) raised it first
        group.s_->cores[static_cast<std::size_t>(r)]->abort_comm(e.what());
        std::lock_guard lk(mu);
        std::lock_guard lk2(group.s_->abort->mu);
        if (!first && group.s_->abort->rank == r) first = std::current_exception();
      } catch (...) {
        group.failed(r, "unknown exception");
        group.s_->cores[static_cast<std::size_t>(r)]->abort_comm("unknown exception");
        std::lock_guard lk(mu);
        std::lock_guard lk2(group.s_->abort->mu);
        if (!first && group.s_->abort->rank == r) first = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
  if (group.s_->abort->raised.load())
    throw Error(fmt::format("nccl transport: {}", group.s_->abort->describe()));
}

}  // namespace scalebench::comm
