// descriptor_cache.cpp — the per-thread descriptor cache (descriptors.h, cached_*): one descriptor
// per distinct key, made on first use and kept. Per thread because a descriptor is mutable state
// (a ConvProblem's math type is set before each call) and each GPU has its own thread (mirrored);
// descriptors belong to no device or handle, so one cache serves every context of the thread.
// Not here: eviction (a run has a few dozen distinct shapes), creating descriptors (descriptors.cpp).
#include <map>
#include <tuple>

#include "kernels/cudnn/descriptors.h"

namespace scalebench::cudnn {

const ConvProblem& cached_conv_problem(const ConvKey& key) {
  thread_local std::map<ConvKey, ConvProblem> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, ConvProblem(key)).first;
  return it->second;
}

const TensorDesc& cached_tensor_desc(DType dtype, Layout layout, int n, int c, int h, int w) {
  using Key = std::tuple<int, int, int, int, int, int>;
  thread_local std::map<Key, TensorDesc> cache;
  const Key k{int(dtype), int(layout), n, c, h, w};
  auto it = cache.find(k);
  if (it == cache.end()) it = cache.emplace(k, TensorDesc(dtype, layout, n, c, h, w)).first;
  return it->second;
}

const PoolDesc& cached_pool_desc(int window, int pad, int stride) {
  using Key = std::tuple<int, int, int>;
  thread_local std::map<Key, PoolDesc> cache;
  const Key k{window, pad, stride};
  auto it = cache.find(k);
  if (it == cache.end()) it = cache.emplace(k, PoolDesc(window, pad, stride)).first;
  return it->second;
}

}  // namespace scalebench::cudnn
