// expand.cpp — device ranges and the expansion of a spec into points (see spec.h).
#include <charconv>

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

std::vector<record::RunConfig> expand(const SweepSpec& spec) {
  std::vector<record::RunConfig> points;
  for (int rep = 1; rep <= spec.repetitions; ++rep)
    for (const auto& model : spec.models)
      for (const StrategyKind strategy : spec.strategies)
        for (int n : spec.devices) {
          const StrategyTraits& st = traits(strategy);
          // A one-device strategy (single) is the baseline: it runs once, at the smallest N.
          if (!st.multi_device && n != spec.devices.front()) continue;
          record::RunConfig c;
          c.train = spec.train;
          c.train.model = model;
          c.train.strategy = strategy;
          c.train.data = spec.data;
          c.world_size = st.multi_device ? n : 1;
          c.train.devices = st.processes == Processes::one ? c.world_size : 1;
          c.train.batch = spec.scaling == record::Scaling::weak ? spec.batch : spec.global_batch / c.world_size;
          c.repetition = rep;
          c.scaling = spec.scaling;
          c.study = spec.name;
          try {
            c.train.validate();
            c.validate();
          } catch (const Error& e) {
            fail_input(fmt::format("{}: point {}: {}", spec.source, record::point_label(c), e.what()));
          }
          points.push_back(std::move(c));
        }
  return points;
}

}  // namespace scalebench::study
