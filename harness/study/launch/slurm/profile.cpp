// slurm/profile.cpp — parsing and validating a cluster profile (see slurm/profile.h). Every key of
// [cluster] and [collect] is read here and only here; errors name file:line:column and the key.
#include "harness/study/launch/slurm/profile.h"

#include "harness/study/launch/slurm/safe.h"
#include "harness/study/spec/toml_section.h"
#include "kernels/common/read_file.h"

namespace scalebench::study::slurm {
namespace {

// Runs a slurm_safe check and re-raises its message at the value's line:column in the profile.
template <typename Check>
void checked(const Section& s, const char* key, const std::string& value, Check check) {
  const std::string field = s.name() + "." + key;
  try {
    check(value, field);
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.rfind(field, 0) == 0) msg = msg.substr(msg.find(": ") + 2);
    s.fail(key, msg);
  }
}

std::vector<std::string> optional_strings(const Section& s, const char* key) {
  return s.has(key) ? s.strings(key) : std::vector<std::string>{};
}

// partition, account, qos: optional words.
void where_keys(const Section& s, std::string& partition, std::string& account, std::string& qos) {
  for (auto [key, field] : {std::pair{"partition", &partition}, {"account", &account}, {"qos", &qos}}) {
    *field = s.str(key).value_or(*field);
    if (!field->empty()) checked(s, key, *field, require_word);
  }
}

void sbatch_args(const Section& s, std::vector<std::string>& out) {
  out = optional_strings(s, "sbatch_args");
  for (const auto& a : out) {
    checked(s, "sbatch_args", a, require_option);
    for (const char* own : {"--signal", "--requeue", "--array", "--dependency", "--output", "--chdir", "--job-name",
                            "--gres", "--gpus-per-node", "--gpus-per-task", "--cpus-per-task", "--ntasks", "--nodes",
                            "--time", "--exclusive"})
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        s.fail("sbatch_args", fmt::format("'{}' is set by scalebench itself (use the profile's own keys: "
                                          "signal_seconds, requeue, gpu_request, gpus_per_task, max_cpus_per_task, "
                                          "exclusive, time)", a));
  }
}

// modules: `module load` each; [] loads none (in [collect]: not the cluster's either).
void modules_key(const Section& s, const char* key, std::vector<std::string>& out) {
  if (!s.has(key)) return;
  const toml::array* a = s.node(key)->as_array();
  out = a && a->empty() ? std::vector<std::string>{} : s.strings(key);
  for (const auto& m : out) checked(s, key, m, require_word);
}
void modules(const Section& s, std::vector<std::string>& out) { modules_key(s, "modules", out); }

// srun_args: options; an --export must keep the environment (scalebench appends its own variables).
void srun_args(const Section& s, std::vector<std::string>& out) {
  out = optional_strings(s, "srun_args");
  for (const auto& a : out) {
    checked(s, "srun_args", a, require_option);
    for (const char* own : {"--cpus-per-task", "--gpus-per-task", "--gpu-bind", "--ntasks", "--mpi"})
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        s.fail("srun_args", fmt::format("'{}' is set by scalebench itself (use the profile's own keys: "
                                        "max_cpus_per_task, gpus_per_task, gpu_bind, srun_mpi)", a));
    if (a == "--export" || (a.rfind("--export=", 0) == 0 && a.rfind("--export=ALL", 0) != 0))
      s.fail("srun_args", fmt::format("'{}': the ranks need the job's environment; write --export=ALL[,NAME=value...] "
                                      "(scalebench adds SCALEBENCH_LAUNCHER=srun to it)", a));
  }
}

void collect_table(const toml::table& root, const std::string& source, Profile& p) {
  const Section c = section(source, root, "collect");
  c.check_known({"partition", "account", "qos", "time", "cpus", "sbatch_args", "modules", "more_modules"});
  SmallJob& j = p.collect;
  j.partition = p.partition;
  j.account = p.account;
  j.qos = p.qos;
  j.modules = p.modules;
  if (!c.present()) return;
  where_keys(c, j.partition, j.account, j.qos);
  j.time = c.str("time").value_or(j.time);
  checked(c, "time", j.time, require_time);
  j.cpus = int(c.integer("cpus", 1, 4096).value_or(j.cpus));
  sbatch_args(c, j.sbatch_args);
  modules(c, j.modules);
  // Loaded after `modules` (the cluster's by default): what only this job needs, such as the Python
  // with matplotlib and h5py for the plots, without repeating the cluster's list.
  std::vector<std::string> more;
  modules_key(c, "more_modules", more);
  j.modules.insert(j.modules.end(), more.begin(), more.end());
}

}  // namespace

Profile parse_profile(std::string_view text, const std::string& source) {
  const toml::table root = parse_toml(text, source);
  for (auto&& [k, v] : root)
    if (k.str() != "cluster" && k.str() != "collect")
      Section(source, &root, "", k.source()).fail_at(k.source(), std::string(k.str()), "unknown section (known: [cluster], [collect])");
  const Section s = section(source, root, "cluster");
  if (s.has("collect_time")) s.fail("collect_time", "moved: write `time = ...` in a [collect] table (docs/slurm.md)");
  if (s.has("cpus_per_task"))
    s.fail("cpus_per_task", "renamed max_cpus_per_task: a point asks for threads x devices cores, at most this many");
  s.check_known({"name", "partition", "account", "qos", "time", "allocation_time", "tasks_per_node", "gpus_per_node", "gpu_request",
                 "gpu_type", "gpus_per_task", "gpu_bind", "max_cpus_per_task", "exclusive", "launcher", "srun_mpi", "srun_args", "mpirun_args", "sbatch_args",
                 "modules", "env", "signal_seconds", "requeue", "scalebench", "plots", "python"});
  Profile p;
  p.source = source;
  p.text = std::string(text);
  p.name = s.str("name").value_or("");
  if (p.name.empty()) s.fail("name", "required: the cluster's name (for the logs and job names)");
  checked(s, "name", p.name, require_word);
  where_keys(s, p.partition, p.account, p.qos);
  p.time = s.str("time").value_or(p.time);
  checked(s, "time", p.time, require_time);
  p.allocation_time = s.str("allocation_time").value_or(p.time);
  checked(s, "allocation_time", p.allocation_time, require_time);
  p.tasks_per_node = int(s.integer("tasks_per_node", 1, 4096).value_or(p.tasks_per_node));
  p.gpus_per_node = int(s.integer("gpus_per_node", 0, 1024).value_or(p.gpus_per_node));
  p.gpu_request = s.one_of("gpu_request", "gpus-per-node", {"gpus-per-node", "gres"}) == "gres" ? GpuRequest::gres
                                                                                                  : GpuRequest::gpus_per_node;
  p.gpu_type = s.str("gpu_type").value_or("");
  if (!p.gpu_type.empty()) checked(s, "gpu_type", p.gpu_type, require_word);
  p.gpus_per_task = s.boolean("gpus_per_task").value_or(false);
  p.gpu_bind = s.str("gpu_bind").value_or("");
  if (!p.gpu_bind.empty()) checked(s, "gpu_bind", p.gpu_bind, require_word);
  p.max_cpus_per_task = int(s.integer("max_cpus_per_task", 1, 4096).value_or(p.max_cpus_per_task));
  const std::string excl = s.one_of("exclusive", "full-nodes", {"full-nodes", "always", "never"});
  p.exclusive = excl == "always" ? Exclusive::always : excl == "never" ? Exclusive::never : Exclusive::full_nodes;
  p.launcher = s.one_of("launcher", p.launcher, {"srun", "mpirun"});
  p.srun_mpi = s.str("srun_mpi").value_or(p.srun_mpi);
  if (!p.srun_mpi.empty()) checked(s, "srun_mpi", p.srun_mpi, require_word);
  srun_args(s, p.srun_args);
  p.mpirun_args = optional_strings(s, "mpirun_args");
  for (const auto& a : p.mpirun_args) checked(s, "mpirun_args", a, require_option);
  sbatch_args(s, p.sbatch_args);
  modules(s, p.modules);
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
  for (auto [key, field] : {std::pair{"scalebench", &p.scalebench}, {"plots", &p.plots}, {"python", &p.python}}) {
    *field = s.str(key).value_or(*field);
    if (!field->empty() || std::string_view(key) != "plots") checked(s, key, *field, require_word);
  }
  collect_table(root, source, p);
  return p;
}

Profile load_profile(const std::string& path) {
  return parse_profile(read_text_file(path, fmt::format("{}: cannot read the Slurm profile", path)), path);
}

}  // namespace scalebench::study::slurm
