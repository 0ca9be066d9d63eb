// gpu_world.h — the NCCL worlds the trainer starts on GPUs, declared without any CUDA header: a
// device group (one process, one thread and communicator per GPU: mirrored) and a job world (one
// process per GPU, the NCCL id over the MPI bootstrap), and which GPU a rank's communicator drives.
// Defined in harness/comm/nccl/gpu_world.cpp with the CUDA backend, else in harness/comm/nonccl/
// (CMake picks the folder), so callers need no build-time branch.
// What it deliberately does not do: choose between CPU and GPU worlds (the trainer does).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/comm/communicator.h"

namespace scalebench::comm {

// Devices 0..n-1, one thread per rank with its device current (NcclDeviceGroup::run).
void run_gpu_group(int n, const std::function<void(Communicator&)>& fn, CommOptions opts);
// This process's GPU communicator of the job that `bootstrap` (MPI) spans.
std::unique_ptr<Communicator> make_gpu_world(Communicator& bootstrap, CommOptions opts);
// The CUDA device a communicator's rank drives: its GPU for an nccl communicator, else 0.
int device_of(const Communicator* c);
// Whether this build has the nccl transport.
bool nccl_built();
// The loaded NCCL library's version, e.g. "2.28.9"; "" in a build without the nccl transport.
std::string nccl_version();

}  // namespace scalebench::comm
