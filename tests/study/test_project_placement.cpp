// test_project_placement.cpp — whole variables on parameter servers (ps_placement.h): TensorFlow's
// greedy and round-robin placements against hand-placed lists, the busiest server's share driving the
// exchange's load, a list whose placement is the equal shares, and bad --ps-variables files. The
// end-to-end header and errors of `project --ps-variables` are in test_project_inputs.cpp. Milliseconds.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "harness/study/project/netmodel.h"
#include "harness/study/project/ps_placement.h"
#include "kernels/common/check.h"
#include "tests/common/harness_test_util.h"
#include "tests/study/project_fixtures.h"

namespace scalebench::project {
namespace {
using fixtures::equal_shares, fixtures::net;

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

// a 6, b 5 and d 3 and e 2 bytes with a gradient, c 4 bytes without (a batch norm statistic)
const char* kFive = "# five variables\na 6 trainable\nb 5 trainable\nc 4 fixed  # placed, no gradient\n\nd 3 trainable\ne 2 trainable\n";

TEST(ProjectPlacement, GreedyAndRoundRobinByHand) {
  sbtest::TempDir d;
  const std::vector<PsVariable> v = read_ps_variables(write_file(d.path() + "/v.txt", kFive));
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[2].name, "c");
  EXPECT_FALSE(v[2].trainable);
  // greedy over 2, bytes so far [0,0]: a -> 0 [6,0]; b -> 1 [6,5]; c -> 1 [6,9]; d -> 0 [9,9]; e -> 0, the
  // first of equals [11,9]. The gradient: server 0 a+d+e = 11, server 1 b = 5 (c has none)
  EXPECT_EQ(place_variables(v, 2, PsPlacement::greedy), (std::vector<double>{11, 5}));
  // round-robin: a 0, b 1, c 2, d 0, e 1 over 3
  EXPECT_EQ(place_variables(v, 3, PsPlacement::round_robin), (std::vector<double>{9, 7, 0}));
  // the shares at 4 nodes of 2 servers: 11/16 and 5/16; the busiest link in a phase: the node of the
  // 11/16 server takes 3 x 11/16 from the others' workers (over 1, what a node without a server sends)
  const PsShares s = ps_shares({{4, 2}}, v, PsPlacement::greedy, "v.txt");
  EXPECT_EQ(s.by_nodes.at(4), (std::vector<double>{11.0 / 16, 5.0 / 16}));
  EXPECT_DOUBLE_EQ(ps_shard_load(4, s.by_nodes.at(4)), 33.0 / 16);
  EXPECT_NE(s.placement.find("whole variables, greedy"), std::string::npos) << s.placement;
  EXPECT_NE(s.placement.find("NODES:SHARE 4:0.688"), std::string::npos) << s.placement;
  // 4 ranks one a node, 1 MB at 100 MB/s and 10 us: a push and a pull of 33/16 MB (equal shares: 1.5)
  Network n = net(10e-6, 1e8);
  n.ps_shards = s.by_nodes;
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 4, 1e6, n), 2 * (10e-6 + 33.0 / 16 * 0.01), 1e-12);
  n.ps_shards = {{4, equal_shares(2)}};
  EXPECT_NEAR(allreduce_time(StrategyKind::ring, 4, 1e6, n), 2 * (10e-6 + 1.5 * 0.01), 1e-12);
}

TEST(ProjectPlacement, EqualVariablesAreEqualShares) {
  sbtest::TempDir d;
  const auto v = read_ps_variables(write_file(d.path() + "/v.txt", "w0 8 trainable\nw1 8 trainable\nw2 8 trainable\n"
                                                                   "w3 8 trainable\n"));
  // four equal variables over 2 or 4 servers: both rules give the equal shares, and the load is --ps-shards'
  for (PsPlacement rule : {PsPlacement::greedy, PsPlacement::round_robin}) {
    const PsShares s = ps_shares({{4, 2}, {8, 4}}, v, rule, "v.txt");
    EXPECT_EQ(s.by_nodes.at(4), equal_shares(2));
    EXPECT_EQ(s.by_nodes.at(8), equal_shares(4));
    EXPECT_DOUBLE_EQ(ps_shard_load(8, s.by_nodes.at(8)), ps_shard_load(8, 4));
  }
  // over 3 servers they cannot be: 16, 8, 8 bytes (either rule), the busiest node's 3 x 1/2 over 1
  const PsShares three = ps_shares({{4, 3}}, v, PsPlacement::greedy, "v.txt");
  EXPECT_EQ(three.by_nodes.at(4), (std::vector<double>{0.5, 0.25, 0.25}));
  EXPECT_DOUBLE_EQ(ps_shard_load(4, three.by_nodes.at(4)), 1.5);
  EXPECT_DOUBLE_EQ(ps_shard_load(4, 3), 1.0);
  // without variables: equal shares, said so
  const PsShares none = ps_shares({{4, 3}}, {}, PsPlacement::greedy, "");
  EXPECT_EQ(none.by_nodes.at(4), equal_shares(3));
  EXPECT_NE(none.placement.find("equal shares"), std::string::npos) << none.placement;
}

TEST(ProjectPlacement, BadFilesFailWithOneLineNamingTheLine) {
  sbtest::TempDir d;
  const auto error_of = [&](const std::string& text) {
    const std::string path = write_file(d.path() + "/bad.txt", text);
    try {
      read_ps_variables(path);
    } catch (const Error& e) {
      return std::string(e.what()).replace(0, path.size() + 15, "");  // past "--ps-variables PATH"
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("a 6 trainable\nb 12x trainable\n"),
            ":2: 'b 12x trainable' is not NAME BYTES trainable|fixed (BYTES a positive integer)");
  EXPECT_EQ(error_of("a 6 maybe\n"), ":1: 'a 6 maybe' is not NAME BYTES trainable|fixed (BYTES a positive integer)");
  EXPECT_EQ(error_of("a 0 trainable\n"), ":1: 'a 0 trainable' is not NAME BYTES trainable|fixed (BYTES a positive integer)");
  EXPECT_EQ(error_of("a 6 trainable 7\n"),
            ":1: 'a 6 trainable 7' is not NAME BYTES trainable|fixed (BYTES a positive integer)");
  EXPECT_EQ(error_of("a 6\n"), ":1: 'a 6' is not NAME BYTES trainable|fixed (BYTES a positive integer)");
  EXPECT_EQ(error_of("# nothing\n"), ": no variable in it (a line each: NAME BYTES trainable|fixed)");
  EXPECT_EQ(error_of("m 4 fixed\n"), ": no trainable variable, so no gradient to place");
  EXPECT_THROW(read_ps_variables(d.path() + "/absent.txt"), Error);
  EXPECT_THROW(ps_shard_load(4, std::vector<double>{0.5, 0.25}), Error);  // shares not summing to 1
}

}  // namespace
}  // namespace scalebench::project
