// mpi_comm.cpp — the mpi transport's Communicator and Request (see mpi_comm.h).
// Waits poll MPI_Test (spinning, then yielding, then napping) instead of calling MPI_Wait, so
// that a deadline can be enforced: on expiry the job is aborted with a message naming the peer, since
// a silent peer in MPI cannot be recovered from and the other ranks would otherwise hang with us.
// Blocking native collectives get the same deadline from the watchdog thread (mpi_watchdog.h).
#include <fmt/format.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "harness/comm/mpi_check.h"
#include "harness/comm/mpi_collective.h"
#include "harness/comm/mpi_comm.h"
#include "harness/comm/mpi_watchdog.h"

namespace scalebench::comm {

namespace {

[[noreturn]] void abort_job(MPI_Comm comm, int rank, const std::string& reason) {
  std::fflush(stdout);
  std::fprintf(stderr, "scalebench: error: rank %d on %s: %s\n", rank, hostname().c_str(), reason.c_str());
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  std::abort();  // MPI_Abort does not return; this is for an MPI that would
}

int to_int(std::size_t n, const char* what) {
  SB_CHECK(n <= static_cast<std::size_t>(INT_MAX), "mpi transport: {} of {} exceeds MPI's int count", what, n);
  return static_cast<int>(n);
}

class MpiRequest final : public Request::Impl {
 public:
  MpiRequest(MPI_Comm comm, int me, int peer, int tag, std::size_t bytes, bool is_send, double timeout_s, double spin_s)
      : comm_(comm), me_(me), peer_(peer), tag_(tag), bytes_(bytes), is_send_(is_send), timeout_s_(timeout_s),
        spin_s_(spin_s) {}
  MPI_Request* handle() { return &req_; }

  bool test() override {
    int flag = 0;
    MPI_Status st;
    MPI_CHECK(MPI_Test(&req_, &flag, &st));
    if (flag) check(st);
    return flag != 0;
  }

  void wait() override {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto deadline = start + std::chrono::duration<double>(timeout_s_);
    const auto spin_until = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(spin_s_));
    for (;;) {
      if (test()) return;
      const auto now = clock::now();
      if (now < spin_until) continue;
      if (now > deadline)
        abort_job(comm_, me_, fmt::format("no progress {} {} bytes {} rank {} (tag {}) within the {} s timeout; "
                                          "rank {} is dead, stalled or deadlocked",
                                          is_send_ ? "sending" : "receiving", bytes_, is_send_ ? "to" : "from", peer_,
                                          tag_, timeout_s_, peer_));
      // Past the spin: give the core away each poll; nap once the wait is clearly long.
      if (now - spin_until < std::chrono::milliseconds(5))
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void abandon() override {
    if (req_ == MPI_REQUEST_NULL) return;
    if (!is_send_) MPI_Cancel(&req_);
    MPI_Request_free(&req_);
  }

 private:
  void check(const MPI_Status& st) {
    if (is_send_) return;
    int got = 0;
    MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &got));
    if (static_cast<std::size_t>(got) != bytes_)
      throw Error(fmt::format("mpi transport: rank {} received {} bytes from rank {} (tag {}) but expected {}", me_,
                              got, peer_, tag_, bytes_));
  }

  MPI_Request req_ = MPI_REQUEST_NULL;
  MPI_Comm comm_;
  int me_, peer_, tag_;
  std::size_t bytes_;
  bool is_send_;
  double timeout_s_;
  double spin_s_;
};

class MpiComm final : public Communicator {
 public:
  MpiComm(MPI_Comm parent, CommOptions opts, std::shared_ptr<MpiWatchdog> wd) : opts_(opts), wd_(std::move(wd)) {
    {
      int me = 0;
      MPI_Comm_rank(parent, &me);
      WatchedCall w(*wd_, opts_.timeout_s, "MPI_Comm_dup", 0, me);
      MPI_CHECK(MPI_Comm_dup(parent, &comm_));
    }
    MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    MPI_CHECK(MPI_Comm_size(comm_, &size_));
    int level = 0;
    MPI_CHECK(MPI_Query_thread(&level));
    multiple_ = level == MPI_THREAD_MULTIPLE;
    // The standard only promises tags up to 32767; our algorithms use tags just below 2^20.
    int* tag_ub = nullptr;
    int found = 0;
    MPI_CHECK(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &found));
    if (found && *tag_ub < kMaxTag)
      throw Error(fmt::format("mpi transport: this MPI allows tags up to {} but scalebench needs {}", *tag_ub, kMaxTag));
  }
  ~MpiComm() override {
    if (mpi_active()) MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* transport() const override { return "mpi"; }
  Caps caps() const override { return Caps{true, true, multiple_, false}; }
  double timeout_s() const override { return opts_.timeout_s; }

  void allreduce_sum(float* buf, std::size_t count) override {
    // Pieces of at most INT_MAX elements: MPI counts are int.
    WatchedCall w(*wd_, opts_.timeout_s, "allreduce", count, rank_);
    for (std::size_t off = 0; off < count; off += INT_MAX) {
      const int n = static_cast<int>(std::min<std::size_t>(INT_MAX, count - off));
      MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf + off, n, MPI_FLOAT, MPI_SUM, comm_));
    }
  }
  void broadcast(float* buf, std::size_t count, int root) override {
    WatchedCall w(*wd_, opts_.timeout_s, "broadcast", count, rank_);
    for (std::size_t off = 0; off < count; off += INT_MAX) {
      const int n = static_cast<int>(std::min<std::size_t>(INT_MAX, count - off));
      MPI_CHECK(MPI_Bcast(buf + off, n, MPI_FLOAT, root, comm_));
    }
  }
  void barrier() override {
    WatchedCall w(*wd_, opts_.timeout_s, "barrier", 0, rank_);
    MPI_CHECK(MPI_Barrier(comm_));
  }

  std::vector<std::string> allgather(std::string_view mine) override {
    const int len = to_int(mine.size(), "allgather string");
    WatchedCall w(*wd_, opts_.timeout_s, "allgather", mine.size(), rank_);
    std::vector<int> lens(static_cast<std::size_t>(size_)), offs(static_cast<std::size_t>(size_));
    MPI_CHECK(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm_));
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      offs[static_cast<std::size_t>(r)] = to_int(total, "allgather total");
      total += static_cast<std::size_t>(lens[static_cast<std::size_t>(r)]);
    }
    std::string all(total, '\0');
    MPI_CHECK(MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, comm_));
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r)
      out.push_back(all.substr(static_cast<std::size_t>(offs[static_cast<std::size_t>(r)]),
                               static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
    return out;
  }

  void allgather_fixed(const void* mine, std::size_t bytes, void* all) override {
    const int len = to_int(bytes, "allgather_fixed size");
    WatchedCall w(*wd_, opts_.timeout_s, "allgather", bytes, rank_);
    MPI_CHECK(MPI_Allgather(mine, len, MPI_BYTE, all, len, MPI_BYTE, comm_));
  }

  void collective(const CollArgs& a) override {
    check_args(a, rank_, size_, "mpi");
    WatchedCall w(*wd_, opts_.timeout_s, coll_info(a.coll).name.data(), a.count, rank_);
    mpi_collective(comm_, rank_, size_, a);
  }

  std::unique_ptr<Communicator> dup() override { return std::make_unique<MpiComm>(comm_, opts_, wd_); }

  Request isend(const void* buf, std::size_t bytes, int peer, int tag) override {
    auto r = std::make_unique<MpiRequest>(comm_, rank_, peer, tag, bytes, true, opts_.timeout_s, opts_.spin_s);
    MPI_CHECK(MPI_Isend(buf, to_int(bytes, "message size"), MPI_BYTE, peer, tag, comm_, r->handle()));
    return Request(std::move(r));
  }
  Request irecv(void* buf, std::size_t bytes, int peer, int tag) override {
    auto r = std::make_unique<MpiRequest>(comm_, rank_, peer, tag, bytes, false, opts_.timeout_s, opts_.spin_s);
    MPI_CHECK(MPI_Irecv(buf, to_int(bytes, "message size"), MPI_BYTE, peer, tag, comm_, r->handle()));
    return Request(std::move(r));
  }

  [[noreturn]] void abort(const std::string& reason) override { abort_job(comm_, rank_, reason); }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  CommOptions opts_;
  std::shared_ptr<MpiWatchdog> wd_;  // shared by a world and its dups; its thread ends with the last
  int rank_ = 0, size_ = 1;
  bool multiple_ = false;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_world(CommOptions opts) {
  SB_REQUIRE(mpi_active(), "mpi transport: MPI is not initialised (create an MpiSession first, and launch with mpirun)");
  SB_REQUIRE(opts.timeout_s > 0, "comm timeout must be > 0 s, got {}", opts.timeout_s);
  SB_REQUIRE(opts.spin_s >= 0, "comm spin must be >= 0 s, got {}", opts.spin_s);
  int level = 0;
  MPI_CHECK(MPI_Query_thread(&level));
  return std::make_unique<MpiComm>(MPI_COMM_WORLD, opts, std::make_shared<MpiWatchdog>(level == MPI_THREAD_MULTIPLE));
}

}  // namespace scalebench::comm
