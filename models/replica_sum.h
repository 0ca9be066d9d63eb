// replica_sum.h — the one thing a layer may ask of data parallelism: add a few doubles over the
// replicas (synchronised batch norm, `train --sync-bn`). The strategy implements it over its
// communicator (harness/strategy/); models/ sees only this interface, so it never includes harness/.
// What it deliberately does not do: move gradients or weights (the strategies do that), or say
// which replica this is.
#pragma once

#include <cstddef>

namespace scalebench {

class ReplicaSum {
 public:
  virtual ~ReplicaSum() = default;
  // Collective over all replicas, which call it in the same order with the same n: v[0..n) becomes
  // the sum over the replicas, bit-identical on every replica.
  virtual void sum(double* v, std::size_t n) = 0;
};

}  // namespace scalebench
