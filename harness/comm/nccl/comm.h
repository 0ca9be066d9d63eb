// comm.h — the `nccl` transport (GPU builds only: every definition lives in harness/comm/nccl/,
// so include it only from GPU folders and GPU tests; plain code uses harness/comm/gpu_world.h). Two shapes:
//   * a job world: one process per GPU (multiworker, and the one-process-per-device strategies),
//     the ncclUniqueId made on rank 0 and handed to the others over a bootstrap Communicator (the
//     mpi transport) or through a shared file (launches without MPI);
//   * a device group: one process driving N GPUs (`mirrored` on GPUs), N communicators created
//     together, one rank thread per device — the same thread-per-rank model as ThreadsWorld, so the
//     strategies that run on the threads transport run on this one unchanged.
// Buffers are DEVICE memory on the rank's GPU (cudaMalloc'd, a cuda::DeviceBuffer from
// kernels/cuda/device_buffer.h, or managed): Caps::device_buffers.
// Every call is host-synchronous like the other transports: when allreduce_sum / broadcast /
// barrier / allgather / Request::wait return, the operation has completed on the GPU. The caller's
// own writes to a buffer must be complete before the call (synchronize the producing stream or
// event first): the transport runs on its own non-blocking stream and orders nothing after yours.
//
// Deadlines: communicators are NON-BLOCKING (ncclConfig_t::blocking = 0). Creation, every
// operation and the final teardown are polled (ncclCommGetAsyncError + a CUDA event) against
// CommOptions::timeout_s; on expiry, on an asynchronous NCCL error, or when another rank of the
// same device group failed, the communicator is aborted (ncclCommAbort) and an Error names the
// operation, the rank/peer, the device and the elapsed time. An aborted communicator throws on
// every later call. Nothing waits without a deadline.
//
// Point-to-point (ncclSend/ncclRecv have no tags and no buffering):
//   * isend/irecv only queue the operation; the first test()/wait() of any Request of the
//     communicator (or the next collective) launches EVERY queued operation as one NCCL group
//     (ncclGroupStart/End), so an exchange posted as isend+irecv+wait works in any order, sends to
//     self included. Groups run one after another on the communicator's stream.
//   * Tags are range-checked but not matched: between two ranks the k-th send meets the k-th
//     receive, whatever their tags. The receive size must equal the send size (not checked: NCCL
//     cannot tell; a mismatch is undefined).
//   * A pattern that needs a peer's LATER-posted operation to finish an already launched group
//     (e.g. bounded receive slots refilled as chunks arrive, while the peer posted all its sends
//     up front) deadlocks on NCCL; it ends at the deadline with an Error, never a hang.
//   * Zero-byte sends/receives complete at once on both sides (nothing is launched).
// dup(): ncclCommSplit(color 0, key rank) with the same non-blocking config — same ranks and
// devices, its own NCCL channels (no resource sharing) and its own CUDA stream, so the overlap
// thread's bucket allreduces never queue behind the main thread's operations. Two communicators
// on one device may still serialise on the GPU; keep the order of operations per communicator
// the same on every rank.
// abort(reason): device group: this rank's communicator is aborted, every other rank's waits fail
// at once with the reason, and the caller gets an Error; job world: the reason is printed, the
// communicator aborted, and the job ended (MPI_Abort when MPI is up, otherwise _Exit(1)).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/comm/communicator.h"
#include "harness/comm/gpu_world.h"  // nccl_version
#include "harness/comm/schedule.h"

namespace scalebench::comm {

struct NcclOptions {
  CommOptions comm;     // timeout_s bounds every wait (creation, operations, teardown); spin_s as for mpi
  int device = -1;      // this process's CUDA device; -1: pick_device(local rank)
  std::string id_file;  // file bootstrap: the unique-id file (empty: $SCALEBENCH_NCCL_ID_FILE)
  std::string id_key;   // file bootstrap: job key stored with the id; a reader skips files with another
                        // key (empty: $SCALEBENCH_NCCL_ID_KEY, else "$SLURM_JOB_ID.$SLURM_STEP_ID", else none)
};

// Where this process sits in its job, as its launcher says.
struct JobPlace {
  int rank = 0, size = 1, local_rank = 0;
  bool local_rank_known = false;  // false: no launcher variable named it (local_rank = 0 then)
  bool under_mpi = false;         // an MPI launcher started us (OMPI_COMM_WORLD_*, PMI_*, PMIX_RANK)
  std::string source;             // which variables answered, for messages ("SLURM_PROCID/SLURM_NTASKS")
};
// First match: SCALEBENCH_RANK/SCALEBENCH_WORLD_SIZE[/SCALEBENCH_LOCAL_RANK], SLURM_PROCID/SLURM_NTASKS
// [/SLURM_LOCALID], OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE[/OMPI_COMM_WORLD_LOCAL_RANK],
// PMI_RANK/PMI_SIZE[/MPI_LOCALRANKID], RANK/WORLD_SIZE[/LOCAL_RANK]; none: rank 0 of 1.
// Error on a malformed or inconsistent value (naming the variable).
JobPlace job_place_from_env();

// The CUDA device a process with this local rank drives: `requested` if >= 0; otherwise device 0
// when exactly one device is visible (the launcher bound one GPU per task), else `local_rank`.
// Error naming the host and CUDA_VISIBLE_DEVICES when there is no such device or no CUDA device.
int pick_device(int local_rank, int requested = -1);

// Job world, id over a bootstrap communicator (collective over `bootstrap`, e.g. make_mpi_world()):
// rank and size are bootstrap's; the device is o.device, else pick_device(local rank from the host
// names). `bootstrap` is used only during this call.
std::unique_ptr<Communicator> make_nccl_world(Communicator& bootstrap, const NcclOptions& o = {});

// Job world, id through a shared file (launches without MPI). Rank 0 writes the id to
// o.id_file atomically (temporary file + rename) and removes it once every rank has joined; the
// others poll for it up to timeout_s (skipping a file with another job key). The path must be on a
// file system every rank sees, and unique to the job step. size == 1 needs no file.
std::unique_ptr<Communicator> make_nccl_world_file(const JobPlace& place, const NcclOptions& o = {});

// Which bootstrap a one-process-per-GPU launch should use, and why (for messages): "file" when an
// id file is configured (option or environment), "mpi" when launched by an MPI launcher, "single"
// for one process outside any launcher, "none" (with a reason) for several processes with neither.
struct NcclBootstrapChoice {
  std::string kind;
  std::string reason;
};
NcclBootstrapChoice choose_nccl_bootstrap(const JobPlace& place, const NcclOptions& o);

// One process driving N GPUs: rank r drives devices[r]. All N communicators are created together
// (every ncclCommInitRankConfig inside one ncclGroupStart/End, non-blocking, polled up to timeout_s).
// Like ThreadsWorld: use run(), or hand comm(r) to the thread of rank r (which must make devices[r]
// current before its own CUDA work) and report a thread's failure with failed(r, why) so the other
// ranks stop at once. The destructor finalises the communicators that are not aborted, together.
class NcclDeviceGroup {
 public:
  explicit NcclDeviceGroup(std::vector<int> devices, CommOptions opts = {});
  ~NcclDeviceGroup();
  NcclDeviceGroup(const NcclDeviceGroup&) = delete;
  NcclDeviceGroup& operator=(const NcclDeviceGroup&) = delete;

  int size() const;
  int device(int rank) const;
  Communicator& comm(int rank);
  void failed(int rank, const std::string& why);

  // Devices 0..n-1, one thread per rank with its device current; the first failure is rethrown
  // after every thread ended (the cause, not the follow-on errors of the other ranks).
  static void run(int n, const std::function<void(Communicator&)>& fn, CommOptions opts = {});

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The CUDA device of an nccl communicator (Error if `c` is not one).
int nccl_device(const Communicator& c);

// Visible CUDA devices (0 when there is no driver or device; never throws).
int cuda_device_count() noexcept;

}  // namespace scalebench::comm
