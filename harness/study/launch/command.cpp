// launch/command.cpp — strategy → command line (see launch/command.h).
#include "harness/study/launch/command.h"

#include <unistd.h>

#include <fmt/format.h>

#include "harness/strategy/strategy_traits.h"

namespace scalebench::study {
namespace {

template <class C>
void add_fields(std::vector<std::string>& a, const C& c, std::span<const Field<C>> fields) {
  for (const auto& f : fields) {
    if (f.flag.empty() || f.launch == LaunchRule::never) continue;
    if (f.launch == LaunchRule::unless_default && f.is_default(c)) continue;
    if (f.kind == ValueKind::boolean) {
      if (f.text(c) == "true") a.push_back(f.flag);  // a switch: absent means false
      continue;
    }
    a.push_back(f.flag);
    a.push_back(f.text(c));
  }
}

}  // namespace

std::vector<std::string> train_args(const record::RunConfig& c, const std::string& runs_dir) {
  std::vector<std::string> a = {"train"};
  TrainConfig t = c.train;
  t.devices = t.strategy_traits().processes == Processes::one ? c.world_size : 1;  // the point's N, once
  add_fields(a, t, train_fields());
  add_fields(a, c, record::run_fields());
  a.push_back("-o");
  a.push_back(runs_dir);
  return a;
}

std::vector<std::string> launch_command(const record::RunConfig& c, const std::string& exe,
                                        const std::string& runs_dir) {
  std::vector<std::string> cmd;
  const StrategyTraits& st = c.train.strategy_traits();
  if (st.processes == Processes::per_device) {
    cmd = {"mpirun", "-np", std::to_string(launched_ranks(st.kind, c.world_size)), "--oversubscribe"};
    if (::geteuid() == 0) cmd.push_back("--allow-run-as-root");
  }
  cmd.push_back(exe);
  for (auto& a : train_args(c, runs_dir)) cmd.push_back(std::move(a));
  return cmd;
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& w : argv) {
    const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-+=:,./@%") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? w : "'" + w + "'");
  }
  return s;
}

}  // namespace scalebench::study
