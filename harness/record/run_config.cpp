// run_config.cpp — canonical text, ids and /config attributes of a RunConfig (see run_config.h).
// When a field that changes results is added to TrainConfig, add it to result_fields() and
// config_from_attrs(): ids then change, and a rerun measures again (the safe direction).
#include "harness/record/run_config.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "kernels/common/check.h"

namespace scalebench::record {
namespace {

// The fields that enter the ids, typed as the run file stores them.
Attrs result_fields(const RunConfig& c) {
  const TrainConfig& t = c.train;
  Attrs a;
  a.set("model", t.model);
  a.set("data", t.data);
  a.set("strategy", t.strategy);
  a.set("backend", t.backend);
  a.set("precision", t.precision);
  a.set("epochs", t.epochs);
  a.set("batch", t.batch);
  a.set("lr", t.lr);
  a.set("lr_scaling", t.lr_scaling);
  a.set("warmup_epochs", t.warmup_epochs);
  a.set("lr_decay", t.lr_decay);
  a.set("optimizer", t.optimizer);
  a.set("momentum", t.momentum);
  a.set("weight_decay", t.weight_decay);
  a.set("val_fraction", t.val_fraction);
  a.set("class_weights", t.class_weights);
  a.set("seed", AttrValue(std::int64_t(t.seed)));
  a.set("reference_kernels", t.reference_kernels);
  a.set("threads", t.threads);
  a.set("max_steps", AttrValue(std::int64_t(t.max_steps)));
  a.set("bucket_mb", t.bucket_mb);
  a.set("no_overlap", t.no_overlap);
  a.set("ranks_per_node", t.ranks_per_node);
  a.set("staleness", t.staleness);
  // Fields added after the first results enter the ids only when they differ from their default,
  // so every run, point and group id from before they existed stays what it was and committed
  // baselines keep matching (tests/study/test_baseline_ids.cpp). compression once entered always,
  // and from then on `make demo` matched no point of its baseline.
  if (t.compression != "none") a.set("compression", t.compression);
  if (t.layout != "NCHW") a.set("layout", t.layout);
  if (t.deterministic) a.set("deterministic", t.deterministic);
  if (t.cudnn_workspace_mib != TrainConfig::kDefaultCudnnWorkspaceMib)
    a.set("cudnn_workspace_mib", t.cudnn_workspace_mib);
  a.set("world_size", c.world_size);
  a.set("repetition", c.repetition);
  a.set("scaling", c.scaling);
  return a;
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

void RunConfig::validate() const {
  SB_REQUIRE(world_size >= 1, "world size {} must be >= 1", world_size);
  SB_REQUIRE(repetition >= 1, "--repetition {} must be >= 1", repetition);
  SB_REQUIRE(scaling == "weak" || scaling == "strong", "--scaling '{}' is unknown (weak or strong)", scaling);
  SB_REQUIRE(train.strategy != "single" || world_size == 1,
             "--strategy single runs on one device, but the world size is {} (use mirrored, multiworker, ...)",
             world_size);
}

std::string canonical_text(const RunConfig& c) { return text_of(result_fields(c)); }

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

std::string run_id(const RunConfig& c) { return hash_hex(canonical_text(c)); }

std::string point_id(const RunConfig& c) {
  RunConfig p = c;
  p.repetition = 1;
  p.train.data.clear();
  return hash_hex("point\n" + canonical_text(p));
}

std::string group_id(const RunConfig& c) {
  RunConfig g = c;
  g.repetition = 1;
  g.train.data.clear();
  g.train.strategy.clear();
  if (g.scaling == "strong") g.train.batch = c.global_batch();
  g.world_size = 1;
  return hash_hex("group\n" + canonical_text(g));
}

std::string point_label(const RunConfig& c) {
  return fmt::format("{} {} N={} b={}", c.train.model, c.train.strategy, c.world_size, c.train.batch);
}

Attrs config_attrs(const RunConfig& c) {
  Attrs a = result_fields(c);
  a.set("progress_seconds", c.train.progress_seconds);
  a.set("study", c.study);
  a.set("global_batch", c.global_batch());
  a.set("run_id", run_id(c));
  a.set("point_id", point_id(c));
  a.set("group_id", group_id(c));
  a.set("config_text", canonical_text(c));
  return a;
}

RunConfig config_from_attrs(const Attrs& a) {
  RunConfig c;
  TrainConfig& t = c.train;
  t.model = a.str("model", t.model);
  t.data = a.str("data", t.data);
  t.strategy = a.str("strategy", t.strategy);
  t.backend = a.str("backend", t.backend);
  t.precision = a.str("precision", t.precision);
  t.epochs = int(a.integer("epochs", t.epochs));
  t.batch = int(a.integer("batch", t.batch));
  t.lr = a.num("lr", t.lr);
  t.lr_scaling = a.str("lr_scaling", t.lr_scaling);
  t.warmup_epochs = a.num("warmup_epochs", t.warmup_epochs);
  t.lr_decay = a.str("lr_decay", t.lr_decay);
  t.optimizer = a.str("optimizer", t.optimizer);
  t.momentum = a.num("momentum", t.momentum);
  t.weight_decay = a.num("weight_decay", t.weight_decay);
  t.val_fraction = a.num("val_fraction", t.val_fraction);
  t.class_weights = a.str("class_weights", t.class_weights);
  t.seed = std::uint64_t(a.integer("seed", std::int64_t(t.seed)));
  t.reference_kernels = a.integer("reference_kernels", t.reference_kernels) != 0;
  t.layout = a.str("layout", t.layout);
  t.deterministic = a.integer("deterministic", t.deterministic) != 0;
  t.cudnn_workspace_mib = int(a.integer("cudnn_workspace_mib", t.cudnn_workspace_mib));
  t.threads = int(a.integer("threads", t.threads));
  t.max_steps = a.integer("max_steps", t.max_steps);
  t.progress_seconds = a.num("progress_seconds", t.progress_seconds);
  t.bucket_mb = a.num("bucket_mb", t.bucket_mb);
  t.no_overlap = a.integer("no_overlap", t.no_overlap) != 0;
  t.ranks_per_node = int(a.integer("ranks_per_node", t.ranks_per_node));
  t.staleness = int(a.integer("staleness", t.staleness));
  t.compression = a.str("compression", t.compression);
  c.world_size = int(a.integer("world_size", c.world_size));
  c.repetition = int(a.integer("repetition", c.repetition));
  c.scaling = a.str("scaling", c.scaling);
  c.study = a.str("study", c.study);
  return c;
}

}  // namespace scalebench::record
