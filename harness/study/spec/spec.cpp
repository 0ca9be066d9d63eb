// spec.cpp — sweep spec parsing and validation with toml++ (see spec.h). Every error names the
// file, the line:column of the offending value (or of its section when the value is missing) and
// the field as section.key.
#include "harness/study/spec/spec.h"

#include "harness/study/spec/config_toml.h"
#include "harness/study/spec/toml_section.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "kernels/common/check.h"
#include "kernels/common/read_file.h"
#include "models/spec.h"

namespace scalebench::study {
namespace {

// A folder or file name the spec gives: no control characters. A newline or an escape in a path
// breaks every line that prints it (progress, status, the Slurm scripts that hold it) and is never
// meant; the error shows the value escaped (Section::fail).
void check_path_text(const Section& s, const char* key, const std::string& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (const auto c = static_cast<unsigned char>(v[i]); c < 0x20 || c == 0x7f)
      s.fail(key, fmt::format("'{}' holds the control character 0x{:02x} at position {} (a path may not)", v, c, i + 1));
}

void read_dataset(const Section& s, SweepSpec& spec) {
  s.check_known({"path", "task", "n", "size", "seed"});
  const bool recipe = s.has("task") || s.has("n") || s.has("size") || s.has("seed");
  if (auto p = s.str("path")) {
    if (recipe) s.fail("path", "give either path or a recipe (task, n, size, seed), not both");
    if (p->empty()) s.fail("path", "must not be empty");
    check_path_text(s, "path", *p);
    spec.data = *p;
    const auto& at = s.node("path")->source().begin;
    spec.data_where = fmt::format("{}:{}:{}", spec.source, at.line, at.column);
    return;
  }
  if (!recipe) s.fail("path", "required: a dataset path, or a recipe (task, n, size, seed) to generate one");
  data::GenConfig g;
  const std::string task = s.one_of("task", "segmentation", {"segmentation", "classification"});
  g.task = task == "segmentation" ? data::Task::segmentation : data::Task::classification;
  g.n = s.integer("n", 1, 10'000'000).value_or(g.n);
  g.size = int(s.integer("size", 16, 4096).value_or(g.size));
  g.seed = std::uint64_t(s.integer("seed", 0, INT64_MAX).value_or(std::int64_t(g.seed)));
  spec.generate = g;
  spec.data = fmt::format("{}/data/{}-n{}-s{}-seed{}.h5", spec.output, task, g.n, g.size, g.seed);
}

const std::set<std::string> kSweepKeys = {"models",  "strategies", "devices",     "strategy_devices",
                                          "scaling", "batch",      "global_batch"};

// `batch = 8` or `batch = [4, 8]`: each in [1, hi], none twice.
std::vector<int> int_list(const Section& s, const char* key, std::int64_t hi) {
  const toml::node* n = s.node(key);
  if (!n->as_array()) return {int(*s.integer(key, 1, hi))};
  if (n->as_array()->empty()) s.fail(key, "must not be empty");
  std::vector<int> out;
  for (const toml::node& e : *n->as_array()) {
    if (!e.is_integer() || *e.value<std::int64_t>() < 1 || *e.value<std::int64_t>() > hi)
      s.fail_at(e.source(), s.name() + "." + key, fmt::format("each value must be an integer in [1, {}]", hi));
    if (std::count(out.begin(), out.end(), int(*e.value<std::int64_t>())))
      s.fail_at(e.source(), s.name() + "." + key, fmt::format("{} is listed twice", *e.value<std::int64_t>()));
    out.push_back(int(*e.value<std::int64_t>()));
  }
  return out;
}

// Every other [sweep] key names a run option a sweep spec may set (field.h's in_spec) and lists its
// values: one axis each, in key order (toml++ keeps a table's keys sorted).
void read_axes(const Section& s, SweepSpec& spec) {
  for (auto&& [k, v] : *s.table()) {
    const std::string key(k.str());
    if (kSweepKeys.count(key)) continue;
    const Field<TrainConfig>* f = find_train_field(key);
    if (!f || !f->in_spec) {
      std::string known;
      for (const std::string& x : kSweepKeys) known += (known.empty() ? "" : ", ") + x;
      for (const auto& t : train_fields())
        if (t.in_spec) known += ", " + std::string(t.key);
      s.fail_at(k.source(), "sweep." + key, fmt::format("unknown key (known: {})", known));
    }
    const toml::array* a = v.as_array();
    if (!a || a->empty())
      s.fail_at(v.source(), "sweep." + key,
                "expected a non-empty list of values to sweep; a single value belongs in [train]");
    SweepAxis axis{key, {}};
    for (const toml::node& e : *a) {
      std::string text = field_text(s, "sweep." + key, e, *f, spec.train);
      if (std::count(axis.values.begin(), axis.values.end(), text))
        s.fail_at(e.source(), "sweep." + key, fmt::format("'{}' is listed twice", text));
      axis.values.push_back(std::move(text));
    }
    spec.axes.push_back(std::move(axis));
  }
}

// `devices = [1, 2, 4]` or `devices = "1:8:*2"` (and each list of [sweep.strategy_devices]): sorted,
// each count in [1, 65536], none twice; a failure points at the value, named `field`.
std::vector<int> device_list(const Section& s, const toml::node& d, const std::string& field) {
  std::vector<int> out;
  if (d.is_string()) {
    try {
      out = parse_device_range(*d.value<std::string>());
    } catch (const Error& e) {
      s.fail_at(d.source(), field, e.what());
    }
  } else if (const toml::array* a = d.as_array(); a && !a->empty()) {
    for (const toml::node& e : *a) {
      if (!e.is_integer() || *e.value<std::int64_t>() < 1 || *e.value<std::int64_t>() > 65536)
        s.fail_at(e.source(), field, "each device count must be an integer in [1, 65536]");
      out.push_back(int(*e.value<std::int64_t>()));
    }
  } else {
    s.fail_at(d.source(), field, "expected a non-empty list of integers or a range string such as \"1:8:*2\"");
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) s.fail_at(d.source(), field, "a device count is listed twice");
  return out;
}

// [sweep.strategy_devices]: a strategy's own device counts instead of `devices` (mirrored up to
// one node's GPUs, ring beyond). Keys: strategies of sweep.strategies that run on several devices.
void read_strategy_devices(const Section& s, SweepSpec& spec) {
  const toml::node* n = s.node("strategy_devices");
  if (!n) return;
  const toml::table* t = n->as_table();
  if (!t)
    s.fail("strategy_devices", "expected a table of strategy = device counts, e.g. { mirrored = [1, 2, 4] }");
  for (auto&& [k, v] : *t) {
    const std::string key(k.str()), field = "sweep.strategy_devices." + key;
    const auto kind = find_enum<StrategyKind>(key);
    if (!kind) s.fail_at(k.source(), field, enum_problem<StrategyKind>(key));
    if (std::find(spec.strategies.begin(), spec.strategies.end(), *kind) == spec.strategies.end())
      s.fail_at(k.source(), field, fmt::format("'{}' is not in sweep.strategies", key));
    if (!traits(*kind).multi_device)
      s.fail_at(k.source(), field,
                fmt::format("{} runs on one device, once, at the smallest of sweep.devices; it takes no device list", key));
    spec.strategy_devices.emplace_back(*kind, device_list(s, v, field));
  }
}

void read_sweep(const Section& s, SweepSpec& spec) {
  if (!s.present()) s.fail("models", "required: a [sweep] section");
  spec.models = s.strings("models");
  const toml::array* models = s.node("models")->as_array();
  for (std::size_t i = 0; i < spec.models.size(); ++i) try {
      parse_model_spec(spec.models[i]);
    } catch (const Error& e) {
      s.fail_at(models ? (*models)[i].source() : s.node("models")->source(), "sweep.models", e.what());
    }
  const std::vector<std::string> strategies = s.strings("strategies");
  const toml::array* listed = s.node("strategies")->as_array();
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    const auto where = listed ? (*listed)[i].source() : s.node("strategies")->source();
    const auto kind = find_enum<StrategyKind>(strategies[i]);
    if (!kind) s.fail_at(where, "sweep.strategies", enum_problem<StrategyKind>(strategies[i]));
    if (std::count(strategies.begin(), strategies.end(), strategies[i]) > 1)
      s.fail_at(where, "sweep.strategies", fmt::format("'{}' is listed twice", strategies[i]));
    spec.strategies.push_back(*kind);
  }
  if (!s.node("devices")) s.fail("devices", "required: a list such as [1, 2, 4] or a range such as \"1:8:*2\"");
  spec.devices = device_list(s, *s.node("devices"), "sweep.devices");
  read_strategy_devices(s, spec);
  spec.scaling = parse_enum<record::Scaling>(s.one_of("scaling", "weak", {"weak", "strong"}), "sweep.scaling");
  if (spec.scaling == record::Scaling::weak) {
    if (s.has("global_batch")) s.fail("global_batch", "only for scaling = \"strong\" (weak scaling fixes batch per device)");
    if (!s.has("batch")) s.fail("batch", "required: the batch per device (weak scaling)");
    spec.batches = int_list(s, "batch", 1 << 20);
  } else {
    if (s.has("batch")) s.fail("batch", "not for scaling = \"strong\": give global_batch (per device = global_batch / N)");
    if (!s.has("global_batch")) s.fail("global_batch", "required for strong scaling");
    spec.global_batches = int_list(s, "global_batch", 1 << 24);
    for (int g : spec.global_batches)
      for (const StrategyKind k : spec.strategies)
        for (int n : devices_of(spec, k))
          if (g % n != 0)
            s.fail("global_batch", fmt::format("{} is not divisible by {} devices (strong scaling splits it evenly)", g, n));
  }
  read_axes(s, spec);
}

// [select]: which runs of a tuned study count (tuning.h). objective names a per-run figure; tuned
// lists [sweep] axes (the seed is never tuned: seeds are what a candidate's score is taken over).
void read_select(const Section& s, SweepSpec& spec) {
  if (!s.present()) return;
  s.check_known({"objective", "tuned"});
  const auto objective = s.str("objective");
  if (!objective) s.fail("objective", fmt::format("required: one of {}", objective_names()));
  if (!find_objective(*objective)) s.fail("objective", fmt::format("'{}' is not one of: {}", *objective, objective_names()));
  const bool target_swept = std::any_of(spec.axes.begin(), spec.axes.end(), [](const SweepAxis& a) {
    return a.key == "target_miou" || a.key == "target_accuracy";
  });
  if (*objective == "steps_to_target" && !spec.train.has_target() && !target_swept)
    s.fail("objective", "steps_to_target needs a target: train.target_miou or train.target_accuracy");
  spec.select.objective = *objective;
  spec.select.tuned = s.strings("tuned");
  const toml::array* listed = s.node("tuned")->as_array();
  for (std::size_t i = 0; i < spec.select.tuned.size(); ++i) {
    const std::string& k = spec.select.tuned[i];
    const auto where = listed ? (*listed)[i].source() : s.node("tuned")->source();
    if (k == "seed") s.fail_at(where, "select.tuned", "seed is not tuned: a candidate's score is taken over its seeds");
    if (std::none_of(spec.axes.begin(), spec.axes.end(), [&](const SweepAxis& a) { return a.key == k; }))
      s.fail_at(where, "select.tuned", fmt::format("'{}' is not a [sweep] axis (tuning picks among swept values)", k));
    if (std::count(spec.select.tuned.begin(), spec.select.tuned.end(), k) > 1)
      s.fail_at(where, "select.tuned", fmt::format("'{}' is listed twice", k));
  }
}

}  // namespace

SweepSpec parse_spec(std::string_view text, const std::string& source) {
  const toml::table root = parse_toml(text, source);
  SweepSpec spec;
  spec.source = source;
  spec.text = std::string(text);
  // The sections a spec may hold: checked against, and listed in the error, from this one list.
  static constexpr std::string_view kSections[] = {"study", "dataset", "sweep", "train", "select"};
  for (auto&& [k, v] : root)
    if (std::find(std::begin(kSections), std::end(kSections), k.str()) == std::end(kSections)) {
      std::string known;
      for (const auto name : kSections) known += fmt::format("{}[{}]", known.empty() ? "" : ", ", name);
      Section(source, &root, "", k.source()).fail_at(k.source(), std::string(k.str()), "unknown section (known: " + known + ")");
    }

  const Section st = section(source, root, "study");
  st.check_known({"name", "description", "output", "launcher", "profile", "repetitions"});
  spec.name = st.str("name").value_or("");
  if (spec.name.empty()) st.fail("name", "required: the study's name (it names the results folder)");
  if (spec.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
      std::string::npos)
    st.fail("name", fmt::format("'{}' may hold only letters, digits, '_', '.' and '-' (it is a folder name)", spec.name));
  spec.description = st.str("description").value_or("");
  spec.output = st.str("output").value_or("results/" + spec.name);
  if (spec.output.empty()) st.fail("output", "must not be empty");
  check_path_text(st, "output", spec.output);
  if (const auto l = st.str("launcher")) {
    const auto kind = find_enum<LauncherKind>(*l);
    if (!kind) st.fail("launcher", enum_problem<LauncherKind>(*l));
    spec.launcher = *kind;
  }
  spec.profile = st.str("profile").value_or("");
  spec.repetitions = int(st.integer("repetitions", 1, 1000).value_or(1));

  read_dataset(section(source, root, "dataset"), spec);
  read_sweep(section(source, root, "sweep"), spec);
  // [train]: every option a point does not get from [sweep] or [dataset] (field.h's in_spec).
  const Section train = section(source, root, "train");
  read_train_table(train, spec.train, nullptr, [](const Field<TrainConfig>& f) { return f.in_spec; });
  for (const SweepAxis& a : spec.axes)
    if (train.has(a.key.c_str())) train.fail(a.key.c_str(), "also swept in [sweep]; give it in one place");
  read_select(section(source, root, "select"), spec);
  return spec;
}

SweepSpec load_spec(const std::string& path) {
  return parse_spec(read_text_file(path, fmt::format("{}: cannot read the sweep spec", path)), path);
}

}  // namespace scalebench::study
