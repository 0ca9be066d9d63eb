// schedule_test_util.h — what the round-schedule tests share (tests/comm/test_schedule*.cpp on CPUs,
// tests/gpu/comm/test_nccl_schedule.cpp on GPUs): random inputs, a bitwise comparison, and one
// hand-written schedule that takes every path of an executor. Header-only; no test logic.
#pragma once

#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "harness/comm/schedule.h"

namespace sbtest {

// `count` floats from N(0, 3), a fixed function of `seed`: not exactly summable, so any change in
// the order or rounding of additions shows in the bits.
inline std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = nd(rng);
  return v;
}

// How many elements differ in their bits (NaN payloads and signed zeros included).
inline std::size_t count_differing(const std::vector<float>& a, const std::vector<float>& b) {
  std::size_t d = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  return d;
}

// A one-rank schedule of transfers to self taking every executor path: receive-and-add,
// receive-and-store, several sends and receives in one round, rounding before a send, and a
// rounding-only round. Runs on a buffer of `count` elements.
struct EveryPathSchedule {
  static constexpr std::size_t L = 1031;
  static constexpr std::size_t count = 3 * L + 5;
  scalebench::comm::Schedule s;
  EveryPathSchedule() {
    using scalebench::comm::Transfer;
    using K = Transfer::Kind;
    auto xfer = [](K k, std::size_t off, std::size_t len) { return Transfer{k, 0, {off, len}}; };
    s.rounds.push_back({{}, {xfer(K::send, 0, L), xfer(K::recv_add, L, L)}});
    s.rounds.push_back({{{L, L}}, {xfer(K::send, L, L), xfer(K::recv_store, 2 * L, L)}});
    s.rounds.push_back({{{0, 7}}, {}});
    s.rounds.push_back({{},
                        {xfer(K::send, 2 * L, L), xfer(K::send, L, 5), xfer(K::recv_add, 0, L),
                         xfer(K::recv_store, 3 * L, 5)}});
  }
};

}  // namespace sbtest
