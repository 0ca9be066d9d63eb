// spec.cpp — model spec parsing, typed option access, dispatch to the family builders.
#include "models/spec.h"

#include <charconv>
#include <set>

#include "kernels/common/check.h"
#include "models/unet.h"
#include "models/vgg.h"

namespace scalebench {

ModelSpec parse_model_spec(const std::string& text) {
  ModelSpec s;
  s.text = text;
  const auto colon = text.find(':');
  s.family = text.substr(0, colon);
  SB_REQUIRE(!s.family.empty(), "model spec '{}': missing the model name (e.g. unet or vgg16)", text);
  static const std::set<std::string> families{"unet", "vgg11", "vgg13", "vgg16", "vgg19"};
  SB_REQUIRE(families.count(s.family), "model spec '{}': unknown model '{}' (known: unet, vgg11, vgg13, vgg16, vgg19)",
             text, s.family);
  if (colon == std::string::npos) return s;
  std::string rest = text.substr(colon + 1);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    const auto comma = rest.find(',', pos);
    const std::string item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find('=');
    SB_REQUIRE(eq != std::string::npos && eq > 0 && eq + 1 < item.size(),
               "model spec '{}': '{}' is not key=value", text, item);
    const std::string key = item.substr(0, eq);
    SB_REQUIRE(!s.options.count(key), "model spec '{}': option '{}' given twice", text, key);
    s.options[key] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return s;
}

const std::string& SpecOptions::raw(const std::string& key) { return spec_.options.at(key); }

int SpecOptions::integer(const std::string& key, int fallback, int min, int max) {
  int v = fallback;
  if (spec_.options.count(key)) {
    const std::string& r = raw(key);
    auto [p, ec] = std::from_chars(r.data(), r.data() + r.size(), v);
    SB_REQUIRE(ec == std::errc() && p == r.data() + r.size(), "model spec '{}': {}='{}' is not an integer",
               spec_.text, key, r);
  }
  SB_REQUIRE(v >= min && v <= max, "model spec '{}': {}={} is out of range [{}, {}]", spec_.text, key, v, min, max);
  resolved_[key] = std::to_string(v);
  return v;
}

double SpecOptions::real(const std::string& key, double fallback, double min, double max) {
  double v = fallback;
  if (spec_.options.count(key)) {
    const std::string& r = raw(key);
    std::size_t used = 0;
    try {
      v = std::stod(r, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    SB_REQUIRE(used == r.size() && used > 0, "model spec '{}': {}='{}' is not a number", spec_.text, key, r);
  }
  SB_REQUIRE(v >= min && v <= max, "model spec '{}': {}={} is out of range [{}, {}]", spec_.text, key, v, min, max);
  resolved_[key] = fmt::format("{}", v);
  return v;
}

bool SpecOptions::flag(const std::string& key, bool fallback) {
  bool v = fallback;
  if (spec_.options.count(key)) {
    const std::string& r = raw(key);
    SB_REQUIRE(r == "0" || r == "1" || r == "true" || r == "false", "model spec '{}': {}='{}' must be 0 or 1",
               spec_.text, key, r);
    v = r == "1" || r == "true";
  }
  resolved_[key] = v ? "1" : "0";
  return v;
}

std::string SpecOptions::choice(const std::string& key, const std::string& fallback,
                                const std::vector<std::string>& allowed) {
  std::string v = spec_.options.count(key) ? raw(key) : fallback;
  bool ok = false;
  for (const auto& a : allowed) ok = ok || a == v;
  SB_REQUIRE(ok, "model spec '{}': {}='{}' must be one of {}", spec_.text, key, v, fmt::join(allowed, "|"));
  resolved_[key] = v;
  return v;
}

void SpecOptions::reject_unknown() const {
  for (const auto& [key, value] : spec_.options)
    SB_REQUIRE(resolved_.count(key), "model spec '{}': unknown option '{}' for {}", spec_.text, key, spec_.family);
}

namespace {
Graph build(const ModelSpec& spec, const DataShape& data, std::map<std::string, std::string>* resolved) {
  SpecOptions opts(spec);
  Graph g = spec.family == "unet" ? build_unet(opts, data) : build_vgg(opts, data, std::stoi(spec.family.substr(3)));
  opts.reject_unknown();
  if (resolved) *resolved = opts.resolved();
  return g;
}
}  // namespace

Graph build_model_graph(const ModelSpec& spec, const DataShape& data) { return build(spec, data, nullptr); }

std::string canonical_spec(const ModelSpec& spec, const DataShape& data) {
  std::map<std::string, std::string> resolved;
  build(spec, data, &resolved);
  std::string out = spec.family + ":";
  bool first = true;
  for (const auto& [k, v] : resolved) {
    out += (first ? "" : ",") + k + "=" + v;
    first = false;
  }
  return out;
}

}  // namespace scalebench
