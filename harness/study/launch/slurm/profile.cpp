// slurm/profile.cpp — parsing and validating a cluster profile (see slurm/profile.h).
#include "harness/study/launch/slurm/profile.h"

#include <fstream>
#include <sstream>

#include "harness/study/launch/slurm/safe.h"
#include "harness/study/spec/toml_section.h"

namespace scalebench::study::slurm {
namespace {

// Runs a slurm_safe check and re-raises its message at the value's line:column in the profile.
template <typename Check>
void checked(const Section& s, const char* key, const std::string& value, Check check) {
  try {
    check(value, std::string("cluster.") + key);
  } catch (const Error& e) {
    std::string msg = e.what();
    const std::string prefix = std::string("cluster.") + key;
    if (msg.rfind(prefix, 0) == 0) msg = msg.substr(msg.find(": ") + 2);
    s.fail(key, msg);
  }
}

std::vector<std::string> optional_strings(const Section& s, const char* key) {
  return s.has(key) ? s.strings(key) : std::vector<std::string>{};
}

}  // namespace

Profile parse_profile(std::string_view text, const std::string& source) {
  const toml::table root = parse_toml(text, source);
  for (auto&& [k, v] : root)
    if (k.str() != "cluster")
      Section(source, &root, "", k.source()).fail_at(k.source(), std::string(k.str()), "unknown section (known: [cluster])");
  const Section s = section(source, root, "cluster");
  s.check_known({"name", "partition", "account", "qos", "time", "collect_time", "tasks_per_node", "gpus_per_node",
                 "cpus_per_task", "launcher", "srun_mpi", "srun_args", "mpirun_args", "sbatch_args", "modules", "env",
                 "signal_seconds", "requeue", "scalebench", "python"});
  Profile p;
  p.source = source;
  p.text = std::string(text);
  p.name = s.str("name").value_or("");
  if (p.name.empty()) s.fail("name", "required: the cluster's name (for the logs and job names)");
  checked(s, "name", p.name, require_word);
  for (auto [key, field] : {std::pair{"partition", &p.partition}, {"account", &p.account}, {"qos", &p.qos}}) {
    *field = s.str(key).value_or("");
    if (!field->empty()) checked(s, key, *field, require_word);
  }
  p.time = s.str("time").value_or(p.time);
  checked(s, "time", p.time, require_time);
  p.collect_time = s.str("collect_time").value_or(p.collect_time);
  checked(s, "collect_time", p.collect_time, require_time);
  p.tasks_per_node = int(s.integer("tasks_per_node", 1, 4096).value_or(p.tasks_per_node));
  p.gpus_per_node = int(s.integer("gpus_per_node", 0, 1024).value_or(p.gpus_per_node));
  p.cpus_per_task = int(s.integer("cpus_per_task", 1, 4096).value_or(p.cpus_per_task));
  p.launcher = s.one_of("launcher", p.launcher, {"srun", "mpirun"});
  p.srun_mpi = s.str("srun_mpi").value_or(p.srun_mpi);
  checked(s, "srun_mpi", p.srun_mpi, require_word);
  p.srun_args = optional_strings(s, "srun_args");
  for (const auto& a : p.srun_args) checked(s, "srun_args", a, require_option);
  p.mpirun_args = optional_strings(s, "mpirun_args");
  for (const auto& a : p.mpirun_args) checked(s, "mpirun_args", a, require_option);
  p.sbatch_args = optional_strings(s, "sbatch_args");
  for (const auto& a : p.sbatch_args) {
    checked(s, "sbatch_args", a, require_option);
    for (const char* own : {"--signal", "--requeue", "--array", "--dependency", "--output", "--chdir", "--job-name"})
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        s.fail("sbatch_args", fmt::format("'{}' is set by scalebench itself (use the profile's own keys: "
                                          "signal_seconds, requeue)", a));
  }
  p.modules = optional_strings(s, "modules");
  for (const auto& m : p.modules) checked(s, "modules", m, require_word);
  if (const toml::node* n = s.node("env")) {
    const toml::table* t = n->as_table();
    if (!t) s.fail("env", "expected a table of NAME = \"value\"");
    for (auto&& [k, v] : *t) {
      const std::string name(k.str());
      if (!v.is_string()) s.fail_at(v.source(), "cluster.env." + name, "expected a string value");
      const std::string value = *v.value<std::string>();
      try {
        require_env_name(name, "cluster.env");
        if (!value.empty()) require_word(value, "cluster.env." + name);
      } catch (const Error& e) {
        s.fail_at(v.source(), "cluster.env." + name, e.what());
      }
      p.env.emplace_back(name, value);
    }
  }
  p.signal_seconds = int(s.integer("signal_seconds", 0, 65535).value_or(0));
  p.requeue = s.boolean("requeue").value_or(false);
  p.scalebench = s.str("scalebench").value_or("");
  if (!p.scalebench.empty()) checked(s, "scalebench", p.scalebench, require_word);
  p.python = s.str("python").value_or(p.python);
  checked(s, "python", p.python, require_word);
  return p;
}

Profile load_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  SB_REQUIRE(in, "{}: cannot read the Slurm profile", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_profile(ss.str(), path);
}

}  // namespace scalebench::study::slurm
