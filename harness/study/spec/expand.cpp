// expand.cpp — device ranges and the expansion of a spec into points (see spec.h).
#include <charconv>
#include <algorithm>
#include <set>

#include <fmt/ranges.h>

#include "harness/study/spec/spec.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

int parse_int(const std::string& text, const std::string& whole, const char* what) {
  int v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  SB_REQUIRE(ec == std::errc() && p == text.data() + text.size() && !text.empty(),
             "'{}': the {} '{}' is not an integer", whole, what, text);
  return v;
}

}  // namespace

std::vector<int> parse_device_range(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (;;) {
    const auto colon = text.find(':', pos);
    parts.push_back(text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos));
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  SB_REQUIRE(parts.size() <= 3, "'{}' is not a range (start:end or start:end:step, step '*k' or '+k')", text);
  const int start = parse_int(parts[0], text, "start");
  const int end = parts.size() >= 2 ? parse_int(parts[1], text, "end") : start;
  SB_REQUIRE(start >= 1 && end >= start && end <= 65536, "'{}': need 1 <= start <= end <= 65536", text);
  bool multiply = false;
  int step = 1;
  if (parts.size() == 3) {
    std::string s = parts[2];
    if (!s.empty() && (s[0] == '*' || s[0] == '+')) {
      multiply = s[0] == '*';
      s = s.substr(1);
    }
    step = parse_int(s, text, "step");
    SB_REQUIRE(multiply ? step >= 2 : step >= 1, "'{}': the step must be {}", text, multiply ? "*2 or more" : ">= 1");
  }
  std::vector<int> out;
  for (long long n = start; n <= end; n = multiply ? n * step : n + step) out.push_back(int(n));
  return out;
}

bool strategy_uses(const StrategyTraits& st, std::string_view key) {
  if (key == "compression") return st.compression;
  if (key == "bucket_mb" || key == "no_overlap") return st.overlap;
  if (key == "staleness") return st.staleness;
  if (key == "ranks_per_node") return st.algo == comm::AllreduceAlgo::hierarchical;
  return true;
}

const std::vector<int>& devices_of(const SweepSpec& spec, StrategyKind strategy) {
  for (const auto& [k, ns] : spec.strategy_devices)
    if (k == strategy) return ns;
  return spec.devices;
}

std::string points_summary(const SweepSpec& spec, std::size_t points) {
  const auto plural = [](std::size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  const std::size_t batches = std::max(spec.batches.size(), spec.global_batches.size());
  std::size_t per_batch = 0;  // points of one repetition, model and batch: the sum over strategies
  std::string terms;
  for (const StrategyKind k : spec.strategies) {
    const StrategyTraits& st = traits(k);
    const std::vector<int> ns = st.multi_device ? devices_of(spec, k) : std::vector<int>{spec.devices.front()};
    std::size_t n = ns.size();
    std::string term = fmt::format("{} at N={}", name_of(k), fmt::join(ns, ","));
    for (const SweepAxis& a : spec.axes)
      if (strategy_uses(st, a.key)) {
        n *= a.values.size();
        term += fmt::format(" x {} {}", a.values.size(), a.key);
      }
    per_batch += n;
    terms += (terms.empty() ? "" : " + ") + term;
  }
  const std::size_t product = std::size_t(spec.repetitions) * spec.models.size() * batches * per_batch;
  std::string s = fmt::format("{} = {}{} x ({}) x {}", plural(points, "point", "points"),
                              plural(spec.models.size(), "model", "models"),
                              batches > 1 ? fmt::format(" x {} batches", batches) : "", terms,
                              plural(std::size_t(spec.repetitions), "repetition", "repetitions"));
  // expand() keeps one of points with equal run ids; the product says how many that merged.
  if (product != points) s += fmt::format(" ({} of {} are identical points, run once)", product - points, product);
  return s;
}

std::string axes_label(const SweepSpec& spec, const record::RunConfig& c) {
  std::string s;
  if (std::max(spec.batches.size(), spec.global_batches.size()) > 1) s += fmt::format(" b={}", c.train.batch);
  for (const SweepAxis& a : spec.axes)
    if (strategy_uses(c.train.strategy_traits(), a.key)) s += fmt::format(" {}={}", a.key, find_train_field(a.key)->text(c.train));
  return s;
}

std::vector<record::RunConfig> expand(const SweepSpec& spec) {
  // The axes' cartesian product, first axis outermost: one TrainConfig template per combination.
  std::vector<std::vector<std::size_t>> combos{{}};
  for (const SweepAxis& a : spec.axes) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& c : combos)
      for (std::size_t v = 0; v < a.values.size(); ++v) {
        next.push_back(c);
        next.back().push_back(v);
      }
    combos = std::move(next);
  }
  const std::vector<int>& batches = spec.scaling == record::Scaling::weak ? spec.batches : spec.global_batches;
  std::vector<record::RunConfig> points;
  std::set<std::string> ids;
  for (int rep = 1; rep <= spec.repetitions; ++rep)
    for (const auto& model : spec.models)
      for (int batch : batches)
        for (const auto& combo : combos)
          for (const StrategyKind strategy : spec.strategies)
            for (int n : devices_of(spec, strategy)) {
              const StrategyTraits& st = traits(strategy);
              // A one-device strategy (single) is the baseline: it runs once, at the smallest N.
              if (!st.multi_device && n != spec.devices.front()) continue;
              record::RunConfig c;
              c.train = spec.train;
              for (std::size_t i = 0; i < spec.axes.size(); ++i) {
                const SweepAxis& a = spec.axes[i];
                if (!strategy_uses(st, a.key)) continue;  // stays at the [train] value: one point, not one per value
                if (auto p = find_train_field(a.key)->parse(c.train, a.values[combo[i]]))
                  fail_input(fmt::format("{}: sweep.{}: {}", spec.source, a.key, *p));
              }
              c.train.model = model;
              c.train.strategy = strategy;
              c.train.data = spec.data;
              c.world_size = st.multi_device ? n : 1;
              c.train.devices = st.processes == Processes::one ? c.world_size : 1;
              c.train.batch = spec.scaling == record::Scaling::weak ? batch : batch / c.world_size;
              c.repetition = rep;
              c.scaling = spec.scaling;
              c.study = spec.name;
              try {
                c.train.validate();
                c.validate();
              } catch (const Error& e) {
                fail_input(fmt::format("{}: point {}{}: {}", spec.source, record::point_label(c), axes_label(spec, c),
                                       e.what()));
              }
              // An axis the strategy does not use gives the same point once per value: keep the first.
              if (ids.insert(record::run_id(c)).second) points.push_back(std::move(c));
            }
  return points;
}

}  // namespace scalebench::study
