// bucketer.cpp — bucket formation and the communication thread.
#include "harness/strategy/bucketer.h"

#include "kernels/common/check.h"

namespace scalebench {

BucketAllreducer::BucketAllreducer(comm::Communicator& comm, const comm::AllreduceOptions& opts, float* grads,
                                   std::int64_t count, std::int64_t bucket_elems, bool overlap, BucketObserver observer)
    : reduce_(comm, opts), grads_(grads), count_(count), bucket_elems_(std::max<std::int64_t>(1, bucket_elems)),
      overlap_(overlap), observer_(std::move(observer)) {
  if (overlap_) thread_ = std::thread([this] { run(); });
}

BucketAllreducer::~BucketAllreducer() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BucketAllreducer::begin_step() {
  pending_hi_ = pending_lo_ = count_;
  submitted_ = 0;
  index_ = 0;
}

void BucketAllreducer::ready(std::int64_t begin, std::int64_t end) {
  SB_CHECK(end == pending_lo_, "gradient range [{}, {}) is not adjacent to the pending bucket at {}", begin, end,
           pending_lo_);
  pending_lo_ = begin;
  if (pending_hi_ - pending_lo_ >= bucket_elems_) {
    submit(pending_lo_, pending_hi_);
    pending_hi_ = pending_lo_;
  }
}

void BucketAllreducer::submit(std::int64_t begin, std::int64_t end) {
  ++submitted_;
  if (before_exchange_) before_exchange_(begin, end);
  if (!overlap_) {
    reduce(begin, end);
    return;
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.emplace_back(begin, end);
    ++outstanding_;
  }
  cv_.notify_all();
}

void BucketAllreducer::finish() {
  // The last bucket is whatever is left below pending_hi_ (down to the arena's start).
  pending_lo_ = 0;
  if (pending_hi_ > pending_lo_) submit(pending_lo_, pending_hi_);
  pending_hi_ = pending_lo_;
  buckets_ = submitted_;
  if (!overlap_) return;
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [this] { return outstanding_ == 0 || error_; });
  if (error_) std::rethrow_exception(error_);
}

void BucketAllreducer::run() {
  for (;;) {
    std::pair<std::int64_t, std::int64_t> b;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      b = queue_.front();
      queue_.pop_front();
    }
    try {
      reduce(b.first, b.second);
    } catch (...) {
      std::lock_guard<std::mutex> lk(mu_);
      error_ = std::current_exception();
      stop_ = true;
      cv_.notify_all();
      return;
    }
    {
      std::lock_guard<std::mutex> lk(mu_);
      --outstanding_;
    }
    cv_.notify_all();
  }
}

void BucketAllreducer::reduce(std::int64_t begin, std::int64_t end) {
  const auto t0 = std::chrono::steady_clock::now();
  reduce_(grads_ + begin, std::size_t(end - begin));
  const int index = index_++;  // buckets are reduced in submission order, one at a time
  if (observer_)
    observer_({.index = index, .begin = begin, .end = end, .t0 = t0, .t1 = std::chrono::steady_clock::now(),
               .on_comm_thread = overlap_});
}

}  // namespace scalebench
