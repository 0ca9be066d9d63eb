// collective.cpp — the transport-independent half of collective.h: the collective and type tables'
// look-ups, buffer shapes and checks, 16-bit conversions, and the verification inputs. No
// communication here.
#include "harness/comm/collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/common/check.h"

namespace scalebench::comm {

const CollInfo& coll_info(Coll c) {
  for (const auto& i : kCollectives)
    if (i.coll == c) return i;
  throw Error("coll_info: not a collective");
}

std::string_view comm_type_name(DType t) {
  for (const auto& e : kCommTypes)
    if (e.t == t) return e.name;
  return "?";
}

std::string comm_type_choices(std::string_view sep) {
  std::string s;
  for (const auto& e : kCommTypes) s += (s.empty() ? "" : std::string(sep)) + std::string(e.name);
  return s;
}

DType parse_comm_type(std::string_view s, std::string_view what) {
  for (const auto& e : kCommTypes)
    if (e.name == s) return e.t;
  fail_input(fmt::format("{}: '{}' is not one of: {}", what, s, comm_type_choices()));
}

namespace {

std::vector<std::string_view> split_list(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t b = 0;;) {
    const std::size_t e = std::min(s.find(',', b), s.size());
    out.push_back(s.substr(b, e - b));
    if (e == s.size()) return out;
    b = e + 1;
  }
}

}  // namespace

std::vector<Coll> parse_coll_list(std::string_view s, std::string_view what) {
  std::vector<Coll> out;
  if (s == "all") {
    for (const auto& c : kCollectives) out.push_back(c.coll);
    return out;
  }
  for (auto item : split_list(s)) {
    const Coll c = parse_enum<Coll>(item, what);
    SB_REQUIRE(std::find(out.begin(), out.end(), c) == out.end(), "{}: '{}' is listed twice", what, item);
    out.push_back(c);
  }
  return out;
}

std::vector<DType> parse_type_list(std::string_view s, std::string_view what) {
  std::vector<DType> out;
  for (auto item : split_list(s)) {
    const DType t = parse_comm_type(item, what);
    SB_REQUIRE(std::find(out.begin(), out.end(), t) == out.end(), "{}: '{}' is listed twice", what, item);
    out.push_back(t);
  }
  return out;
}

std::string coll_list_text(const std::vector<Coll>& v) {
  std::string s;
  for (Coll c : v) s += (s.empty() ? "" : ",") + std::string(coll_info(c).name);
  return s;
}

std::string type_list_text(const std::vector<DType>& v) {
  std::string s;
  for (DType t : v) s += (s.empty() ? "" : ",") + std::string(comm_type_name(t));
  return s;
}

std::size_t send_elems(Coll c, std::size_t count, int n) {
  const auto s = coll_info(c).shape;
  return s == CollShape::scatter || s == CollShape::all2all ? count * std::size_t(n) : count;
}

std::size_t recv_elems(Coll c, std::size_t count, int n) {
  const auto s = coll_info(c).shape;
  return s == CollShape::gather || s == CollShape::all2all ? count * std::size_t(n) : count;
}

bool is_in_place(const CollArgs& a, int rank, int n) {
  const auto* s = static_cast<const char*>(a.send);
  const auto* r = static_cast<const char*>(a.recv);
  const std::size_t block = a.count * elem_size(a.type) * std::size_t(rank);
  (void)n;
  switch (coll_info(a.coll).shape) {
    case CollShape::gather: return s == r + block;
    case CollShape::scatter: return r == s + block;
    default: return s == r;
  }
}

void check_args(const CollArgs& a, int rank, int n, std::string_view transport) {
  const auto& ci = coll_info(a.coll);
  SB_REQUIRE(!ci.rooted || (a.root >= 0 && a.root < n), "{} transport: {} root {} is not a rank of this {}-rank communicator",
             transport, ci.name, a.root, n);
  if (a.count == 0) return;
  SB_REQUIRE(a.send != nullptr && a.recv != nullptr, "{} transport: {} of {} elements with a null buffer", transport,
             ci.name, a.count);
  if (is_in_place(a, rank, n)) return;
  const std::size_t es = elem_size(a.type);
  const auto* s = static_cast<const char*>(a.send);
  const auto* r = static_cast<const char*>(a.recv);
  const std::size_t sb = send_elems(a.coll, a.count, n) * es, rb = recv_elems(a.coll, a.count, n) * es;
  SB_REQUIRE(s + sb <= r || r + rb <= s, "{} transport: {} buffers overlap but are not in place (see collective.h)",
             transport, ci.name);
}

namespace {

// Element i of rank r's send buffer: a small integer; n ranks' values sum to at most 240 (exact in
// bfloat16, whose integers are exact to 256). Past 240 ranks every value is 1.
float value(std::size_t i, int r, int n) {
  const std::size_t m = std::clamp<std::size_t>(240 / std::size_t(std::max(n, 1)), 1, 17);
  return float((i * 7 + std::size_t(r) * 13) % m + 1);
}

float sum_over_ranks(std::size_t i, int n) {
  float s = 0;
  for (int r = 0; r < n; ++r) s += value(i, r, n);
  return s;
}

}  // namespace

void fill_input(Coll c, DType t, void* send, std::size_t count, int rank, int n) {
  const std::size_t e = send_elems(c, count, n);
  for (std::size_t i = 0; i < e; ++i) store_elem(send, i, t, value(i, rank, n));
}

std::size_t count_wrong(Coll c, DType t, const void* recv, std::size_t count, int rank, int n, int root) {
  const std::size_t e = recv_elems(c, count, n);
  std::size_t wrong = 0;
  auto expect = [&](std::size_t i) -> float {
    switch (c) {
      case Coll::allreduce: return sum_over_ranks(i, n);
      case Coll::reduce: return sum_over_ranks(i, n);
      case Coll::reduce_scatter: return sum_over_ranks(std::size_t(rank) * count + i, n);
      case Coll::allgather: return value(i % count, int(i / count), n);
      case Coll::broadcast: return value(i, root, n);
      case Coll::alltoall: return value(std::size_t(rank) * count + i % count, int(i / count), n);
      case Coll::sendrecv: return value(i, (rank + n - 1) % n, n);
    }
    return 0;
  };
  if (c == Coll::reduce && rank != root) return 0;
  std::vector<char> want(elem_size(t));
  for (std::size_t i = 0; i < e; ++i) {
    // The expected value rounded to the type once, compared bit for bit through float.
    store_elem(want.data(), 0, t, expect(i));
    if (load_elem(recv, i, t) != load_elem(want.data(), 0, t)) ++wrong;
  }
  return wrong;
}

}  // namespace scalebench::comm
