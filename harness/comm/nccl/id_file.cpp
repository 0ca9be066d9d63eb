// id_file.cpp — the shared-file bootstrap of the nccl transport, for launches without MPI
// (srun --mpi=none, torchrun-style launchers, hand-started processes). Rank 0 writes the unique id
// to a temporary file beside the target and renames it into place (readers never see half a file);
// the other ranks poll for it against the deadline. The file is text:
//   scalebench-nccl-id 1 / key <job key> / ranks <n> / id <256 hex digits>
// A reader skips a file whose key differs (a leftover of another job step) and keeps polling; rank 0
// removes the file once every rank has joined (or creation failed), and removes a leftover at start.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/comm/nccl/check.h"
#include "harness/comm/nccl/comm.h"
#include "harness/comm/nccl/state.h"
#include "kernels/common/write_file.h"

namespace scalebench::comm {

namespace {

constexpr const char* kMagic = "scalebench-nccl-id 1";

std::string job_key(const NcclOptions& o) {
  if (!o.id_key.empty()) return o.id_key;
  if (const char* k = std::getenv("SCALEBENCH_NCCL_ID_KEY")) return k;
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* step = std::getenv("SLURM_STEP_ID");
  if (job != nullptr) return fmt::format("{}.{}", job, step != nullptr ? step : "");
  return "-";
}

std::string to_hex(const ncclUniqueId& id) {
  std::string s;
  for (char c : id.internal) s += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return s;
}

bool from_hex(const std::string& s, ncclUniqueId& id) {
  if (s.size() != 2 * sizeof(id.internal)) return false;
  for (std::size_t i = 0; i < sizeof(id.internal); ++i) {
    unsigned v = 0;
    if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1) return false;
    id.internal[i] = static_cast<char>(v);
  }
  return true;
}

void write_id_file(const std::string& path, const std::string& key, int size, const ncclUniqueId& id) {
  // Every rank 0 of a job on a shared file system writes beside the others: a temporary file per
  // writer (host and pid in its name). Not durable: the file lives for the seconds of one start-up.
  write_file_atomically(path, fmt::format("{}\nkey {}\nranks {}\nid {}\n", kMagic, key, size, to_hex(id)),
                        {.who = "nccl transport: the unique-id file", .durable = false, .per_writer_temp = true});
}

enum class Read { missing, other_job, ok };

// Reads the id if the file holds a complete one for this job; Error on a malformed file or a rank
// count that disagrees with ours (same job key, different launch: a mistake, not a race).
Read read_id_file(const std::string& path, const std::string& key, int size, ncclUniqueId& id) {
  std::ifstream f(path);
  if (!f.good()) return Read::missing;
  std::string magic, k, kv, r, h, hv;
  int n = 0;
  std::getline(f, magic);
  f >> k >> kv >> r >> n >> h >> hv;
  SB_REQUIRE(magic == kMagic && k == "key" && r == "ranks" && h == "id" && from_hex(hv, id),
             "nccl transport: '{}' is not a scalebench NCCL unique-id file", path);
  if (kv != key) return Read::other_job;
  SB_REQUIRE(n == size, "nccl transport: the unique-id file '{}' is for {} ranks, but this job has {}", path, n, size);
  return Read::ok;
}

}  // namespace

std::unique_ptr<Communicator> make_nccl_world_file(const JobPlace& place, const NcclOptions& o) {
  SB_REQUIRE(o.comm.timeout_s > 0, "comm timeout must be > 0 s, got {}", o.comm.timeout_s);
  SB_REQUIRE(place.size >= 1 && place.rank >= 0 && place.rank < place.size, "nccl transport: rank {} of {} is not a rank",
             place.rank, place.size);
  SB_REQUIRE(place.local_rank_known || o.device >= 0 || place.size == 1 || cuda_device_count() <= 1,
             "nccl transport: rank {} of {} ({}): the launcher names no local rank and {} GPUs are visible; set "
             "SCALEBENCH_LOCAL_RANK (or pick the device) so that ranks on one host use different GPUs",
             place.rank, place.size, place.source, cuda_device_count());
  const int device = pick_device(place.local_rank, o.device);
  ncclUniqueId id;
  std::string path;
  if (place.size == 1) {
    NCCL_CHECK(ncclGetUniqueId(&id));
  } else {
    const char* env = std::getenv("SCALEBENCH_NCCL_ID_FILE");
    path = !o.id_file.empty() ? o.id_file : (env != nullptr ? env : "");
    SB_REQUIRE(!path.empty(), "nccl transport: rank {} of {}: no unique-id file given (set SCALEBENCH_NCCL_ID_FILE to a "
               "path on a file system every rank sees)", place.rank, place.size);
    const std::string key = job_key(o);
    if (place.rank == 0) {
      std::remove(path.c_str());  // a leftover of a crashed run with the same path
      NCCL_CHECK(ncclGetUniqueId(&id));
      write_id_file(path, key, place.size, id);
    } else {
      const auto start = std::chrono::steady_clock::now();
      bool other = false;
      for (;;) {
        const Read got = read_id_file(path, key, place.size, id);
        if (got == Read::ok) break;
        other = other || got == Read::other_job;
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        SB_REQUIRE(waited < o.comm.timeout_s,
                   "nccl transport: rank {} of {}: no unique id for job key '{}' appeared in '{}' within the {} s "
                   "timeout{}; rank 0 writes it: did rank 0 start, and does it see the same file system?",
                   place.rank, place.size, key, path, o.comm.timeout_s,
                   other ? " (the file there belongs to another job step)" : "");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
  std::shared_ptr<nccl_detail::Core> core;
  try {
    core = nccl_detail::init_rank(id, place.rank, place.size, device, o.comm,
                                  path.empty() ? std::string("creation")
                                               : fmt::format("creation (unique id from the file {})", path));
  } catch (...) {
    if (place.rank == 0 && !path.empty()) std::remove(path.c_str());
    throw;
  }
  if (place.rank == 0 && !path.empty()) std::remove(path.c_str());  // every rank has joined: it was read
  return std::make_unique<nccl_detail::NcclComm>(std::move(core), true);
}

}  // namespace scalebench::comm
