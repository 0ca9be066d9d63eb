// summary.cpp — /summary from the tables (see summary.h).
#include "harness/record/summary.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace scalebench::record {
namespace {

// Linear interpolation between order statistics (numpy's default, Hyndman–Fan type 7); v sorted.
double quantile(const std::vector<double>& v, double q) {
  if (v.empty()) return kNaN;
  const double pos = q * double(v.size() - 1);
  const auto i = std::size_t(pos);
  return i + 1 < v.size() ? v[i] + (pos - double(i)) * (v[i + 1] - v[i]) : v.back();
}

// step_time_median_s, step_time_iqr_s, step_time_cv, measured_steps over the measured steps' t_total.
void step_distribution(std::vector<double> t, Attrs& s) {
  std::sort(t.begin(), t.end());
  double mean = 0, var = 0;
  for (double x : t) mean += x / double(t.size());
  for (double x : t) var += (x - mean) * (x - mean);
  s.set("measured_steps", std::int64_t(t.size()));
  s.set("step_time_median_s", quantile(t, 0.5));
  s.set("step_time_iqr_s", quantile(t, 0.75) - quantile(t, 0.25));
  s.set("step_time_cv", t.size() >= 2 && mean > 0 ? std::sqrt(var / double(t.size() - 1)) / mean : kNaN);
}

}  // namespace

Attrs summarize(const Table& epochs, const Table& steps, const SummaryInputs& in) {
  const std::size_t n = epochs.rows();
  std::vector<bool> measured(n, true);
  if (n >= 2)
    for (std::size_t r = 0; r < n; ++r) measured[r] = epochs.integer("warmup", r) == 0;
  double wall = 0, images = 0;
  std::int64_t count = 0;
  std::vector<std::int64_t> measured_epochs;
  for (std::size_t r = 0; r < n; ++r)
    if (measured[r]) {
      wall += epochs.num("wall_s", r);
      images += epochs.num("images", r);
      measured_epochs.push_back(epochs.integer("epoch", r));
      ++count;
    }
  double comm = 0, total = 0;
  std::vector<double> step_times;
  for (std::size_t r = 0; r < steps.rows(); ++r) {
    const std::int64_t e = steps.integer("epoch", r);
    bool in_measured = false;
    for (auto m : measured_epochs) in_measured = in_measured || m == e;
    if (!in_measured) continue;
    comm += steps.num("t_comm_exposed", r);
    total += steps.num("t_total", r);
    step_times.push_back(steps.num("t_total", r));
  }
  const double ips = count > 0 && wall > 0 ? images / wall : kNaN;
  const double tflops = in.train_flops_per_image * ips / 1e12;
  Attrs s;
  s.set("epoch_time_s", count > 0 ? wall / double(count) : kNaN);
  s.set("images_per_s", ips);
  s.set("tflops", tflops);
  s.set("mfu", in.peak_flops > 0 ? tflops * 1e12 / in.peak_flops : kNaN);
  s.set("peak_tflops", in.peak_flops / 1e12);
  s.set("peak_method", in.peak_method);
  s.set("sgemm_tflops", in.sgemm_flops / 1e12);
  if (!in.sgemm_method.empty()) s.set("sgemm_method", in.sgemm_method);
  s.set("exposed_comm_frac", total > 0 ? comm / total : kNaN);
  s.set("comm_bytes_per_step", std::int64_t(in.comm_bytes_per_step));
  s.set("measured_epochs", count);
  step_distribution(std::move(step_times), s);
  s.set("train_flops_per_image", in.train_flops_per_image);
  const std::size_t last = n - 1;
  s.set("final_train_loss", n ? epochs.num("train_loss", last) : kNaN);
  s.set("final_val_loss", n ? epochs.num("val_loss", last) : kNaN);
  s.set("final_val_miou", n ? epochs.num("val_miou", last) : kNaN);
  s.set("final_val_accuracy", n ? epochs.num("val_accuracy", last) : kNaN);
  // The gradient noise scale of the last epoch (the latest weights'; it changes as training goes).
  s.set("b_simple", n && epochs.find("b_simple") ? epochs.num("b_simple", last) : kNaN);
  s.set("peak_mem_bytes", std::int64_t(in.peak_mem_bytes));
  return s;
}

void summarize_target(const TargetTracker& t, Attrs& s) {
  if (!t.active()) return;
  s.set("target_metric", t.metric());
  s.set("target_value", t.target());
  s.set("target_reached", std::int64_t(t.reached()));
  s.set("target_checks", std::int64_t(t.checks().size()));
  const TargetCheck* r = t.first_reached();
  s.set("steps_to_target", r ? double(r->global_step) : kNaN);
  s.set("epochs_to_target", r ? r->epochs : kNaN);
  s.set("images_to_target", r ? double(r->images) : kNaN);
  s.set("seconds_to_target", r ? r->seconds : kNaN);
  const TargetCheck* b = t.best();
  s.set("target_best", b ? b->value : kNaN);
  s.set("target_best_step", b ? double(b->global_step) : kNaN);
  s.set("target_best_epochs", b ? b->epochs : kNaN);
}

std::int64_t peak_rss_bytes() {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return std::int64_t(ru.ru_maxrss) * 1024;
}

}  // namespace scalebench::record
