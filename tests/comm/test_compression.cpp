// test_compression.cpp — 16-bit wire types (bf16, f16) for ring and hierarchical allreduce over the
// threads transport at 1..4 ranks: exact sums where every value and partial sum is representable,
// bit-identical results on every rank for arbitrary inputs, an error bounded by the wire's rounding,
// and a clear error for the native collective (which is float32 only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "harness/comm/allreduce.h"
#include "harness/comm/threads_comm.h"
#include "kernels/common/check.h"

using namespace scalebench;
using namespace scalebench::comm;

namespace {

struct WireCase {
  AllreduceAlgo algo;
  int ranks_per_node;
  WireType wire;
};

AllreduceOptions options(const WireCase& w, int n) {
  AllreduceOptions o;
  o.algo = w.algo;
  o.ranks_per_node = w.ranks_per_node < 0 ? n : w.ranks_per_node;
  o.wire = w.wire;
  o.chunk_bytes = 64;  // many chunks: exercises the staging of packed sends
  return o;
}

// Pseudo-random values in [-1, 1), different per rank.
float noise(std::size_t i, int r) {
  std::uint64_t x = (std::uint64_t(i) << 8 | std::uint64_t(r)) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return float(double(x >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

const WireCase kCases[] = {
    {AllreduceAlgo::ring, 0, WireType::bf16},         {AllreduceAlgo::ring, 0, WireType::f16},
    {AllreduceAlgo::hierarchical, 1, WireType::bf16}, {AllreduceAlgo::hierarchical, 2, WireType::f16},
    {AllreduceAlgo::hierarchical, -1, WireType::bf16},
};

}  // namespace

TEST(Compression, SmallIntegersSumExactly) {
  for (const WireCase& w : kCases)
    for (int n = 1; n <= 4; ++n)
      ThreadsWorld::run(n, [&](Communicator& c) {
        Allreducer ar(c, options(w, n));
        const std::size_t count = 1009;
        std::vector<float> buf(count);
        // |value| <= 8 and |partial sum| <= 32: exact in bf16 (8 significant bits) and f16.
        for (std::size_t i = 0; i < count; ++i) buf[i] = float(int((i * 7 + std::size_t(c.rank()) * 13) % 17) - 8);
        ar(buf.data(), count);
        for (std::size_t i = 0; i < count; ++i) {
          float want = 0;
          for (int r = 0; r < n; ++r) want += float(int((i * 7 + std::size_t(r) * 13) % 17) - 8);
          ASSERT_EQ(buf[i], want) << to_string(w.wire) << " " << to_string(w.algo) << " n=" << n << " i=" << i;
        }
      });
}

TEST(Compression, RanksBitIdenticalAndErrorBounded) {
  for (const WireCase& w : kCases)
    for (int n = 1; n <= 4; ++n) {
      const std::size_t count = 4099;
      std::vector<std::vector<float>> results(static_cast<std::size_t>(n));
      std::mutex mu;
      ThreadsWorld::run(n, [&](Communicator& c) {
        Allreducer ar(c, options(w, n));
        std::vector<float> buf(count);
        for (std::size_t i = 0; i < count; ++i) buf[i] = noise(i, c.rank());
        ar(buf.data(), count);
        std::lock_guard<std::mutex> lk(mu);
        results[std::size_t(c.rank())] = buf;
      });
      // Each hop rounds a partial sum (|.| <= n) to the wire: relative 2^-9 (bf16) or 2^-12 (f16).
      const double unit = w.wire == WireType::bf16 ? 0x1.0p-8 : 0x1.0p-11;
      double worst = 0;
      for (std::size_t i = 0; i < count; ++i) {
        double exact = 0;
        for (int r = 0; r < n; ++r) exact += noise(i, r);
        worst = std::max(worst, std::abs(double(results[0][i]) - exact));
      }
      EXPECT_LE(worst, unit * n * n) << to_string(w.wire) << " " << to_string(w.algo) << " n=" << n;
      if (n > 1) {
        EXPECT_GT(worst, 0.0) << "16-bit wire left no rounding trace: was it used?";
      }
      for (int r = 1; r < n; ++r) {
        EXPECT_EQ(std::memcmp(results[0].data(), results[std::size_t(r)].data(), count * sizeof(float)), 0)
            << to_string(w.wire) << " " << to_string(w.algo) << " n=" << n << ": rank " << r << " differs";
      }
    }
}

TEST(Compression, NativeCollectiveRefusesIt) {
  ThreadsWorld::run(1, [&](Communicator& c) {
    AllreduceOptions o;
    o.algo = AllreduceAlgo::native;
    o.wire = WireType::bf16;
    try {
      Allreducer ar(c, o);
      ADD_FAILURE() << "native + bf16 was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("ring or hierarchical"), std::string::npos) << e.what();
    }
  });
}

TEST(Compression, ParseNamesTheValue) {
  EXPECT_EQ(parse_enum<WireType>("bf16", "--compression"), WireType::bf16);
  EXPECT_EQ(parse_enum<WireType>("fp16", "--compression"), WireType::f16);
  EXPECT_EQ(parse_enum<WireType>("none", "--compression"), WireType::f32);
  try {
    parse_enum<WireType>("int8", "--compression");
    ADD_FAILURE() << "int8 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'int8'"), std::string::npos) << e.what();
  }
}
