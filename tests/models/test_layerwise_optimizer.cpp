// test_layerwise_optimizer.cpp — Optimizer with LARS / LAMB (models/optimizer.h): each tensor of the
// arena steps with its own trust ratio (a non-adapting bias with ratio 1), the tensors must cover
// the arena, and LAMB's checkpoint state holds both moments.
#include <gtest/gtest.h>

#include <vector>

#include "models/optimizer.h"

using namespace scalebench;

TEST(LayerwiseOptimizer, EachTensorHasItsOwnRatio) {
  // Arena: a weight (3, 4) that adapts and a bias (2) that does not. LARS, lr 10, eta 0.001.
  OptimizerConfig cfg{.kind = OptimizerKind::lars, .momentum = 0.9f, .weight_decay = 0};
  cfg.tensors = {{0, 2, true}, {2, 1, false}};
  Optimizer opt(cfg, 3);
  std::vector<float> w = {3, 4, 2}, g = {0.6f, 0.8f, 0.01f};
  opt.step(w.data(), g.data(), 10);
  EXPECT_NEAR(w[0], 2.97, 1e-6);  // trust 0.005 for the weight …
  EXPECT_NEAR(w[2], 2 - 0.1, 1e-6);  // … and 1 for the bias: 10·0.01
  // Tensors must cover the arena.
  OptimizerConfig bad = cfg;
  bad.tensors = {{0, 2, true}};
  EXPECT_ANY_THROW(Optimizer(bad, 3));
  // LAMB keeps both moments in its state; a checkpoint of sgd does not fit it.
  Optimizer lamb({.kind = OptimizerKind::lamb}, 3);
  EXPECT_EQ(lamb.state().v.size(), 3u);
  EXPECT_ANY_THROW(lamb.restore(Optimizer({.kind = OptimizerKind::sgd}, 3).state()));
}
