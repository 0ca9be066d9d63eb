// bucket_size.h — the tensor-fusion bucket's size, once: its default (--bucket-mb) and its size in
// float32 gradient elements. Train options, the strategies, `scalebench project` and its
// predictions all take the default from here.
// What it deliberately does not do: form buckets (bucketer.h) or check a size (the option's row).
#pragma once

#include <cstdint>

namespace scalebench {

// --bucket-mb's default (MiB): the fusion buffer of the synchronous strategies.
inline constexpr double kDefaultBucketMb = 4.0;

// --bucket-mb (MiB) as the float32 gradient elements a bucket holds: what the strategies give
// BucketAllreducer, and what `scalebench project` forms its buckets with.
inline std::int64_t bucket_elems_of(double bucket_mb) { return std::int64_t(bucket_mb * (1 << 20) / sizeof(float)); }

}  // namespace scalebench
