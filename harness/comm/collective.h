// collective.h — the typed collectives of the Communicator interface (Communicator::collective):
// which collective (the list in collectives.def), the element type (float32, bfloat16, float16),
// buffer shapes and the in-place convention (NCCL's), the CPU-side 16-bit arithmetic, and the
// deterministic inputs commbench and the tests verify against.
// In place, as in NCCL: same/all2all shapes: send == recv; allgather: send == recv + rank*count;
// reduce_scatter: recv == send + rank*count (elements). Anything else is out of place.
// 16-bit reductions on the CPU transports: each element is converted to float, summed over the
// ranks in rank order in float and rounded once to the type (so every rank gets the same bits, and
// a sum is exact whenever the float sum is); NCCL reduces bf16/fp16 on the GPU its own way.
// It deliberately does not do any communication (the transports do) or timing (commbench does).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/enum_names.h"
#include "kernels/common/tensor.h"  // DType

namespace scalebench::comm {

enum class Coll : std::uint8_t {
#define SB_COLL(id, name, a, b, formula, reduces, rooted, shape) id,
#include "harness/comm/collectives.def"
#undef SB_COLL
};

enum class CollShape : std::uint8_t { same, gather, scatter, all2all };

struct CollInfo {
  Coll coll;
  std::string_view name;
  int busbw_a, busbw_b;       // busbw = algbw * (a*n + b) / n
  std::string_view formula;   // that factor, printed
  bool reduces, rooted;
  CollShape shape;
  double busbw_factor(int n) const { return n > 0 ? double(busbw_a * n + busbw_b) / n : 0.0; }
};

inline constexpr std::array kCollectives{
#define SB_COLL(id, name, a, b, formula, reduces, rooted, shape) \
  CollInfo{Coll::id, name, a, b, formula, reduces, rooted, CollShape::shape},
#include "harness/comm/collectives.def"
#undef SB_COLL
};

const CollInfo& coll_info(Coll c);

}  // namespace scalebench::comm

namespace scalebench {
template <>
struct EnumNames<comm::Coll> {
  static constexpr auto entries = [] {
    std::array<EnumEntry<comm::Coll>, comm::kCollectives.size()> e{};
    for (std::size_t i = 0; i < e.size(); ++i) e[i] = {comm::kCollectives[i].coll, comm::kCollectives[i].name};
    return e;
  }();
};
}  // namespace scalebench

namespace scalebench::comm {

// Element types of the typed collectives, by nccl-tests' names (float, bfloat16, half).
struct CommType {
  DType t;
  std::string_view name;
};
inline constexpr std::array<CommType, 3> kCommTypes{{{DType::f32, "float"}, {DType::bf16, "bfloat16"}, {DType::f16, "half"}}};
std::string_view comm_type_name(DType t);
DType parse_comm_type(std::string_view s, std::string_view what);  // Error "<what>: 'x' is not one of: ..."
std::string comm_type_choices(std::string_view sep = ", ");
// Comma-separated lists at the CLI boundary: "allgather,broadcast" or "all"; "float,half". Errors
// name the option and the bad item. And back to text (the CLI's defaults).
std::vector<Coll> parse_coll_list(std::string_view s, std::string_view what);
std::vector<DType> parse_type_list(std::string_view s, std::string_view what);
std::string coll_list_text(const std::vector<Coll>& v);
std::string type_list_text(const std::vector<DType>& v);
inline std::size_t elem_size(DType t) { return t == DType::f32 ? 4 : 2; }

// One typed collective call. `count` is NCCL's count: elements per rank block (see the shapes in
// collectives.def). root: broadcast and reduce only. sendrecv sends to rank+1 and receives from
// rank-1 (a ring shift, as nccl-tests' sendrecv).
struct CollArgs {
  Coll coll = Coll::allreduce;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;
  DType type = DType::f32;
  int root = 0;
};

std::size_t send_elems(Coll c, std::size_t count, int n);
std::size_t recv_elems(Coll c, std::size_t count, int n);
// Whether `a` is in place for `rank` of `n` (the convention above).
bool is_in_place(const CollArgs& a, int rank, int n);
// Error naming the problem: root out of range, null buffers with count > 0, or buffers that
// overlap without being in place.
void check_args(const CollArgs& a, int rank, int n, std::string_view transport);

// Element i of a typed buffer as float, and back (rounded to nearest even). Inline: the reduction
// loops call them per element with a loop-invariant type, which the compiler then hoists.
inline float bf16_to_float(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t(h) << 16); }
inline std::uint16_t float_to_bf16(float f) {
  const auto u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);  // NaN stays NaN (quiet)
  return std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);                  // round to nearest even
}
inline float load_elem(const void* p, std::size_t i, DType t) {
  switch (t) {
    case DType::f32: return static_cast<const float*>(p)[i];
    case DType::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(p)[i]);
    case DType::f16: return float(static_cast<const _Float16*>(p)[i]);
  }
  return 0;
}
inline void store_elem(void* p, std::size_t i, DType t, float v) {
  switch (t) {
    case DType::f32: static_cast<float*>(p)[i] = v; return;
    case DType::bf16: static_cast<std::uint16_t*>(p)[i] = float_to_bf16(v); return;
    case DType::f16: static_cast<_Float16*>(p)[i] = static_cast<_Float16>(v); return;
  }
}

// Deterministic inputs whose sums are exact in every type up to 240 ranks (small integers, sum
// <= 240): rank r's send buffer (send_elems of it), and the number of elements of rank r's result
// that differ from what they must be (0 where the rank receives nothing: reduce off the root).
void fill_input(Coll c, DType t, void* send, std::size_t count, int rank, int n);
std::size_t count_wrong(Coll c, DType t, const void* recv, std::size_t count, int rank, int n, int root);

}  // namespace scalebench::comm
