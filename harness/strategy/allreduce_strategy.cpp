// allreduce_strategy.cpp — the synchronous allreduce strategies: mirrored (threads transport,
// native in-process allreduce), multiworker (MPI_Allreduce), ring (our ring over send/recv) and
// hierarchical (intra-node reduce, ring over node leaders, intra-node broadcast). All share tensor
// fusion, overlap with backward, the initial broadcast from rank 0, and mean = sum / workers.
// Gradient compression (--compression bf16|fp16) sends 16-bit floats between ranks and adds in
// float32 (ring and hierarchical only; the native collectives are float32). With --sync-bn the
// strategy lends batch norm a ReplicaSum over its communicator (doubles, summed in rank order).
// Each step also measures the gradient noise scale's two norms (noise_scale.h): at N > 1 the
// replica's own gradient, bucket by bucket just before each bucket's exchange, and the averaged
// one; at N = 1 the micro-batches of --accumulate (micro_batch_norms.h).
#include "harness/strategy/bucketer.h"
#include "harness/strategy/micro_batch_norms.h"
#include "harness/strategy/scalar_reduce.h"
#include "harness/strategy/strategy_impl.h"

namespace scalebench {
namespace {

// Batch-norm statistics over the workers, on the training thread's communicator (the bucket
// allreduces of an overlapped backward run on their own, bg_).
class CommReplicaSum final : public ReplicaSum {
 public:
  explicit CommReplicaSum(comm::Communicator& comm) : comm_(comm) {}
  void sum(double* v, std::size_t n) override { allreduce_sum_doubles(comm_, v, n); }

 private:
  comm::Communicator& comm_;
};

class AllreduceStrategy final : public Strategy {
 public:
  AllreduceStrategy(const StrategyOptions& o, comm::Communicator& comm, std::int64_t count)
      : opts_(o), comm_(comm), count_(count), bg_(comm.size() > 1 ? comm.dup() : nullptr), stats_(comm) {
    const comm::AllreduceAlgo algo = traits(o.kind).algo;
    algo_opts_.algo = algo;
    algo_opts_.chunk_bytes = o.chunk_bytes;
    algo_opts_.ranks_per_node = o.ranks_per_node;
    algo_opts_.wire = o.compression;
    SB_REQUIRE(algo_opts_.wire == comm::WireType::f32 || algo != comm::AllreduceAlgo::native,
               "--compression {} needs --strategy ring or hierarchical ({} uses a float32 library collective)",
               name_of(o.compression), name());
  }
  const char* name() const override { return traits(opts_.kind).name.data(); }
  int workers() const override { return comm_.size(); }
  int worker_index() const override { return comm_.rank(); }

  void start(Model& model) override {
    comm_.broadcast(model.params().f32(), std::size_t(model.param_count()), 0);
    for (auto& [name, t] : model.buffers()) comm_.broadcast(t->f32(), std::size_t(t->numel()), 0);
    // One worker: its allreduce is the identity, so nothing is exchanged — no buckets, no waits on a
    // communication thread (on a GPU each would drain the stream: mirrored --devices 1 ran 17 %
    // below single on an H200). Its weights are single's, bit for bit, as before.
    if (comm_.size() == 1) return;
    const auto bucket = bucket_elems_of(opts_.bucket_mb);
    // --sync-bn on GPUs: batch norm's backward sums over comm_ (an NCCL allgather) while the buckets
    // would go over bg_ from the communication thread; two NCCL communicators in use at once from
    // two threads may deadlock across ranks (NCCL orders kernels per communicator only), so the
    // buckets then go after backward.
    const bool overlap = opts_.overlap && !(opts_.sync_bn && comm_.caps().device_buffers);
    buckets_ = std::make_unique<BucketAllreducer>(*bg_, algo_opts_, model.grads().f32(), model.param_count(), bucket,
                                                  overlap, opts_.on_bucket);
    model.set_backward_hook([this](int, std::int64_t b, std::int64_t e) { buckets_->ready(b, e); });
    // |G_small|²: this replica's mean gradient, read in each bucket's range before the exchange
    // sums it in place (overlapped or not) and before any 16-bit wire rounds it. Buckets tile the
    // arena, so the parts add up to the whole squared norm.
    if (comm_.size() > 1)
      buckets_->set_before_exchange([this, &model](std::int64_t b, std::int64_t e) {
        local_sq_ += model.device().sum_squares(model.grads().f32(), {{b, e - b}}).front();
      });
  }
  void before_backward(Model&) override {
    if (buckets_) buckets_->begin_step();
    local_sq_ = 0;
  }
  void after_micro_batch(Model& model) override {
    if (comm_.size() == 1) micro_.after_micro_batch(model);
  }

  StepExchange after_backward(Model& model, Optimizer& opt, float lr, const StepHealth& health) override {
    DeviceClock clock(model.device());  // phases on the device's timeline (CUDA events on GPUs)
    if (buckets_) buckets_->finish();
    // One scalar per step tells every worker what it must know of the others: whether any
    // worker's own step was bad, and what it found (the highest such rank and its issue), else
    // the highest stop signal any worker got (preemption), times 2, plus 1 when rank 0 wants a
    // time-based checkpoint. A stop that meets a bad step waits one step (the signal stays set and
    // the next step's scalar carries it); a checkpoint wish that meets another rank's higher
    // signal is dropped (the stop writes one anyway).
    // The same collective sums the replicas' squared gradient norms (the noise scale): no extra
    // message per step.
    constexpr int kIssues = 8;
    constexpr double kBad = 1 << 16;  // above every signal number, doubled
    const auto [code, small_sq_sum] = allreduce_scalar_max_sum(
        comm_,
        health.bad ? kBad + (comm_.rank() + 1) * kIssues + int(health.issue)
                   : double(2 * health.stop_wanted + (health.checkpoint_wanted ? 1 : 0)),
        local_sq_);
    const int bad_code = code >= kBad ? int(code - kBad) : 0;
    const int ok_code = code >= kBad ? 0 : int(code);
    agreed_stop_ = ok_code / 2;
    const int bad_rank = bad_code / kIssues - 1;
    const auto issue = StepHealth::Issue(bad_code % kIssues);
    // One worker exchanges nothing (bytes_per_step is 0): its exposed communication is 0 by
    // definition, and the bookkeeping above counts in the update phase (epoch.cpp's lap), not as
    // communication a single worker cannot have (the report's `phase` flag fired on every N = 1).
    const double comm_exposed = comm_.size() > 1 ? clock.lap() : 0.0;
    if (comm_.size() > 1) model.scale_grads(1.0f / float(comm_.size()));  // on the model's device (x 1: nothing)
    StepExchange x = check_gradient(model, bad_rank == comm_.rank() ? health : StepHealth{}, bad_rank, issue);
    if (!x.nonfinite) {
      // |G_big|²: the averaged gradient, the same bits on every worker. N = 1: a one-rank exchange
      // left the sum as it was, and the micro-batches are the small batch.
      const int n = comm_.size();
      const GradNorms micro = micro_.finish(model);
      x.norms = n == 1 ? micro
                       : GradNorms{.small_sq = small_sq_sum / n,
                                   .big_sq = model.device().sum_squares(model.grads().f32(), {{0, count_}}).front(),
                                   .smalls = n};
      opt.step(model.params().f32(), model.grads().f32(), lr);
    } else {
      micro_.finish(model);  // starts the next step's micro-batches afresh
    }
    x.checkpoint = ok_code % 2 == 1;
    x.comm_exposed = comm_exposed;
    x.update = clock.lap();
    return x;
  }
  std::int64_t bytes_per_step() const override {
    const int n = comm_.size();
    const double elem = algo_opts_.wire == comm::WireType::f32 ? 4.0 : 2.0;
    return n > 1 ? std::int64_t(2.0 * (n - 1) / n * double(count_) * elem) : 0;
  }
  ReplicaSum* replica_sum() override { return opts_.sync_bn ? &stats_ : nullptr; }
  double sum_over_workers(double v) override { return allreduce_scalar_sum(comm_, v); }
  double max_over_workers(double v) override { return allreduce_scalar_max(comm_, v); }
  // The last step's scalar carried the stop: every worker holds the same agreed signal.
  int agree_stop(int) override { return agreed_stop_; }

 private:
  StrategyOptions opts_;
  comm::Communicator& comm_;
  std::int64_t count_;
  std::unique_ptr<comm::Communicator> bg_;  // the communication thread's own communicator
  comm::AllreduceOptions algo_opts_;
  std::unique_ptr<BucketAllreducer> buckets_;
  int agreed_stop_ = 0;  // the signal the last step's scalar agreed on (0: no stop)
  CommReplicaSum stats_;
  double local_sq_ = 0;    // N > 1: this step's Σ |own gradient|² over the buckets exchanged so far
  MicroBatchNorms micro_;  // N = 1 with --accumulate
};

}  // namespace

std::unique_ptr<Strategy> make_allreduce_strategy(const StrategyOptions& o, comm::Communicator& comm,
                                                  std::int64_t count) {
  return std::make_unique<AllreduceStrategy>(o, comm, count);
}

}  // namespace scalebench
