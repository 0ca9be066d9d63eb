// point_fields.cpp — configuration columns that tell points apart (see point_fields.h).
#include "harness/study/analysis/point_fields.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/record/run_config.h"

namespace scalebench::study {

std::vector<std::string> point_keys() {
  std::vector<std::string> keys;
  for (const auto& f : train_fields())
    if (f.id != IdRule::never && f.attr && f.key != "data") keys.emplace_back(f.key);
  for (const auto& f : record::run_fields())
    if (f.id != IdRule::never && f.attr && f.key != "repetition") keys.emplace_back(f.key);
  return keys;
}

std::vector<std::string> varied_keys(const std::vector<const record::Table*>& tables) {
  std::vector<std::string> out;
  for (const std::string& k : point_keys()) {
    if (k == "model" || k == "strategy" || k == "world_size") continue;
    // An empty cell is a file written before the field existed (or a row collected without it):
    // unknown, not a value — so a baseline older than a field does not make every point "vary".
    std::vector<std::string> seen;
    for (const record::Table* t : tables)
      for (std::size_t r = 0; r < t->rows(); ++r) {
        const std::string v = t->str(k, r);
        if (!v.empty() && std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
      }
    if (seen.size() > 1) out.push_back(k);
  }
  return out;
}

std::string row_label(const record::Table& t, std::size_t r, const std::vector<std::string>& varied) {
  std::string s = fmt::format("{} {} N={} b={}", t.str("model", r), t.str("strategy", r), t.integer("world_size", r),
                              t.integer("batch", r));
  for (const std::string& k : varied)
    if (k != "batch") s += fmt::format(" {}={}", k, t.str(k, r));
  return s;
}

std::string field_differences(const record::Table& a, std::size_t ra, const record::Table& b, std::size_t rb) {
  std::string s;
  for (const std::string& k : point_keys()) {
    const std::string va = a.str(k, ra), vb = b.str(k, rb);
    if (!va.empty() && !vb.empty() && va != vb) s += fmt::format("{}{} {} -> {}", s.empty() ? "" : ", ", k, va, vb);
  }
  return s;
}

}  // namespace scalebench::study
