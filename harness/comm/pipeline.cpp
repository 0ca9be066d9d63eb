// pipeline.cpp — chunk planning, the two receive loops of pipeline.h, and the wire forms: f32 as is,
// bf16 (round to nearest even of the top 16 bits) and f16 (IEEE half via _Float16). Received 16-bit
// values are widened and added in float32.
// The reduction (buf += slot) is a plain loop the compiler vectorises; it runs while the next chunks
// are already in flight, which is the point of the depth > 1 slots.
#include "harness/comm/pipeline.h"

#include <algorithm>
#include <cstring>

#include "kernels/common/check.h"

namespace scalebench::comm {

namespace {

// f32 on the wire: the chunk is its own wire form, and accumulating is an add.
void accumulate_from_wire(float* __restrict dst, const float* __restrict wire, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] += wire[i];
}

std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<std::uint16_t>(u >> 16);
}
float from_bf16(std::uint16_t h) {
  const std::uint32_t u = std::uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// IEEE binary16: _Float16 (GCC >= 12 and clang on x86-64); GCC 12's C++ has no _Float16 on aarch64,
// where __fp16 is the same IEEE format (conversions round to nearest even).
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__)
using half_t = __fp16;
#else
using half_t = _Float16;
#endif

std::uint16_t to_f16(float f) {
  const half_t h = static_cast<half_t>(f);
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
float from_f16(std::uint16_t b) {
  half_t h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

void pack(const float* src, std::uint16_t* dst, std::size_t n, WireType w) {
  if (w == WireType::bf16)
    for (std::size_t i = 0; i < n; ++i) dst[i] = to_bf16(src[i]);
  else
    for (std::size_t i = 0; i < n; ++i) dst[i] = to_f16(src[i]);
}
float widen(std::uint16_t v, WireType w) { return w == WireType::bf16 ? from_bf16(v) : from_f16(v); }

std::size_t wire_bytes(std::size_t elems, WireType w) { return elems * (w == WireType::f32 ? 4 : 2); }

}  // namespace

void append_chunks(std::vector<Chunk>& out, std::size_t off, std::size_t len, std::size_t chunk_elems) {
  for (std::size_t done = 0; done < len; done += chunk_elems)
    out.push_back({off + done, std::min(chunk_elems, len - done)});
}

Chunk segment(std::size_t count, int n, int k) {
  const auto lo = count * static_cast<std::size_t>(k) / static_cast<std::size_t>(n);
  const auto hi = count * static_cast<std::size_t>(k + 1) / static_cast<std::size_t>(n);
  return {lo, hi - lo};
}

std::size_t chunk_elems(const AllreduceOptions& opts) { return std::max<std::size_t>(1, opts.chunk_bytes / sizeof(float)); }

void Sender::send(const float* buf, const Chunk& c, int peer, int tag) {
  if (wire_ == WireType::f32) {
    reqs_.push_back(comm_.isend(buf + c.off, c.len * sizeof(float), peer, tag));
    return;
  }
  auto& packed = staging_.emplace_back(c.len);  // a deque: earlier buffers never move
  pack(buf + c.off, packed.data(), c.len, wire_);
  reqs_.push_back(comm_.isend(packed.data(), wire_bytes(c.len, wire_), peer, tag));
}

void Sender::wait() {
  wait_all(reqs_);
  reqs_.clear();
  staging_.clear();
}

void round_to_wire(float* buf, std::size_t n, WireType wire) {
  if (wire == WireType::f32) return;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t v;
    pack(buf + i, &v, 1, wire);
    buf[i] = widen(v, wire);
  }
}

void pack_to_wire(const float* src, std::uint16_t* dst, std::size_t n, WireType wire) {
  SB_CHECK(wire != WireType::f32, "pack_to_wire: f32 is its own wire form");
  pack(src, dst, n, wire);
}

void widen_from_wire(const std::uint16_t* src, float* dst, std::size_t n, WireType wire) {
  SB_CHECK(wire != WireType::f32, "widen_from_wire: f32 is its own wire form");
  for (std::size_t i = 0; i < n; ++i) dst[i] = widen(src[i], wire);
}

void recv_reduce(Communicator& comm, int src, int tag, float* buf, const std::vector<Chunk>& items, float* scratch,
                 std::size_t slot_elems, int depth, WireType wire, const std::function<void(std::size_t)>& after) {
  const std::size_t n = items.size();
  const auto d = static_cast<std::size_t>(depth);
  std::vector<Request> slots(d);
  auto post = [&](std::size_t i) {
    SB_CHECK(items[i].len <= slot_elems, "chunk of {} elements exceeds the {}-element slot", items[i].len, slot_elems);
    // A 16-bit chunk needs half the slot; the slot is float-sized either way.
    slots[i % d] = comm.irecv(scratch + (i % d) * slot_elems, wire_bytes(items[i].len, wire), src, tag);
  };
  for (std::size_t i = 0; i < std::min(n, d); ++i) post(i);
  for (std::size_t i = 0; i < n; ++i) {
    slots[i % d].wait();
    float* slot = scratch + (i % d) * slot_elems;
    if (wire == WireType::f32) {
      accumulate_from_wire(buf + items[i].off, slot, items[i].len);
    } else {
      std::uint16_t* packed = reinterpret_cast<std::uint16_t*>(slot);
      float* dst = buf + items[i].off;
      for (std::size_t k = 0; k < items[i].len; ++k) dst[k] += widen(packed[k], wire);
    }
    if (i + d < n) post(i + d);  // the slot is free again: keep `depth` receives in flight
    after(i);
  }
}

void recv_into(Communicator& comm, int src, int tag, float* buf, const std::vector<Chunk>& items, WireType wire,
               const std::function<void(std::size_t)>& after) {
  std::vector<Request> reqs;
  reqs.reserve(items.size());
  std::vector<std::vector<std::uint16_t>> staged(wire == WireType::f32 ? 0 : items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Chunk& c = items[i];
    if (wire == WireType::f32) {
      reqs.push_back(comm.irecv(buf + c.off, c.len * sizeof(float), src, tag));
    } else {
      staged[i].resize(c.len);
      reqs.push_back(comm.irecv(staged[i].data(), wire_bytes(c.len, wire), src, tag));
    }
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    reqs[i].wait();
    if (wire != WireType::f32) widen_from_wire(staged[i].data(), buf + items[i].off, items[i].len, wire);
    after(i);
  }
}

}  // namespace scalebench::comm
