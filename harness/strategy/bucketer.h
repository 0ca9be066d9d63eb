// bucketer.h — tensor fusion with overlap: gradient ranges arrive from the model's backward hook
// (descending offsets of the one gradient arena, so a bucket is a contiguous slice and needs no
// copy); once a bucket holds bucket_bytes it is allreduced — on a communication thread while
// backward continues (overlap), or all at the end on the caller's thread. Every rank forms the same
// buckets in the same order (they depend only on the model), which collectives require.
// It sums; scaling to the mean is the caller's.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "harness/comm/allreduce.h"
#include "harness/strategy/bucket_size.h"
#include <chrono>
#include <functional>

namespace scalebench {

// One bucket's allreduce, as told to a BucketObserver (the step timeline) by the thread that ran it.
struct BucketSpan {
  int index = 0;                  // within the step, in reduction order
  std::int64_t begin = 0, end = 0;  // gradient elements [begin, end)
  std::chrono::steady_clock::time_point t0, t1;
  bool on_comm_thread = false;    // overlapped with backward
};
using BucketObserver = std::function<void(const BucketSpan&)>;

class BucketAllreducer {
 public:
  // `comm` is used only by this object (give it a dup() when others use the original).
  BucketAllreducer(comm::Communicator& comm, const comm::AllreduceOptions& opts, float* grads, std::int64_t count,
                   std::int64_t bucket_elems, bool overlap, BucketObserver observer = {});
  ~BucketAllreducer();
  BucketAllreducer(const BucketAllreducer&) = delete;
  BucketAllreducer& operator=(const BucketAllreducer&) = delete;

  // Told of each bucket on the submitting (training) thread just before it is handed to the
  // exchange: the last moment its range holds this rank's own gradient (the noise scale's norm).
  using SubmitHook = std::function<void(std::int64_t begin, std::int64_t end)>;
  void set_before_exchange(SubmitHook hook) { before_exchange_ = std::move(hook); }

  void begin_step();
  void ready(std::int64_t begin, std::int64_t end);  // [begin, end) of the arena is final
  void finish();                                     // every bucket reduced; rethrows a comm error
  int buckets_per_step() const { return buckets_; }

 private:
  void submit(std::int64_t begin, std::int64_t end);
  void run();
  void reduce(std::int64_t begin, std::int64_t end);  // one bucket, then the observer

  comm::Allreducer reduce_;
  float* grads_;
  std::int64_t count_, bucket_elems_;
  bool overlap_;
  BucketObserver observer_;
  SubmitHook before_exchange_;
  int index_ = 0;  // the next bucket's number within the step
  std::int64_t pending_hi_ = 0, pending_lo_ = 0;  // [lo, hi): ready, not yet submitted
  int buckets_ = 0, submitted_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::int64_t, std::int64_t>> queue_;
  int outstanding_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace scalebench
