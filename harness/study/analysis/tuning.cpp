// tuning.cpp — seed summaries and the per-cell selection of a tuned study (see tuning.h).
#include "harness/study/analysis/tuning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/study/analysis/point_fields.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using K = record::Column::Kind;

// The text of the point fields of row r but those in `leave_out`, as "key=value" lines: rows with
// the same text differ only there.
std::string key_of(const record::Table& t, std::size_t r, const std::set<std::string>& leave_out) {
  std::string s;
  for (const std::string& k : point_keys())
    if (!leave_out.count(k)) s += k + "=" + t.str(k, r) + "\n";
  return s;
}

// A run's steps to target (+inf when it did not reach it); NaN when the run has no target.
double steps_value(const record::Table& t, std::size_t r) {
  if (!std::isfinite(t.num("target_value", r))) return NAN;
  return t.integer("target_reached", r) ? t.num("steps_to_target", r) : kInf;
}

// Values of a column (steps: with +inf for not reached) over rows, NaN left out.
std::vector<double> values(const record::Table& t, const std::vector<std::size_t>& rows, std::string_view column) {
  std::vector<double> v;
  for (auto r : rows) {
    const double x = column == "steps_to_target" ? steps_value(t, r) : t.num(std::string(column), r);
    if (!std::isnan(x)) v.push_back(x);
  }
  return v;
}

// "0.05" < "0.1" as numbers where both are; else as text.
bool value_less(const std::string& a, const std::string& b) {
  char *ea = nullptr, *eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  if (!a.empty() && !b.empty() && *ea == 0 && *eb == 0) return x < y;
  return a < b;
}

}  // namespace

const Objective* find_objective(std::string_view name) {
  for (const Objective& o : kObjectives)
    if (o.name == name) return &o;
  return nullptr;
}

std::string objective_names() {
  std::string s;
  for (const Objective& o : kObjectives) s += (s.empty() ? "" : ", ") + std::string(o.name);
  return s;
}

Olympic olympic_mean(std::vector<double> v) {
  Olympic o;
  o.runs = int(v.size());
  for (double x : v) o.not_reached += std::isinf(x) && x > 0;
  if (v.empty()) {
    o.mean = o.lo = o.hi = NAN;
    return o;
  }
  std::sort(v.begin(), v.end());
  o.lo = v.front(), o.hi = v.back();
  const std::size_t drop = v.size() >= 3 ? 1 : 0;
  double sum = 0;
  for (std::size_t i = drop; i + drop < v.size(); ++i) sum += v[i];  // +inf stays +inf
  o.mean = sum / double(v.size() - 2 * drop);
  return o;
}

void add_seed_stats(record::Table& runs) {
  const std::size_t n = runs.rows();
  std::map<std::string, std::vector<std::size_t>> ok;  // configuration -> its ok rows
  std::vector<std::string> id(n);
  for (std::size_t r = 0; r < n; ++r) {
    id[r] = key_of(runs, r, {"seed"});
    if (runs.str("status", r) == "ok") ok[id[r]].push_back(r);
  }
  for (const char* c : {"config_id"}) runs.add(c, K::str);
  for (const char* c : {"config_runs", "config_seeds", "target_not_reached"}) runs.add(c, K::i64);
  for (const char* c : {"steps_to_target_olympic", "steps_to_target_lo", "steps_to_target_hi"}) runs.add(c, K::f64);
  for (std::size_t r = 0; r < n; ++r) {
    const auto& rows = ok[id[r]];
    std::set<std::string> seeds;
    for (auto x : rows) seeds.insert(runs.str("seed", x));
    const Olympic o = olympic_mean(values(runs, rows, "steps_to_target"));
    runs.find("config_id")->s[r] = id[r];
    runs.find("config_runs")->i[r] = std::int64_t(rows.size());
    runs.find("config_seeds")->i[r] = std::int64_t(seeds.size());
    runs.find("target_not_reached")->i[r] = o.not_reached;
    runs.find("steps_to_target_olympic")->f[r] = o.mean;
    runs.find("steps_to_target_lo")->f[r] = o.lo;
    runs.find("steps_to_target_hi")->f[r] = o.hi;
  }
}

record::Table select_best(record::Table& runs, const SelectSpec& spec) {
  const std::size_t n = runs.rows();
  runs.add("tuned_values", K::str);
  runs.add("selected", K::i64);
  record::Table table;
  if (!spec.active()) {
    for (std::size_t r = 0; r < n; ++r) runs.find("selected")->i[r] = 1;
    return table;
  }
  const Objective* obj = find_objective(spec.objective);
  SB_REQUIRE(obj, "[select] objective '{}' is not one of: {}", spec.objective, objective_names());
  std::set<std::string> out_of_cell(spec.tuned.begin(), spec.tuned.end());
  out_of_cell.insert("seed");
  // The cell label names what is not tuned: the varied fields less the tuned ones and the seed.
  std::vector<std::string> shown;
  for (const std::string& k : varied_keys({&runs}))
    if (!out_of_cell.count(k)) shown.push_back(k);
  struct Candidate {
    std::vector<std::size_t> rows, ok;
  };
  struct Cell {
    std::vector<std::string> order;  // candidates in order of appearance
    std::map<std::string, Candidate> candidates;
    std::map<std::string, std::set<std::string, decltype(&value_less)>> grid;
  };
  std::vector<std::string> cell_order;
  std::map<std::string, Cell> cells;
  for (std::size_t r = 0; r < n; ++r) {
    const std::string cell = key_of(runs, r, out_of_cell);
    std::string cand;
    for (const std::string& k : spec.tuned) cand += (cand.empty() ? "" : " ") + k + "=" + runs.str(k, r);
    runs.find("tuned_values")->s[r] = cand;
    auto [it, fresh] = cells.try_emplace(cell);
    if (fresh) cell_order.push_back(cell);
    Cell& c = it->second;
    if (!c.candidates.count(cand)) c.order.push_back(cand);
    Candidate& k = c.candidates[cand];
    k.rows.push_back(r);
    if (runs.str("status", r) == "ok") k.ok.push_back(r);
    for (const std::string& key : spec.tuned)
      c.grid.try_emplace(key, &value_less).first->second.insert(runs.str(key, r));
  }
  for (const std::string& id : cell_order) {
    Cell& c = cells[id];
    const std::size_t r0 = c.candidates[c.order.front()].rows.front();
    std::string grid;
    for (const std::string& key : spec.tuned) {
      std::string vs;
      for (const std::string& v : c.grid[key]) vs += (vs.empty() ? "" : ", ") + v;
      grid += (grid.empty() ? "" : "; ") + key + ": " + vs;
    }
    // Eligible: every run of the candidate ended ok, and it has as many runs as the cell's fullest
    // candidate. A candidate whose other seeds failed (or are missing) is scored on its survivors,
    // which are not a sample of its seeds: 1 run of 3 "winning" against 3 of 3 is luck or worse.
    std::size_t fullest = 0;
    for (const std::string& cand : c.order) fullest = std::max(fullest, c.candidates[cand].rows.size());
    const auto eligible = [&](const Candidate& k) { return k.ok.size() == k.rows.size() && k.rows.size() == fullest; };
    // The best eligible one: lowest (or highest) olympic mean; equal means (two "not reached") by
    // fewer runs not reaching the target; a candidate with no value never wins over one with a value.
    std::string best;
    Olympic best_o;
    std::map<std::string, Olympic> scores;
    for (const std::string& cand : c.order) {
      const Olympic o = olympic_mean(values(runs, c.candidates[cand].ok, obj->column));
      scores[cand] = o;
      if (std::isnan(o.mean) || !eligible(c.candidates[cand])) continue;
      const bool better =
          best.empty() || (obj->lower_is_better ? o.mean < best_o.mean : o.mean > best_o.mean) ||
          (o.mean == best_o.mean && o.not_reached < best_o.not_reached);
      if (better) best = cand, best_o = o;
    }
    for (const std::string& cand : c.order) {
      const Olympic& o = scores[cand];
      const bool won = cand == best;
      for (auto r : c.candidates[cand].rows) runs.find("selected")->i[r] = won;
      record::Attrs a;
      a.set("cell", row_label(runs, r0, shown));
      a.set("global_batch", runs.integer("global_batch", r0));
      a.set("world_size", runs.integer("world_size", r0));
      a.set("strategy", runs.str("strategy", r0));
      a.set("candidate", cand);
      a.set("grid", grid);
      a.set("objective", std::string(obj->name));
      a.set("score", o.mean);
      a.set("score_lo", o.lo);
      a.set("score_hi", o.hi);
      a.set("runs", std::int64_t(o.runs));
      a.set("not_reached", std::int64_t(o.not_reached));
      a.set("not_ok", std::int64_t(c.candidates[cand].rows.size() - c.candidates[cand].ok.size()));
      a.set("eligible", std::int64_t(eligible(c.candidates[cand])));
      a.set("selected", won);
      table.append(a);
    }
  }
  return table;
}

}  // namespace scalebench::study
