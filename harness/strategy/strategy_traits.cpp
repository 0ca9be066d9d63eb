// strategy_traits.cpp — the texts derived from the strategy table (see strategy_traits.h).
#include "harness/strategy/strategy_traits.h"

#include <fmt/format.h>

namespace scalebench {
namespace {

template <class Pred>
std::string names_where(Pred pred, std::string_view sep) {
  std::string s;
  for (const auto& t : kStrategies)
    if (pred(t)) s += (s.empty() ? "" : std::string(sep)) + std::string(t.name);
  return s;
}

}  // namespace

bool runs_on(StrategyKind k, Backend b) { return b == Backend::cpu ? traits(k).cpu : traits(k).cuda; }

std::string strategies_on(Backend b, std::string_view sep) {
  return names_where([b](const StrategyTraits& t) { return runs_on(t.kind, b); }, sep);
}

std::string strategies_with(bool StrategyTraits::*trait, std::string_view sep) {
  return names_where([trait](const StrategyTraits& t) { return t.*trait; }, sep);
}

std::string strategy_help() {
  std::string s;
  for (const auto& t : kStrategies) {
    const std::string procs = t.processes == Processes::one
                                  ? (t.multi_device ? "1 process x N devices" : "1 device")
                                  : fmt::format("N ranks{}", t.extra_ranks ? fmt::format(" + {} server", t.extra_ranks) : "");
    s += fmt::format("{}{}: {}{}", s.empty() ? "" : "; ", t.name, procs, t.cuda ? "" : ", cpu only");
  }
  return s;
}

}  // namespace scalebench
