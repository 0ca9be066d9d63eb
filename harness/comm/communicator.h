// communicator.h — the Communicator interface every transport implements (DESIGN §3), its Request
// handle for non-blocking point-to-point, and the node map (which ranks share a host).
// It deliberately knows nothing about MPI, threads or GPUs; the allreduce algorithms in this room
// (ring, hierarchical) are written only against this interface so they run over every transport.
//
// Thread-safety contract: ONE thread at a time per Communicator object (a "communication thread").
// A strategy that overlaps bucket allreduces with backward gives its background thread its own
// communicator from dup() and keeps using the original on the main thread; two threads must never
// call into the same Communicator (or wait on its Requests) concurrently. Requests are waited on by
// the thread that created them.
//
// Point-to-point semantics follow MPI's, deliberately strictly: a send may block until the matching
// receive is posted (no buffering is promised, so code that only works with eager sends fails on
// every transport, not just on big messages); messages between one (source, destination, tag) are
// delivered in order; the receive size must equal the send size exactly (a mismatch is an Error).
// There is no "any source" receive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace scalebench::comm {

struct CollArgs;  // collective.h

// Options shared by the transports.
struct CommOptions {
  // A blocking wait (recv, Request::wait, barrier, threads-transport collectives) that lasts longer
  // than this ends the run: an Error on the threads transport, MPI_Abort naming the peer on mpi.
  // Long on purpose: a rank may legitimately compute for minutes between exchanges.
  double timeout_s = 300.0;
  // mpi: how long a wait busy-polls MPI_Test before it yields the core on each poll (and, 5 ms later,
  // naps 50 us per poll). Short by default: with a core per rank a yield costs nothing, and where
  // compute threads or other ranks share the cores, spinning would take the core from them.
  double spin_s = 50e-6;
};

// What a transport can do natively; the algorithms and strategies branch on these, not on names.
struct Caps {
  bool native_allreduce = false;  // allreduce_sum() is a transport collective (not emulated)
  bool native_broadcast = false;
  bool concurrent_comms = false;  // different Communicators may be driven from different threads at once
  bool device_buffers = false;    // buffers live on a compute device (nccl, staged); false: host memory only
  bool staged = false;            // device buffers copied through host memory (staged.h): a StagedComm
};

// Non-blocking operation handle. Move-only. Wait (or test to true) every Request before its buffer
// goes away. Destroying a pending Request abandons it: that is the error path (an exception is
// unwinding and the job is ending), so it must not block for the full timeout: the threads transport
// withdraws an unmatched operation, mpi cancels a receive and frees a send request.
class Request {
 public:
  class Impl {
   public:
    virtual ~Impl() = default;
    virtual bool test() = 0;     // true once complete; throws Error if the operation failed
    virtual void wait() = 0;     // blocks up to the communicator's timeout; throws/aborts on expiry
    virtual void abandon() = 0;  // never throws
  };
  Request() = default;
  explicit Request(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
  Request(Request&&) noexcept = default;
  Request& operator=(Request&& o) noexcept;
  ~Request();

  bool valid() const { return impl_ != nullptr; }
  bool test();  // a completed (or empty) Request tests true and becomes empty
  void wait();  // no-op on an empty Request; afterwards the Request is empty

 private:
  std::unique_ptr<Impl> impl_;
};

// Waits for every request in order (the first failure is rethrown after the rest were waited on).
void wait_all(std::vector<Request>& reqs);

class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const char* transport() const = 0;  // "threads" | "mpi" | "nccl" | "staged"
  virtual Caps caps() const = 0;
  virtual double timeout_s() const = 0;

  // Collectives: every rank calls them in the same order with the same counts.
  virtual void allreduce_sum(float* buf, std::size_t count) = 0;  // in place, transport's own collective
  virtual void broadcast(float* buf, std::size_t count, int root) = 0;
  virtual void barrier() = 0;
  // Every rank's byte string, indexed by rank (small strings: configuration digests, host names).
  virtual std::vector<std::string> allgather(std::string_view mine) = 0;
  // Every rank's `bytes` bytes (the same count on every rank), rank after rank, into
  // all[size() * bytes]: the per-step agreement's collective (scalar_reduce.h). The default goes
  // through allgather and checks the sizes; mpi overrides it with one MPI_Allgather, where
  // allgather's unknown lengths take two collectives (each a round of latency per hop).
  virtual void allgather_fixed(const void* mine, std::size_t bytes, void* all);
  // The agreement's block from each rank: two doubles (allreduce_scalar_max_sum's), as commbench
  // times it and `scalebench project` prices it.
  static constexpr std::size_t kAgreeBytes = 2 * sizeof(double);
  // A typed collective (collective.h; the list in collectives.def): allreduce, allgather,
  // reduce_scatter, broadcast, reduce, alltoall or sendrecv of float32/bfloat16/float16, in or out
  // of place. threads, mpi and nccl implement it; the default (the staged transport) refuses with
  // an Error naming the transport and the collective.
  virtual void collective(const CollArgs& a);
  // A new communicator over the same ranks with its own message space (collective).
  virtual std::unique_ptr<Communicator> dup() = 0;

  // Point-to-point. Tags are >= 0 and < 2^20 (the algorithms use tags from kAlgoTagBase up).
  virtual Request isend(const void* buf, std::size_t bytes, int peer, int tag) = 0;
  virtual Request irecv(void* buf, std::size_t bytes, int peer, int tag) = 0;
  void send(const void* buf, std::size_t bytes, int peer, int tag) { isend(buf, bytes, peer, tag).wait(); }
  void recv(void* buf, std::size_t bytes, int peer, int tag) { irecv(buf, bytes, peer, tag).wait(); }

  // Ends the whole job with `reason` (mpi: MPI_Abort after printing it; threads: every rank's
  // pending and future waits fail with it, and the caller gets an Error).
  [[noreturn]] virtual void abort(const std::string& reason) = 0;

  static constexpr int kMaxTag = (1 << 20) - 1;
  static constexpr int kAlgoTagBase = 1 << 19;  // tags >= this belong to this room's algorithms
};

// Which ranks share a node. Built from host names, or from a ranks_per_node override (rank / rpn)
// so that one host can emulate several nodes.
struct NodeMap {
  int node = 0;                    // this rank's node index (nodes numbered by first rank)
  int local_rank = 0;              // position among the ranks of its node
  std::vector<int> node_of_rank;   // size() entries
  std::vector<std::vector<int>> ranks_of_node;  // ranks of each node, ascending; [0] is the leader
  std::vector<std::string> hostnames;           // every rank's host name
  int num_nodes() const { return static_cast<int>(ranks_of_node.size()); }
  int local_size() const { return static_cast<int>(ranks_of_node[static_cast<std::size_t>(node)].size()); }
  int leader() const { return ranks_of_node[static_cast<std::size_t>(node)][0]; }
  std::vector<int> leaders() const;
};

// Collective. ranks_per_node <= 0: group by host name; otherwise node = rank / ranks_per_node.
NodeMap make_node_map(Communicator& comm, int ranks_per_node = 0);

// This machine's host name (gethostname; "unknown" if that fails).
std::string hostname();

}  // namespace scalebench::comm
