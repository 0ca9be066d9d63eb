// commbench.cpp — commbench's nccl half (see harness/comm/commbench_nccl.h): device buffers and the
// nccl job's start. CUDA builds only.
#include <string>

#include "harness/comm/commbench_nccl.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/nccl/comm.h"
#include "kernels/common/check.h"
#include "kernels/cuda/device_buffer.h"

namespace scalebench::comm {
namespace {

class DeviceBenchBuffer final : public BenchBuffer {
 public:
  DeviceBenchBuffer(std::vector<float>& host, int device)
      : BenchBuffer(host), dev_(std::max<std::size_t>(1, host.size()) * sizeof(float), device) {}
  float* data() override { return dev_.as<float>(); }
  void set(std::size_t n) override { dev_.upload(host_.data(), n * sizeof(float)); }
  void get(std::size_t n) override { dev_.download(host_.data(), n * sizeof(float)); }
  void zero(std::size_t n) override { dev_.zero(n * sizeof(float)); }

 private:
  cuda::DeviceBuffer dev_;
};

}  // namespace

std::unique_ptr<BenchBuffer> make_device_bench_buffer(Communicator& comm, std::vector<float>& host) {
  return std::make_unique<DeviceBenchBuffer>(host, nccl_device(comm));
}

// One process per GPU when launched as a job (MPI launcher, or an id file), otherwise a group of
// --ranks GPUs driven by this process.
bool run_nccl_bench(const CommbenchOptions& opts, CommbenchReport& rep, const BenchOnRank& group_rank,
                    const BenchOnJob& job) {
  NcclOptions no;
  no.comm = CommOptions{opts.timeout_s, opts.spin_us * 1e-6};
  const JobPlace place = job_place_from_env();
  const NcclBootstrapChoice how = choose_nccl_bootstrap(place, no);
  SB_REQUIRE(how.kind != "none", "{}", how.reason);
  if (how.kind == "single") {
    const int visible = cuda_device_count();
    SB_REQUIRE(visible > 0, "--transport nccl: no CUDA device is visible to this process (no GPU, or no driver): "
               "measure a GPU node's interconnect on the GPU node");
    SB_REQUIRE(opts.ranks <= visible, "--transport nccl --ranks {}: this process drives one GPU per rank, but {} CUDA "
               "device(s) are visible (use --ranks {}, or launch one process per GPU with mpirun)",
               opts.ranks, visible, std::max(1, visible));
    NcclDeviceGroup::run(opts.ranks, [&](Communicator& comm) {
      CommbenchReport mine;
      group_rank(comm, mine);
      if (comm.rank() == 0) rep = std::move(mine);
    }, no.comm);
    return true;
  }
  if (how.kind == "file") {
    auto comm = make_nccl_world_file(place, no);
    return job(*comm, rep);
  }
  MpiSession session;
  auto boot = make_mpi_world(no.comm);
  auto comm = make_nccl_world(*boot, no);
  return job(*comm, rep);
}

}  // namespace scalebench::comm
