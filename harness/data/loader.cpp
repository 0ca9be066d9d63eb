// loader.cpp — DataLoader: one background thread reads this rank's batches up to `prefetch` ahead
// into a bounded queue; next() pops them. Only one thread touches the Dataset at a time (the
// producer during an epoch; start_epoch joins it before starting the next), which is what
// dataset.h asks. It does not shuffle (the sampler does) and does not augment.
//
// prefetch = 0, or an HDF5 library built without thread-safety (common for cluster modules),
// reads synchronously inside next() instead: another thread calling HDF5 concurrently (the
// run recorder) would otherwise corrupt a non-thread-safe library's global state.
#include "harness/data/loader.h"

#include <hdf5.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "harness/data/h5util.h"
#include "kernels/common/check.h"

namespace scalebench::data {

namespace {
bool hdf5_threadsafe() {
  hbool_t ts = false;
  return H5is_library_threadsafe(&ts) >= 0 && ts;
}
}  // namespace

struct DataLoader::Impl {
  Impl(const std::string& path, const SamplerConfig& cfg, int batch_size, int prefetch_)
      : dataset(path), sampler(cfg), batch(batch_size), prefetch(prefetch_) {}

  struct Item {
    Batch batch;
    std::exception_ptr error;
  };

  Dataset dataset;
  ShardedSampler sampler;
  int batch;
  int prefetch;
  bool threaded = false;

  // Current epoch (written by start_epoch on the consumer thread while no producer runs).
  std::vector<std::int64_t> order;  // this rank's indices for the epoch
  std::int64_t batches = 0, consumed = 0;
  bool started = false;
  std::exception_ptr failed;  // sticky: the epoch's reading failed

  std::mutex mu;
  std::condition_variable cv;
  std::deque<Item> queue;  // guarded by mu, at most `prefetch` items
  bool stop = false;       // guarded by mu: producer must exit
  bool producer_done = false;
  std::thread worker;

  void read_batch(std::int64_t b, Batch& out) const {
    const DatasetInfo& info = dataset.info();
    out.size = batch;
    out.indices.assign(order.begin() + b * batch, order.begin() + (b + 1) * batch);
    out.images.resize(static_cast<size_t>(batch * info.image_numel()));
    out.labels.resize(static_cast<size_t>(batch * info.label_numel()));
    dataset.read(out.indices, out.images.data(), out.labels.data());
  }

  void produce() {
    detail::silence_hdf5_errors();
    for (std::int64_t b = 0; b < batches; ++b) {
      {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return stop || static_cast<int>(queue.size()) < prefetch; });
        if (stop) return;
      }
      Item item;
      try {
        read_batch(b, item.batch);
      } catch (...) {
        item.error = std::current_exception();
      }
      const bool error = static_cast<bool>(item.error);
      {
        std::lock_guard lk(mu);
        if (stop) return;
        queue.push_back(std::move(item));
        if (error) producer_done = true;
      }
      cv.notify_all();
      if (error) return;
    }
    {
      std::lock_guard lk(mu);
      producer_done = true;
    }
    cv.notify_all();
  }

  void stop_worker() {
    if (!worker.joinable()) return;
    {
      std::lock_guard lk(mu);
      stop = true;
    }
    cv.notify_all();
    worker.join();
  }
};

DataLoader::DataLoader(const std::string& path, const SamplerConfig& sampler, int batch_size,
                       int prefetch) {
  SB_REQUIRE(batch_size >= 1, "data loader: batch size {} must be >= 1", batch_size);
  SB_REQUIRE(prefetch >= 0, "data loader: prefetch {} must be >= 0", prefetch);
  impl_ = std::make_unique<Impl>(path, sampler, batch_size, prefetch);
  const std::int64_t n = impl_->dataset.info().n;
  SB_REQUIRE(sampler.end <= n, "dataset {}: split [{}, {}) exceeds the {} samples in the file", path,
             sampler.begin, sampler.end, n);
  impl_->threaded = prefetch > 0 && hdf5_threadsafe();
}

DataLoader::~DataLoader() {
  if (impl_) impl_->stop_worker();
}

const DatasetInfo& DataLoader::info() const { return impl_->dataset.info(); }

std::int64_t DataLoader::batches_per_epoch() const { return impl_->sampler.per_rank() / impl_->batch; }

void DataLoader::start_epoch(int epoch) {
  Impl& m = *impl_;
  m.stop_worker();  // an epoch still in flight is abandoned: its queued batches are discarded
  m.queue.clear();
  m.stop = false;
  m.producer_done = false;
  m.failed = nullptr;
  m.order = m.sampler.indices(epoch);
  m.batches = batches_per_epoch();
  m.consumed = 0;
  m.started = true;
  if (m.threaded) m.worker = std::thread([&m] { m.produce(); });
}

bool DataLoader::next(Batch& out) {
  Impl& m = *impl_;
  SB_REQUIRE(m.started, "data loader: next() called before start_epoch()");
  if (m.failed) std::rethrow_exception(m.failed);
  if (m.consumed >= m.batches) return false;
  if (!m.threaded) {
    try {
      m.read_batch(m.consumed, out);
    } catch (...) {
      m.failed = std::current_exception();
      throw;
    }
    ++m.consumed;
    return true;
  }
  Impl::Item item;
  {
    std::unique_lock lk(m.mu);
    m.cv.wait(lk, [&] { return !m.queue.empty() || m.producer_done; });
    SB_CHECK(!m.queue.empty(), "data loader: producer finished after {} of {} batches",
             m.consumed, m.batches);
    item = std::move(m.queue.front());
    m.queue.pop_front();
  }
  m.cv.notify_all();  // room in the queue for the producer
  if (item.error) {
    m.failed = item.error;
    std::rethrow_exception(item.error);
  }
  ++m.consumed;
  out = std::move(item.batch);
  return true;
}

}  // namespace scalebench::data
