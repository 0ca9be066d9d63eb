// schedule_executor.h — the staged executor of round schedules (schedule.h), written once over a
// small set of operations so that the nccl executor's sequencing and buffer layout also run, and
// are tested, on CPUs. Per round:
//   1. round_to_wire ranges: pack to the wire type in the 16-bit area, widen back in place;
//   2. sends packed to the wire type (16-bit area), receives given their landing place (16-bit area,
//      the f32 area for a float32 receive-and-add, the user buffer for a float32 receive-and-store);
//   3. every transfer of the round posted together and completed (Ops::exchange);
//   4. what arrived widened to float32 (f32 area) and added into the user buffer, or stored.
// The additions and roundings are run_schedule_on_host's, in the same order, so both executors give
// the same bits. Bindings: nccl/schedule.cpp (CUDA kernels and one NCCL group per round, all on
// one stream, waited for once); tests/comm/test_schedule_executor.cpp (host loops over a
// Communicator, checked against run_schedule_on_host). What it deliberately does not do: overlap a
// round's additions with the next round's transfers, or add in 16-bit.
//
// Ops must provide (pointers are in the binding's memory; "wire" is 2 bytes an element if packed):
//   void* workspace(std::size_t bytes);                        // at least `bytes`, 256-byte aligned
//   void pack(std::size_t n, const float* src, void* wire);    // f32 -> wire type
//   void widen(std::size_t n, const void* wire, float* dst);   // wire type -> f32 (exact)
//   void add(std::size_t n, float* dst, const float* src);     // dst += src, float32
//   void exchange(std::size_t round, const std::vector<Transfer>&, const std::vector<void*>& where,
//                 std::size_t elem_bytes);                     // transfer i sends/lands at where[i]
//   void run_round(std::size_t round, const std::function<void()>& body);  // error context
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "harness/comm/schedule.h"

namespace scalebench::comm {

// Where the executor stages data: [f32 area | 16-bit area], sized for the schedule's busiest round.
struct StagedLayout {
  std::size_t f32_bytes = 0;   // receive-and-add landing (f32 wire) or widening (16-bit wire) area
  std::size_t half_elems = 0;  // 16-bit elements: a round's packed sends + landed receives, or one rounding
  std::size_t total_bytes() const { return f32_bytes + half_elems * 2; }
};

inline StagedLayout staged_layout(const Schedule& s, WireType wire) {
  StagedLayout l;
  const std::size_t recv = s.max_round_recv_elems();
  l.f32_bytes = (recv * sizeof(float) + 255) / 256 * 256;  // keeps the 16-bit area 256-byte aligned
  if (wire != WireType::f32) {
    std::size_t most_rounded = 0;
    for (const Round& r : s.rounds)
      for (const Chunk& c : r.round_to_wire) most_rounded = std::max(most_rounded, c.len);
    l.half_elems = std::max(s.max_round_send_elems() + recv, most_rounded);
  }
  return l;
}

template <class Ops>
void run_schedule_staged(const Schedule& s, float* buf, WireType wire, Ops& ops) {
  if (s.rounds.empty()) return;  // one rank, or nothing to reduce: the same on every rank
  const bool packed = wire != WireType::f32;
  const StagedLayout layout = staged_layout(s, wire);
  char* ws = static_cast<char*>(ops.workspace(std::max<std::size_t>(layout.total_bytes(), 1)));
  float* wide = reinterpret_cast<float*>(ws);
  char* half = ws + layout.f32_bytes;
  const std::size_t esize = packed ? 2 : sizeof(float);

  for (std::size_t ri = 0; ri < s.rounds.size(); ++ri) {
    const Round& r = s.rounds[ri];
    ops.run_round(ri, [&] {
      if (packed)
        for (const Chunk& c : r.round_to_wire) {
          ops.pack(c.len, buf + c.off, half);
          ops.widen(c.len, half, buf + c.off);
        }
      if (r.transfers.empty()) return;  // a rounding-only round (the hierarchical leader's)
      std::vector<void*> where(r.transfers.size());
      std::size_t half_at = 0, wide_at = 0;  // elements handed out so far: 16-bit area, f32 area
      for (std::size_t i = 0; i < r.transfers.size(); ++i) {
        const Transfer& t = r.transfers[i];
        float* user = buf + t.range.off;
        if (packed) {
          where[i] = half + half_at * 2;
          half_at += t.range.len;
          if (t.kind == Transfer::Kind::send) ops.pack(t.range.len, user, where[i]);
        } else if (t.kind == Transfer::Kind::recv_add) {
          where[i] = wide + wide_at;
          wide_at += t.range.len;
        } else {
          where[i] = user;  // float32 sends leave from, and stores land in, the user buffer
        }
      }
      ops.exchange(ri, r.transfers, where, esize);
      std::size_t widened_at = 0;  // 16-bit receive-and-adds are widened into the f32 area, in order
      for (std::size_t i = 0; i < r.transfers.size(); ++i) {
        const Transfer& t = r.transfers[i];
        float* user = buf + t.range.off;
        if (t.kind == Transfer::Kind::recv_add) {
          float* addend = static_cast<float*>(where[i]);
          if (packed) {
            addend = wide + widened_at;
            widened_at += t.range.len;
            ops.widen(t.range.len, where[i], addend);
          }
          ops.add(t.range.len, user, addend);
        } else if (t.kind == Transfer::Kind::recv_store && packed) {
          ops.widen(t.range.len, where[i], user);
        }
      }
    });
  }
}

}  // namespace scalebench::comm
