// projection.cpp — the measured step from a trace, the straggler term, the step simulation, the
// band, the scenario sweep (see projection.h).
#include "harness/study/project/projection.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <tuple>

#include <fmt/format.h>

#include "harness/study/analysis/collect.h"
#include "harness/study/analysis/metric_table.h"
#include "harness/strategy/bucketer.h"
#include "harness/train/trace.h"
#include "kernels/common/check.h"

namespace scalebench::project {
MeasuredStep read_trace(const std::string& path) {
  using trace::Phase, trace::SpanCat;
  trace::TraceFile file = trace::read_trace_file(path, "--trace");
  const std::vector<trace::Span>& events = file.spans;
  std::vector<trace::Span> steps;
  for (const auto& e : events)
    if (e.cat == SpanCat::step) steps.push_back(e);
  const auto by_start = [](const trace::Span& a, const trace::Span& b) { return a.ts_us < b.ts_us; };
  std::sort(steps.begin(), steps.end(), by_start);
  SB_REQUIRE(steps.size() >= 2, "--trace {}: {} step(s); the projection averages the steps after the first, so it needs 2 or more",
             path, steps.size());
  // The spans are placed in their steps by time, so the steps' `ts` must carry time: each step
  // starts after the one before. A trace with every ts 0 put every span in every step (a band ten
  // times too narrow, printed as a projection).
  for (std::size_t k = 1; k < steps.size(); ++k)
    SB_REQUIRE(steps[k].ts_us > steps[k - 1].ts_us,
               "--trace {}: field ts: '{}' and '{}' both start at ts {} us; the steps' timestamps carry no time",
               path, steps[k - 1].name, steps[k].name, steps[k].ts_us);
  const auto phase = [](Phase p) { return trace::kPhaseNames[std::size_t(p)]; };
  MeasuredStep m;
  m.provenance = std::move(file.provenance);
  for (std::size_t k = 1; k < steps.size(); ++k) {
    const trace::Span& s = steps[k];
    const auto in = [&](const trace::Span& e) { return e.ts_us >= s.ts_us - 1e-2 && e.end_us() <= s.end_us() + 1e-2; };
    std::vector<trace::Span> layers;
    double compute = 0;  // this step's phases but the exchange
    bool found_forward = false;
    for (const auto& e : events) {
      if (!in(e)) continue;
      const double dur = e.dur_us * 1e-6;
      if (e.cat == SpanCat::phase) {
        if (e.name == phase(Phase::data)) m.data_s += dur, compute += dur;
        if (e.name == phase(Phase::forward)) m.fwd_s += dur, compute += dur;
        if (e.name == phase(Phase::backward)) m.bwd_s += dur, compute += dur;
        if (e.name == phase(Phase::optimizer)) m.update_s += dur, compute += dur;
      }
      if (e.cat == SpanCat::layer) layers.push_back(e);
      found_forward = found_forward || (e.cat == SpanCat::phase && e.name == phase(Phase::forward));
    }
    SB_REQUIRE(found_forward,
               "--trace {}: field ts: '{}' (ts {} us) holds no forward phase span; the spans' timestamps do not "
               "place them in their steps", path, s.name, s.ts_us);
    m.step_compute_s.push_back(compute);
    std::sort(layers.begin(), layers.end(), by_start);
    if (m.layers.empty()) {
      for (const auto& l : layers) {
        const auto range = l.elements();
        SB_REQUIRE(range, "--trace {}: layer span '{}' has no gradient range (a trace from an older scalebench?)", path,
                   l.name);
        m.layers.push_back({std::string(trace::subject_of(SpanCat::layer, l.name)), 0, range->second - range->first});
      }
      SB_REQUIRE(!m.layers.empty(), "--trace {}: no layer spans with gradient ranges (a trace from an older scalebench?)", path);
    }
    SB_REQUIRE(layers.size() == m.layers.size(), "--trace {}: step {} has {} layer spans, step 2 has {}", path, k + 1,
               layers.size(), m.layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) m.layers[i].bwd_s += layers[i].dur_us * 1e-6;
    ++m.steps;
  }
  const double k = m.steps;
  m.data_s /= k, m.fwd_s /= k, m.bwd_s /= k, m.update_s /= k;
  for (auto& l : m.layers) l.bwd_s /= k, m.params += l.elems;
  return m;
}

double slowest_of(const std::vector<double>& steps, int n, double slow) {
  return slow < 1 ? expected_max(steps, n, slow) : expected_max_tail(steps, n);
}

double straggler_factor(const MeasuredStep& m, int n, double slow) {
  if (n <= 1) return 1.0;
  if (m.step_compute_s.empty()) return 1.0 / slow;
  double mean = 0;
  for (double x : m.step_compute_s) mean += x;
  mean /= double(m.step_compute_s.size());
  return mean > 0 ? slowest_of(m.step_compute_s, n, slow) / mean : 1.0 / slow;
}

std::pair<double, double> straggler_interval(const MeasuredStep& m, int n, double slow) {
  if (n <= 1 || m.step_compute_s.size() < 2) return {1.0, 1.0};
  const double point = slowest_of(m.step_compute_s, n, slow);
  if (point <= 0) return {1.0, 1.0};
  const auto [lo, hi] =
      bootstrap_interval(m.step_compute_s, [n, slow](const std::vector<double>& r) { return slowest_of(r, n, slow); });
  return {lo / point, hi / point};
}

bool synchronous(StrategyKind kind) {
  const StrategyTraits& t = traits(kind);
  return t.exchange == Exchange::allreduce || (t.exchange == Exchange::server && !t.staleness);
}

double compute_rel_se(const MeasuredStep& m) {
  const std::size_t k = m.step_compute_s.size();
  if (k < 2) return 0.0;
  double mean = 0, ss = 0;
  for (double x : m.step_compute_s) mean += x;
  mean /= double(k);
  for (double x : m.step_compute_s) ss += (x - mean) * (x - mean);
  return mean > 0 ? std::sqrt(ss / double(k - 1)) / std::sqrt(double(k)) / mean : 0.0;
}

std::vector<std::pair<double, std::int64_t>> buckets_of(const MeasuredStep& m, double bwd_scale, std::int64_t bucket_elems) {
  std::vector<std::pair<double, std::int64_t>> out;
  double t = 0;
  std::int64_t pending = 0;
  for (const auto& l : m.layers) {
    t += l.bwd_s * bwd_scale;
    pending += l.elems;
    if (pending >= bucket_elems) out.emplace_back(t, pending), pending = 0;
  }
  if (pending > 0 || out.empty()) out.emplace_back(t, pending);
  // The last bucket is submitted when backward has finished (after_backward), not at its last layer.
  out.back().first = std::max(out.back().first, m.bwd_s * bwd_scale);
  return out;
}

namespace {
// A step spread evenly over backward is cut into at most this many layers (a bucket's eighth each
// is finer than that only for a gradient of 512 buckets or more: then a bucket's ready time is off
// by at most 1/4096 of backward).
constexpr std::int64_t kEvenLayersMax = 4096;
}  // namespace

MeasuredStep ready_over(const MeasuredStep& m, const ProjectOptions& o, double fraction) {
  if (m.params <= 0) return m;
  const double f = std::clamp(fraction, 0.0, 1.0);
  MeasuredStep out = m;
  const std::int64_t bucket = std::max<std::int64_t>(1, bucket_elems_of(o.bucket_mb));
  const std::int64_t eighths = (8 * m.params + bucket - 1) / bucket;
  const std::int64_t k =
      std::min({kEvenLayersMax, m.params, std::max<std::int64_t>(eighths, std::int64_t(m.layers.size()))});
  // equal layers (so the same buckets at every fraction: a real bucketer cuts a model's many tensors
  // into buckets whenever they are ready); the first also takes the part of backward before the spread
  const std::string name = f == 0 ? "at the end of backward" : f == 1 ? "spread evenly"
                                                              : fmt::format("spread over the last {:.3g} of backward", f);
  out.layers.clear();
  for (std::int64_t i = 0, begin = 0; i < k; ++i) {
    const std::int64_t end = m.params / k * (i + 1) + m.params % k * (i + 1) / k;
    out.layers.push_back({name, m.bwd_s * f / double(k), end - begin});
    begin = end;
  }
  out.layers.front().bwd_s += m.bwd_s * (1.0 - f);
  return out;
}

std::pair<MeasuredStep, MeasuredStep> ready_extremes(const MeasuredStep& m, const ProjectOptions& o) {
  if (!o.ready_assumed || m.params <= 0) return {m, m};
  return {ready_over(m, o, o.ready_lo), ready_over(m, o, o.ready_hi)};
}

std::pair<double, double> overlap_timeline(const std::vector<std::pair<double, std::int64_t>>& buckets, double bwd_s,
                                           const std::vector<double>& wire, const std::vector<double>& cpu) {
  // Event by event: the state is the wall time t, backward's progress (seconds of compute done) and
  // the running bucket's remaining wire time. Events: a bucket ends, backward reaches the next ready
  // time or its end.
  double t = 0, done = 0, bwd_end = bwd_s <= 0 ? 0.0 : -1.0, last_end = 0, remaining = 0;
  std::size_t next = 0;  // the next bucket to start
  bool running = false;
  double share = 0;  // the running bucket's CPU fraction
  for (;;) {
    // (a bucket whose ready time lies past backward's measured end is ready when backward ends)
    if (!running && next < buckets.size() && (buckets[next].first <= done || bwd_end >= 0)) {
      running = true, remaining = wire[next];
      share = wire[next] > 0 ? std::min(1.0, cpu[next] / wire[next]) : 0.0;
    }
    if (!running && next == buckets.size() && bwd_end >= 0) break;
    const double rate = bwd_end >= 0 ? 0.0 : (running ? 1.0 - share : 1.0);
    // backward's next milestone: the next bucket's ready time (if it is waiting for backward) or its end
    double milestone = bwd_s;
    if (!running && next < buckets.size()) milestone = std::min(milestone, buckets[next].first);
    const double dt_bwd = rate > 0 ? (milestone - done) / rate : INFINITY;
    const double dt_comm = running ? remaining : INFINITY;
    if (dt_bwd <= dt_comm) {
      t += dt_bwd, done = milestone;
      if (running) remaining -= dt_bwd;
      if (done >= bwd_s) bwd_end = t;
    } else {
      t += dt_comm, done += rate * dt_comm, remaining = 0;
    }
    if (running && remaining <= 0) running = false, last_end = t, ++next;
  }
  return {bwd_end, last_end};
}

namespace {
// Bytes a gradient element takes on the wire: float32, or 16 bits with --compression.
double wire_bytes_per_elem(bool compressed) { return compressed ? 2.0 : 4.0; }
// The wire bytes of the largest bucket the bucketer makes: the whole gradient, or one of bucket_mb.
double one_bucket_bytes(const MeasuredStep& m, const ProjectOptions& o, bool compressed) {
  return double(std::min(m.params, bucket_elems_of(o.bucket_mb))) * wire_bytes_per_elem(compressed);
}
}  // namespace

Prediction predict(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const Scenario& s) {
  Prediction p;
  const double global = o.global_batch > 0 ? o.global_batch : o.batch;
  p.device_batch = s.strong ? global / s.n : o.batch;
  p.straggler = o.stragglers && synchronous(s.strategy) ? straggler_factor(m, s.n, o.slow_node) : 1.0;
  // the slowest rank's compute (all phases but the exchange), per device linear in its batch but
  // the optimizer's, which does not shrink with it
  const double pace = p.straggler * o.compute_scale;
  const double scale = p.device_batch / o.batch * pace;
  const double bwd = m.bwd_s * scale;
  double bwd_wall = bwd;  // backward's wall time: longer where the exchange takes CPU from it
  const double wire = wire_bytes_per_elem(s.compressed);
  if (traits(s.strategy).exchange == Exchange::server) {
    p.comm_s = p.exposed_s = s.n > 1 ? ps_step_time(s.n, double(m.params) * 4.0, net) * o.comm_scale : 0.0;
    p.buckets = 1;
  } else {
    auto buckets = buckets_of(m, scale, bucket_elems_of(o.bucket_mb));
    p.buckets = int(buckets.size());
    std::vector<double> times, cpus;
    for (const auto& [ready, elems] : buckets) {
      times.push_back(allreduce_time(s.strategy, s.n, double(elems) * wire, net, o.stragglers) * o.comm_scale);
      cpus.push_back(o.comm_cpu_shared && s.overlap ? allreduce_cpu(s.strategy, s.n, double(elems) * wire, net) : 0.0);
      p.comm_s += times.back();
    }
    if (!s.overlap)
      for (auto& b : buckets) b.first = bwd;  // every bucket waits for the end of backward
    const auto [bwd_end, last_end] = overlap_timeline(buckets, bwd, times, cpus);
    bwd_wall = bwd_end;
    p.exposed_s = std::max(0.0, last_end - bwd_wall);
    // the step's agreement follows the last bucket's allreduce: never overlapped
    const double agree = agreement_time(s.strategy, s.n, net) * o.comm_scale;
    p.comm_s += agree, p.exposed_s += agree;
  }
  p.step_s = (m.data_s + m.fwd_s) * scale + bwd_wall + p.exposed_s + m.update_s * pace;
  p.images_per_s = s.n * p.device_batch / p.step_s;
  return p;
}

namespace {
// A calibration's other reading (ReadyReading) as the inputs it stands for: the gradients ready over
// the fitted last fraction of backward, its range what the point leaves open; the link at its fastest.
struct Inputs { MeasuredStep m; Network net; ProjectOptions o; };
Inputs other_reading(const MeasuredStep& m, const Network& net, const ProjectOptions& o) {
  const ReadyReading& r = o.ready_reading;
  Inputs x{ready_over(m, o, r.ready), net, o};
  x.net.inter = r.link;
  x.o.ready_reading = {};
  x.o.ready_assumed = true, x.o.ready_lo = r.ready_lo, x.o.ready_hi = r.ready_hi;
  return x;
}
// f's {low, high} over both readings: the fitted link's (o without the other) and the other's
template <class F>
auto both_readings(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const Scenario& s, F f) {
  ProjectOptions fitted = o;
  fitted.ready_reading = {};
  const Inputs x = other_reading(m, net, o);
  const auto a = f(m, net, fitted, s), b = f(x.m, x.net, x.o, s);
  return std::make_pair(std::min(a.first, b.first), std::max(a.second, b.second));
}
}  // namespace

Band band(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const Scenario& s) {
  if (o.ready_reading.present) {  // the fitted link's band and the other reading's, together
    const auto [lo, hi] = both_readings(m, net, o, s, [](auto&&... a) {
      const Band b = band(a...);
      return std::make_pair(b.step_lo, b.step_hi);
    });
    return {lo, hi};
  }
  const double c = 2.0 * compute_rel_se(m), r = net.inter.fit_residual;
  // compute: the traced mean's 2 standard errors; the slowest of N estimated from K steps can be
  // less sure than their mean (its top few steps decide it), so with the term the wider of the two
  double c_lo = std::max(0.0, 1.0 - c), c_hi = 1.0 + c, ring_lo = 1.0, ring_hi = 1.0;
  if (o.stragglers && synchronous(s.strategy) && s.n >= 2) {
    const auto [lo, hi] = straggler_interval(m, s.n, o.slow_node);
    c_lo = std::min(c_lo, lo), c_hi = std::max(c_hi, hi);
    // the network ring's steps, for a ring of one bucket (the largest the bucketer makes)
    if (const int ring = network_ring_ranks(s.strategy, s.n, net); ring > 0) {
      const double bytes = one_bucket_bytes(m, o, s.compressed);
      std::tie(ring_lo, ring_hi) = ring_step_interval(net.inter, ring, bytes / ring);
    }
  }
  ProjectOptions lo = o, hi = o;
  lo.compute_scale = o.compute_scale * c_lo, lo.comm_scale = o.comm_scale * std::max(0.0, 1.0 - r) * ring_lo;
  hi.compute_scale = o.compute_scale * c_hi, hi.comm_scale = o.comm_scale * (1.0 + r) * ring_hi;
  // the links' assumed ranges (a profile's delivered one, what a calibration leaves open, a GPU node's
  // unstated intra-node link) and, where it was not measured, when gradients are ready: each input's
  // fast end with the fast extreme, its slow end with the slow one; the point stays inside
  // (the trace's layers stay a candidate at both ends: all at the end in many buckets pays more
  // latencies than a described step's one layer, and an even spread more than its few)
  const auto [slow_m, fast_m] = ready_extremes(m, o);
  const Network fast = at_fast_end(net), slow = at_slow_end(net);
  const double point = predict(m, net, o, s).step_s;
  return {std::min({point, predict(m, fast, lo, s).step_s, predict(fast_m, fast, lo, s).step_s}),
          std::max({point, predict(m, slow, hi, s).step_s, predict(slow_m, slow, hi, s).step_s})};
}

std::pair<double, double> stated_efficiency_range(const MeasuredStep& m, const Network& net, const ProjectOptions& o,
                                                  const Scenario& s) {
  if (o.ready_reading.present)
    return both_readings(m, net, o, s, [](auto&&... a) { return stated_efficiency_range(a...); });
  const auto [slow_m, fast_m] = ready_extremes(m, o);
  const auto efficiency = [&](const MeasuredStep& step, const Network& n, double compute) {
    ProjectOptions x = o;
    x.compute_scale = o.compute_scale * compute;
    Scenario one = s;
    one.n = 1;
    const Prediction p1 = predict(step, n, x, one), pn = predict(step, n, x, s);
    return study::efficiency(study::speedup(pn.images_per_s, p1.images_per_s), s.n);
  };
  const double sp = o.stated_spread;
  // faster compute leaves more of the step to the exchange: the low end is the fast compute on the slow link
  const Network fast = at_fast_end(net), slow = at_slow_end(net);
  return {std::min(efficiency(m, slow, std::max(0.0, 1.0 - sp)), efficiency(slow_m, slow, std::max(0.0, 1.0 - sp))),
          std::max(efficiency(m, fast, 1.0 + sp), efficiency(fast_m, fast, 1.0 + sp))};
}

std::string inputs_note(const MeasuredStep& m, const Network& net, const ProjectOptions& o) {
  const bool described = !m.provenance.empty() && m.provenance.context.empty();
  std::string step = described ? fmt::format("step: described (tools/synthetic_trace.py), assumed x(1 -/+ {:.2f}) "
                                             "(--compute-spread)", o.stated_spread)
                               : fmt::format("step: measured ({} traced steps){}", m.steps,
                                             o.stated_spread > 0 ? fmt::format(", and a stated x(1 -/+ {:.2f})", o.stated_spread)
                                                                 : std::string());
  const AlphaBeta& l = net.inter;
  std::string link;
  if (l.measured_ranks >= 2)
    link = fmt::format("network: measured (commbench over {} ranks)", l.measured_ranks);
  else if (l.ranged())
    link = fmt::format("network: {} {:.3g} to {:.3g} Gbit/s, alpha {:.3g} to {:.3g} us (point {:.3g} Gbit/s, {:.3g} us)",
                       l.nameplate ? "assumed (the profile's delivered range)" : "calibrated (what the calibration leaves open)",
                       l.bw_lo * 8e-9, l.bw_hi * 8e-9, l.alpha_lo * 1e6, l.alpha_hi * 1e6, l.bytes_per_s * 8e-9,
                       l.alpha_s * 1e6);
  else
    link = "network: given (--alpha-us/--gbps), no range: the band has none of the link";
  if (l.per_connection())
    link += fmt::format(", a connection's; a node's connections together: assumed {:.3g} to {:.3g} Gbit/s (point "
                        "{:.3g} Gbit/s, never below one connection's)", l.node_lo * 8e-9, l.node_hi * 8e-9,
                        l.node_bytes_per_s * 8e-9);
  // a calibration's fitted link absorbs what the point costs beyond it: the other assumed inputs keep no range
  const bool calibrated = l.ranged() && !l.nameplate && l.measured_ranks < 2;
  const char* absorbed = calibrated ? ": the calibrated link absorbs it" : "";
  std::string ready;
  if (o.ready_assumed)
    ready = fmt::format("gradients ready: assumed, from all at the end of backward to spread evenly over it (point: "
                        "the trace's {} layers)", m.layers.size());
  else if (described && o.ready_reading.present)
    ready = fmt::format("gradients ready: assumed, the trace's {} layers: the calibrated link absorbs it; or, the point's "
                        "other reading (the band takes in both), the link at its fastest ({:.3g} Gbit/s, {:.3g} us) and "
                        "gradients ready over the last {:.3g} of backward ({:.3g} to {:.3g})", m.layers.size(),
                        o.ready_reading.link.bytes_per_s * 8e-9, o.ready_reading.link.alpha_s * 1e6, o.ready_reading.ready,
                        o.ready_reading.ready_lo, o.ready_reading.ready_hi);
  else if (described)
    ready = fmt::format("gradients ready: assumed, the trace's {} layers, no range{}", m.layers.size(), absorbed);
  else
    ready = fmt::format("gradients ready: traced ({} layers)", m.layers.size());
  const AlphaBeta& in = net.intra;
  std::string intra;
  if (in.ranged())
    intra = fmt::format("intra-node link: assumed (GPU links, PCIe to NVLink) {:.3g} to {:.3g} GB/s, alpha {:.3g} to "
                        "{:.3g} us (point {:.3g} GB/s, {:.3g} us)", in.bw_lo * 1e-9, in.bw_hi * 1e-9, in.alpha_lo * 1e6,
                        in.alpha_hi * 1e6, in.bytes_per_s * 1e-9, in.alpha_s * 1e6);
  else
    intra = fmt::format("intra-node link: {} ({:.3g} us, {:.3g} GB/s), no range{}",
                        in.source == "assumed" ? "assumed" : "given", in.alpha_s * 1e6, in.bytes_per_s * 1e-9,
                        in.source == "assumed" ? absorbed : "");
  return step + "; " + ready + "; " + link + "; " + intra;
}

std::string ring_steps_note(const MeasuredStep& m, const Network& net, const ProjectOptions& o) {
  if (!o.stragglers) return "off: every ring step takes the calibration's mean";
  const auto& samples = net.inter.samples;
  if (net.inter.measured_ranks < 2 ||
      std::none_of(samples.begin(), samples.end(), [](const LinkSample& s) { return !s.steps_s.empty(); }))
    return "no measured steps (a named profile, --alpha-us/--gbps, or a commbench file without step_us): every ring "
           "step takes the calibration's mean";
  const double bytes = one_bucket_bytes(m, o, false);
  const int big = std::max(2, o.max_devices);
  const auto [lo, hi] = ring_step_interval(net.inter, big, bytes / big);
  return fmt::format("on: a ring over the network is a pipeline whose transfers are drawn from the {} "
                     "ranks' measured steps (commbench step_us): a ring of {:.2f} MB x{:.3f} at N = 4, x{:.3f} at N = {} "
                     "(its resampling interval: x{:.3f} to x{:.3f} of that)",
                     net.inter.measured_ranks, bytes * 1e-6, ring_step_factor(net.inter, 4, bytes / 4),
                     ring_step_factor(net.inter, big, bytes / big), big, lo, hi);
}

record::Table project_all(const MeasuredStep& m, const Network& net, const ProjectOptions& o, const std::string& model,
                          bool show_overlap, comm::WireType wire, std::ostream& out) {
  record::Table t;
  const bool show_compressed = wire != comm::WireType::f32;
  std::vector<StrategyKind> kinds;  // the projected strategies, in their project_row order
  for (const auto& st : kStrategies)
    if (st.project_row > 0) kinds.push_back(st.kind);
  std::sort(kinds.begin(), kinds.end(),
            [](StrategyKind a, StrategyKind b) { return traits(a).project_row < traits(b).project_row; });
  record::Attrs context, config;  // the trace's provenance, read as collect reads a run file's
  for (const auto& [k, v] : m.provenance.context) context.set(k, v);
  for (const auto& [k, v] : m.provenance.config) config.set(k, v);
  double mean = 0;
  for (double x : m.step_compute_s) mean += x;
  mean = m.step_compute_s.empty() ? 0.0 : mean / double(m.step_compute_s.size());
  const double se = compute_rel_se(m), r = net.inter.fit_residual;
  out << fmt::format("# measured: {} steps averaged; data {:.2f} ms  forward {:.2f} ms  backward {:.2f} ms ({} layers)  "
                     "optimizer {:.2f} ms  gradient {:.2f} MB; batch {} per device, bucket {} MB\n",
                     m.steps, m.data_s * 1e3, m.fwd_s * 1e3, m.bwd_s * 1e3, m.layers.size(), m.update_s * 1e3,
                     m.params * 4e-6, o.batch, o.bucket_mb);
  if (m.provenance.empty())
    out << "# measured run: the trace records no provenance (written before scalebench recorded it): hosts and commit "
           "unknown\n";
  else if (m.provenance.context.empty())  // tools/synthetic_trace.py: options, but nothing ran
    out << fmt::format("# measured run: {}: the trace records options but no host or commit (a described step, "
                       "tools/synthetic_trace.py)\n", config.str("model", "-"));
  else
    out << fmt::format("# measured run: {} ({}, threads {}, backend {}) on {}, commit {}{}\n", config.str("run_id", "-"),
                       config.str("model", "-"), config.str("threads", "-"), config.str("backend", "-"),
                       context.str("hostnames", "-"), context.str("git_sha", "-"),
                       context.str("git_dirty") == "true" ? " (uncommitted changes)" : "");
  const auto& samples = net.inter.samples;
  out << fmt::format("# network: inter-node alpha {:.1f} us, {:.3f} GB/s{} ({}){}; intra-node alpha {:.1f} us, {:.3f} GB/s; "
                     "{} ranks per node\n",
                     net.inter.alpha_s * 1e6, net.inter.bytes_per_s * 1e-9,
                     net.inter.per_connection()
                         ? fmt::format(" a connection, a node's connections together up to {:.3f} GB/s",
                                       net.inter.node_rate() * 1e-9)
                         : std::string(),
                     net.inter.source,
                     samples.size() < 2 ? std::string()
                                        : fmt::format(", the measured curve for messages of {:.0f} to {:.0f} bytes",
                                                      samples.front().bytes, samples.back().bytes),
                     net.intra.alpha_s * 1e6, net.intra.bytes_per_s * 1e-9, net.ranks_per_node);
  if (o.max_devices >= 2)
    out << fmt::format("# agreement: each allreduce step ends with one small allgather (the step's health, stop and "
                       "noise-scale scalars), ceil(log2 N) rounds: {:.2f} ms at N = 2, {:.2f} ms at N = {} ({})\n",
                       agreement_time(StrategyKind::ring, 2, net) * 1e3,
                       agreement_time(StrategyKind::ring, o.max_devices, net) * 1e3, o.max_devices,
                       net.inter.agree_s > 0 ? fmt::format("a round of the calibration's measured {:.2f} ms over {} ranks",
                                                           net.inter.agree_s * 1e3, net.inter.measured_ranks)
                                             : std::string("a round: one message of the link; commbench measures it "
                                                           "(agree_us)"));
  if (net.inter.nameplate)
    out << fmt::format("# network: {} is a nameplate rate and a stated latency, all this projection has of the link: "
                       "calibrate with --commbench FILE (commbench --json over the real link) or --calibrate "
                       "N=2:eff=E (a measured run)\n",
                       net.inter.source);
  if (!net.ps_shards.empty()) {
    std::string shards;
    for (const auto& [nodes, shares] : net.ps_shards)
      shards += fmt::format("{}{}:{}", shards.empty() ? "" : ",", nodes, shares.size());
    out << fmt::format("# ps shards: between nodes, a push to and a pull from parameter-server shards on the nodes "
                       "(NODES:SERVERS {}), the busiest link's load each way, in place of a ring: hierarchical, and ring "
                       "and multiworker at one rank a node\n# ps placement: {}\n",
                       shards, net.ps_placement);
  }
  out << "# inputs: " << inputs_note(m, net, o) << "\n";
  if (net.inter.measured_ranks >= 2 && net.inter.gap_s == 0 && mean > 0)
    out << fmt::format("# network: the calibration's calls came back to back, where training's exchange follows {:.0f} ms "
                       "of compute: commbench --gap-ms {:.0f} calibrates the link as training uses it\n",
                       mean * 1e3, mean * 1e3);
  out << fmt::format("# overlap {}  compression {} (ring and hierarchical; ps-sync never overlaps)\n",
                     show_overlap ? "on" : "off", show_compressed ? "16-bit" : "none");
  if (o.comm_cpu_shared)
    out << fmt::format("# exchange CPU: {:.1f} us per message, {:.2f} ms per MB on the wire (inter-node), taken from "
                       "backward while overlapped\n",
                       net.inter.cpu_per_msg_s * 1e6, net.inter.cpu_per_byte_s * 1e9);
  if (!o.stragglers)
    out << "# stragglers: off (--no-stragglers): every rank computes the traced mean, every ring step takes the "
           "calibration's mean\n";
  else {
    const auto [lo, hi] = straggler_interval(m, o.max_devices, o.slow_node);
    out << fmt::format("# stragglers: on: a synchronous step computes at the pace of the slowest of N ranks, each an "
                       "independent draw from the {} traced steps (compute {:.2f} ms mean){}: x{:.3f} at N = 2, x{:.3f} at "
                       "N = {} (its resampling interval: x{:.3f} to x{:.3f} of that)\n",
                       m.step_compute_s.size(), mean * 1e3,
                       o.slow_node < 1 ? fmt::format(", one of them at {:.3g} of the traced speed (--slow-node)", o.slow_node)
                                       : std::string(),
                       straggler_factor(m, 2, o.slow_node), straggler_factor(m, o.max_devices, o.slow_node), o.max_devices,
                       lo, hi);
  }
  if (o.stragglers) out << "# ring steps: " << ring_steps_note(m, net, o) << "\n";
  out << fmt::format("# band: compute x(1 -/+ {:.4f}) (2 standard errors of the traced mean{}), communication x(1 -/+ {:.4f}) "
                     "({}{}){}{}; efficiency pairs N = 1's opposite extreme\n",
                     2 * se, o.stragglers ? "; at N >= 2 the slowest-of-N estimate's 95 % resampling interval where wider" : "",
                     r, net.inter.samples.size() < 3 ? "no commbench calibration of 3+ sizes: nothing measured to leave out"
                                                     : "the calibration curve's leave-one-out residual",
                     o.stragglers ? "; x the ring steps' resampling interval where they were measured" : "",
                     net.inter.ranged() || net.intra.ranged() || o.ready_assumed
                         ? fmt::format("; the assumed inputs at both ends of their ranges{} (the # inputs: line)",
                                       o.ready_reading.present ? ", and the calibration point's other reading's" : "")
                         : std::string(),
                     o.stated_spread > 0 ? fmt::format("; the step's stated x(1 -/+ {:.2f}) at N = 1 and N alike", o.stated_spread)
                                         : std::string());
  out << fmt::format("{:>13} {:>7} {:>6} {:>10} {:>12} {:>11} {:>11} {:>10} {:>16} {:>7}\n", "strategy", "scaling", "N",
                     "step(ms)", "images/s", "comm(ms)", "exposed(ms)", "efficiency", "band", "slowest");
  for (const bool strong : {false, true})
    for (const auto kind : kinds) {
      const bool comp = show_compressed && traits(kind).compression;
      const bool overlap = show_overlap && traits(kind).overlap;
      const int global = o.global_batch > 0 ? o.global_batch : o.batch;
      const Scenario at1{kind, 1, strong, overlap, comp};
      const Prediction base = predict(m, net, o, at1);
      const Band base_band = band(m, net, o, at1);
      for (int n = 1; n <= o.max_devices; n *= 2) {
        if (strong && global / n < 1) break;
        const Scenario sc{kind, n, strong, overlap, comp};
        const Prediction p = predict(m, net, o, sc);
        const Band b = band(m, net, o, sc);
        // DESIGN §5 on the predicted throughputs (weak: step(1)/step(N); strong: step(1)/(N step(N))).
        const double speedup = study::speedup(p.images_per_s, base.images_per_s);
        const double efficiency = study::efficiency(speedup, n);
        // the band: this N's slow extreme against N = 1's fast one, and the reverse
        const double ips_lo = n * p.device_batch / b.step_hi, ips_hi = n * p.device_batch / b.step_lo;
        const double base_lo = base.device_batch / base_band.step_hi, base_hi = base.device_batch / base_band.step_lo;
        double eff_lo = study::efficiency(study::speedup(ips_lo, base_hi), n);
        double eff_hi = study::efficiency(study::speedup(ips_hi, base_lo), n);
        if (o.stated_spread > 0 && n > 1) {  // a described step: its stated spread, the same at N = 1 and N
          const auto [lo, hi] = stated_efficiency_range(m, net, o, sc);
          eff_lo = std::min({eff_lo, lo, efficiency}), eff_hi = std::max({eff_hi, hi, efficiency});
        }
        record::Attrs row;
        const std::string name(traits(kind).name);
        const std::string group = fmt::format("project-{}-{}{}{}", model, strong ? "strong" : "weak",
                                              overlap ? "" : "-nooverlap", comp ? "-" + std::string(name_of(wire)) : "");
        row.set("point_id", fmt::format("{}-{}-n{}", group, name, n));
        row.set("group_id", group);
        row.set("status", "ok");
        row.set("model", model);
        row.set("strategy", name);
        row.set("world_size", std::int64_t(n));
        row.set("devices", std::int64_t(n));
        row.set("scaling", strong ? "strong" : "weak");
        row.set("batch", std::int64_t(p.device_batch));
        row.set("global_batch", std::int64_t(p.device_batch * n));
        row.set("no_overlap", std::int64_t(!overlap));
        row.set("compression", std::string(name_of(comp ? wire : comm::WireType::f32)));
        row.set("images_per_s", p.images_per_s);
        row.set("images_per_s_band_lo", ips_lo);
        row.set("images_per_s_band_hi", ips_hi);
        row.set("step_time_s", p.step_s);
        row.set("step_time_s_band_lo", b.step_lo);
        row.set("step_time_s_band_hi", b.step_hi);
        row.set("comm_s", p.comm_s);
        row.set("exposed_comm_s", p.exposed_s);
        row.set("exposed_comm_frac", p.exposed_s / p.step_s);
        row.set("speedup", speedup);
        row.set("efficiency", efficiency);
        row.set("efficiency_band_lo", eff_lo);
        row.set("efficiency_band_hi", eff_hi);
        row.set("straggler_factor", p.straggler);
        row.set("buckets", std::int64_t(p.buckets));
        row.set("source", "projection");
        for (const std::string& k : study::context_columns()) row.set(k, context.str(k));  // as collect does
        t.append(row);
        out << fmt::format("{:>13} {:>7} {:>6} {:>10.2f} {:>12.1f} {:>11.2f} {:>11.2f} {:>10.3f} {:>16} {:>7.3f}\n", name,
                           strong ? "strong" : "weak", n, p.step_s * 1e3, p.images_per_s, p.comm_s * 1e3,
                           p.exposed_s * 1e3, efficiency, fmt::format("[{:.3f}, {:.3f}]", eff_lo, eff_hi), p.straggler);
      }
    }
  return t;
}

}  // namespace scalebench::project
