// run_config.cpp — canonical text, ids and /config attributes of a RunConfig (see run_config.h),
// all generated from the field tables (train_fields.cpp, run_fields() here): a new option joins
// them by its row alone.
#include "harness/record/run_config.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "harness/data/identity.h"
#include "kernels/common/check.h"

namespace scalebench::record {
namespace {

// The fields that enter the ids, typed as the run file stores them.
template <class C>
void add_id_fields(Attrs& a, const C& c, std::span<const Field<C>> fields) {
  for (const auto& f : fields)
    if (f.id == IdRule::always || (f.id == IdRule::unless_default && !f.is_default(c))) a.set(std::string(f.key), f.value(c));
}

Attrs id_fields(const RunConfig& c, const FieldTables& t) {
  Attrs a;
  add_id_fields(a, c.train, t.train);
  add_id_fields(a, c, t.run);
  return a;
}

std::vector<Field<RunConfig>> make_run_fields() {
  using R = RunConfig;
  std::vector<Field<R>> f;
  f.push_back(make_field("world_size", &R::world_size, "Devices in the run (set by the launcher)",
                         {.in_spec = false}, in_range(1, 1 << 20)));
  f.back().flag.clear();
  f.push_back(make_field("repetition", &R::repetition, "Repetition number of this point (recorded; part of the run id)",
                         {.in_spec = false}, in_range(1, 1000000)));
  f.push_back(make_field("scaling", &R::scaling, "As the study ran it (" + enum_choices<Scaling>("|") + "; recorded)", {.in_spec = false}));
  f.push_back(make_field("study", &R::study, "Study name (recorded)",
                         {.id = IdRule::never, .in_spec = false}));
  return f;
}

std::string toml_value(const AttrValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::string s = fmt::format("{}", *d);  // shortest text that reads back to the same double
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // stays a TOML float
    return s;
  }
  std::string out = "\"";
  for (char ch : std::get<std::string>(v)) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string text_of(const Attrs& a) {
  std::vector<std::string> lines;
  for (const auto& [k, v] : a.items()) lines.push_back(k + " = " + toml_value(v) + "\n");
  std::sort(lines.begin(), lines.end());
  std::string s;
  for (const auto& l : lines) s += l;
  return s;
}

}  // namespace

std::span<const Field<RunConfig>> run_fields() {
  static const std::vector<Field<RunConfig>> table = make_run_fields();
  return table;
}

void RunConfig::validate() const {
  for (const auto& f : run_fields())
    if (auto p = f.check(*this)) fail_input(fmt::format("{}: {}", f.flag.empty() ? f.key : f.flag, *p));
  const StrategyTraits& st = train.strategy_traits();
  SB_REQUIRE(st.multi_device || world_size == 1,
             "--strategy {} runs on one device, but the world size is {} (use mirrored, multiworker, ...)", st.name,
             world_size);
  SB_REQUIRE(scaling == Scaling::weak || train.accumulate == 1,
             "accumulate {}: strong scaling splits global_batch over devices, not over micro-batches; use weak "
             "scaling with accumulate", train.accumulate);
}

std::string canonical_text(const RunConfig& c) { return canonical_text(c, FieldTables{}); }
std::string canonical_text(const RunConfig& c, const FieldTables& t) { return text_of(id_fields(c, t)); }

std::string hash_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;  // FNV prime
  }
  // MurmurHash3's fmix64 finalizer: FNV-1a alone barely mixes the last bytes into the high bits,
  // so texts differing only in their last line (world_size, say) got ids with equal prefixes.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return fmt::format("{:016x}", h);
}

std::string run_id(const RunConfig& c, const FieldTables& t) { return hash_hex(canonical_text(c, t)); }

void identify_data(RunConfig& c) { c.train.data_identity = data::dataset_identity(c.train.data); }

std::string run_id_with_data(RunConfig c) {
  identify_data(c);
  return run_id(c);
}

std::string point_id(const RunConfig& c, const FieldTables& t) {
  RunConfig p = c;
  p.repetition = 1;
  p.train.data.clear();
  p.train.data_identity.clear();  // like the path: a baseline on other data still matches by point
  return hash_hex("point\n" + canonical_text(p, t));
}

std::string group_id(const RunConfig& c, const FieldTables& t) {
  RunConfig g = c;
  g.repetition = 1;
  g.train.data.clear();
  g.train.data_identity.clear();
  if (g.scaling == Scaling::strong) g.train.batch = c.global_batch();
  g.world_size = 1;
  Attrs a = id_fields(g, t);
  a.set("strategy", std::string());  // every strategy of the group shares its N = 1 point
  return hash_hex("group\n" + text_of(a));
}

std::string point_label(const RunConfig& c) {
  return fmt::format("{} {} N={} b={}", c.train.model, name_of(c.train.strategy), c.world_size, c.train.batch);
}

Attrs config_attrs(const RunConfig& c) {
  Attrs a;
  for (const auto& f : train_fields())
    if (f.attr) a.set(std::string(f.key), f.value(c.train));
  for (const auto& f : run_fields())
    if (f.attr) a.set(std::string(f.key), f.value(c));
  a.set("global_batch", c.global_batch());
  a.set("run_id", run_id(c));
  a.set("point_id", point_id(c));
  a.set("group_id", group_id(c));
  a.set("config_text", canonical_text(c));
  return a;
}

namespace {
template <class C>
void read_fields(C& c, const Attrs& a, std::span<const Field<C>> fields) {
  for (const auto& f : fields) {
    if (!f.attr) continue;
    const AttrValue* v = a.find(std::string(f.key));
    if (!v) continue;
    if (auto p = f.set_value(c, *v)) fail_input(fmt::format("/config attribute {}: {}", f.key, *p));
  }
}
}  // namespace

RunConfig config_from_attrs(const Attrs& a) {
  RunConfig c;
  read_fields(c.train, a, train_fields());
  read_fields(c, a, run_fields());
  return c;
}

}  // namespace scalebench::record
