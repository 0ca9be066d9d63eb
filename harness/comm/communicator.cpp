// communicator.cpp — the transport-independent parts of communicator.h: the Request handle,
// wait_all, host names and the node map. No transport code here.
#include "harness/comm/communicator.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>

#include "harness/comm/collective.h"
#include "kernels/common/check.h"

namespace scalebench::comm {

void Communicator::allgather_fixed(const void* mine, std::size_t bytes, void* all) {
  const auto got = allgather(std::string_view(static_cast<const char*>(mine), bytes));
  char* out = static_cast<char*>(all);
  for (const auto& s : got) {
    SB_CHECK(s.size() == bytes, "allgather_fixed of {} bytes per rank: a rank sent {}", bytes, s.size());
    std::memcpy(out, s.data(), bytes);
    out += bytes;
  }
}

void Communicator::collective(const CollArgs& a) {
  fail_input(fmt::format("the {} transport does not offer the typed collectives ({} asked for); use threads, mpi or nccl",
                         transport(), coll_info(a.coll).name));
}

Request& Request::operator=(Request&& o) noexcept {
  if (this != &o) {
    if (impl_) impl_->abandon();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

Request::~Request() {
  if (impl_) impl_->abandon();
}

// A failed test/wait withdraws the operation (abandon) before rethrowing, so the transport never
// keeps a pointer into a buffer the unwinding caller is about to free.
bool Request::test() {
  if (!impl_) return true;
  try {
    if (!impl_->test()) return false;
  } catch (...) {
    impl_->abandon();
    impl_.reset();
    throw;
  }
  impl_.reset();
  return true;
}

void Request::wait() {
  if (!impl_) return;
  try {
    impl_->wait();
  } catch (...) {
    impl_->abandon();
    impl_.reset();
    throw;
  }
  impl_.reset();
}

void wait_all(std::vector<Request>& reqs) {
  std::exception_ptr first;
  for (auto& r : reqs) {
    try {
      r.wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  reqs.clear();
  if (first) std::rethrow_exception(first);
}

std::vector<int> NodeMap::leaders() const {
  std::vector<int> out;
  out.reserve(ranks_of_node.size());
  for (const auto& r : ranks_of_node) out.push_back(r.front());
  return out;
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

NodeMap make_node_map(Communicator& comm, int ranks_per_node) {
  NodeMap m;
  m.hostnames = comm.allgather(hostname());
  const int n = comm.size();
  m.node_of_rank.resize(static_cast<std::size_t>(n));
  if (ranks_per_node > 0) {
    for (int r = 0; r < n; ++r) m.node_of_rank[static_cast<std::size_t>(r)] = r / ranks_per_node;
  } else {
    // Nodes are numbered in order of their lowest rank, so node 0 holds rank 0 and the numbering is
    // the same on every rank (they all see the same host list).
    std::map<std::string, int> ids;
    for (int r = 0; r < n; ++r) {
      auto [it, fresh] = ids.emplace(m.hostnames[static_cast<std::size_t>(r)], static_cast<int>(ids.size()));
      m.node_of_rank[static_cast<std::size_t>(r)] = it->second;
    }
  }
  const int nodes = n == 0 ? 0 : *std::max_element(m.node_of_rank.begin(), m.node_of_rank.end()) + 1;
  m.ranks_of_node.assign(static_cast<std::size_t>(nodes), {});
  for (int r = 0; r < n; ++r) m.ranks_of_node[static_cast<std::size_t>(m.node_of_rank[static_cast<std::size_t>(r)])].push_back(r);
  m.node = m.node_of_rank[static_cast<std::size_t>(comm.rank())];
  const auto& mine = m.ranks_of_node[static_cast<std::size_t>(m.node)];
  m.local_rank = static_cast<int>(std::find(mine.begin(), mine.end(), comm.rank()) - mine.begin());
  return m;
}

}  // namespace scalebench::comm
