// config_toml.cpp — TOML tables → typed run options (see config_toml.h).
#include "harness/study/spec/config_toml.h"


#include "kernels/common/check.h"
#include "kernels/common/read_file.h"

namespace scalebench::study {
namespace {

// The value of a TOML node as its field's text form, or a problem naming the expected type.
std::optional<std::string> text_of_node(const toml::node& n, ValueKind kind, std::string& problem) {
  switch (kind) {
    case ValueKind::boolean:
      if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
      problem = "expected true or false";
      break;
    case ValueKind::integer:
      if (n.is_integer()) return std::to_string(*n.value<std::int64_t>());
      problem = "expected an integer";
      break;
    case ValueKind::number:
      if (n.is_number()) {
        const double v = *n.value<double>();
        if (std::isfinite(v)) return fmt::format("{}", v);
        problem = "must be finite";
        return std::nullopt;
      }
      problem = "expected a number";
      break;
    case ValueKind::string:
      if (n.is_string()) return *n.value<std::string>();
      problem = "expected a string";
      break;
  }
  problem += ", got " + Section::type_name(n);
  return std::nullopt;
}

template <class C>
bool apply(const Section& s, const std::string& key, const toml::node& n, const Field<C>& f, C& c, bool skip) {
  std::string problem;
  const auto text = text_of_node(n, f.kind, problem);
  if (!text) s.fail(key.c_str(), problem);
  C probe = c;  // checked even when skipped: a bad value in a file is an error whatever overrides it
  if (auto p = f.parse(probe, *text)) s.fail(key.c_str(), *p);
  if (!skip) c = std::move(probe);
  return true;
}

}  // namespace

std::string field_text(const Section& s, const std::string& field, const toml::node& n, const Field<TrainConfig>& f,
                       const TrainConfig& train) {
  std::string problem;
  const auto text = text_of_node(n, f.kind, problem);
  if (!text) s.fail_at(n.source(), field, problem);
  TrainConfig probe = train;
  if (auto p = f.parse(probe, *text)) s.fail_at(n.source(), field, *p);
  return f.text(probe);
}

void read_train_table(const Section& s, TrainConfig& train, record::RunConfig* run,
                      const std::function<bool(const Field<TrainConfig>&)>& allowed,
                      const std::set<std::string>& skip) {
  if (!s.present()) return;
  for (auto&& [k, v] : *s.table()) {
    const std::string key(k.str());
    const bool skipped = skip.count(key) > 0;
    if (const auto* f = find_train_field(key); f && allowed(*f)) {
      apply(s, key, v, *f, train, skipped);
      continue;
    }
    bool done = false;
    if (run)
      for (const auto& f : record::run_fields())
        if (f.key == key && !f.flag.empty()) done = apply(s, key, v, f, *run, skipped);
    if (done) continue;
    std::string known;
    for (const auto& f : train_fields())
      if (allowed(f)) known += (known.empty() ? "" : ", ") + std::string(f.key);
    if (run)
      for (const auto& f : record::run_fields())
        if (!f.flag.empty()) known += ", " + std::string(f.key);
    const auto* f = find_train_field(key);
    s.fail_at(k.source(), s.name() + "." + key,
              f ? fmt::format("not allowed here (known: {})", known) : fmt::format("unknown key (known: {})", known));
  }
}

void apply_config_file(const std::string& path, TrainConfig& train, record::RunConfig& run,
                       const std::set<std::string>& skip) {
  const toml::table root = parse_toml(read_text_file(path, fmt::format("--config {}: cannot read the file", path)), path);
  toml::source_region top;
  top.begin = {1, 1};
  const toml::node* t = root.get("train");
  if (t && t->is_table()) {
    for (auto&& [k, v] : root)
      if (k.str() != "train")
        Section(path, &root, "", k.source())
            .fail_at(k.source(), std::string(k.str()), "with a [train] table, every option belongs inside it");
    read_train_table(Section(path, t->as_table(), "train", t->source()), train, &run,
                     [](const Field<TrainConfig>& f) { return !f.flag.empty(); }, skip);
    return;
  }
  read_train_table(Section(path, &root, "train", top), train, &run,
                   [](const Field<TrainConfig>& f) { return !f.flag.empty(); }, skip);
}

}  // namespace scalebench::study
