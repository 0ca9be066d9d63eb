// run_filter.cpp — one file per run, and one dataset per study (see run_filter.h).
#include "harness/study/analysis/run_filter.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/data/identity.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

std::string identity_of(const record::RunFile& f) { return f.config.str("data_identity"); }

// Keeps files[i] where keep[i].
void keep_only(ReadRuns& runs, const std::vector<bool>& keep) {
  ReadRuns out;
  for (std::size_t i = 0; i < runs.files.size(); ++i)
    if (keep[i]) out.files.push_back(std::move(runs.files[i])), out.paths.push_back(std::move(runs.paths[i]));
  runs = std::move(out);
}

// Which of two files of one run to keep: the ok one, else the one updated last (ISO 8601 UTC
// texts order as times); on a tie the one read first.
bool better(const record::RunFile& a, const record::RunFile& b) {
  if ((a.status == "ok") != (b.status == "ok")) return a.status == "ok";
  return a.updated_utc > b.updated_utc;
}

}  // namespace

std::string drop_copies(ReadRuns& runs, std::size_t& dropped) {
  std::map<std::string, std::size_t> kept;  // run id -> index of the file kept
  std::vector<bool> keep(runs.files.size(), true);
  std::size_t separate = 0;  // copies that are another execution of the run (another created_utc)
  std::string example;
  for (std::size_t i = 0; i < runs.files.size(); ++i) {
    const std::string id = runs.files[i].config.str("run_id");
    if (id.empty()) continue;  // not a run id to match by: counted as it is
    auto [it, fresh] = kept.try_emplace(id, i);
    if (fresh) continue;
    const std::size_t k = it->second;
    separate += runs.files[i].created_utc != runs.files[k].created_utc;
    if (example.empty()) example = fmt::format(", e.g. {} of {}", runs.paths[i], runs.paths[k]);
    if (better(runs.files[i], runs.files[k])) {
      keep[k] = false;
      it->second = i;
    } else {
      keep[i] = false;
    }
  }
  dropped = std::size_t(std::count(keep.begin(), keep.end(), false));
  if (!dropped) return "";
  keep_only(runs, keep);
  return fmt::format("dropped {} copies of runs already read (files of the same run id{}){}; each run counts once",
                     dropped, example,
                     separate ? fmt::format(", {} of them another execution of the run (another created_utc): the ok "
                                            "one, else the one updated last, was kept", separate)
                              : "");
}

std::string other_identities(const std::vector<record::RunFile>& files, const std::string& current,
                             std::size_t& count) {
  std::map<std::string, std::size_t> n;
  for (const auto& f : files)
    if (const std::string id = identity_of(f); !id.empty() && id != current) ++n[id];
  count = 0;
  std::string s;
  for (const auto& [id, k] : n) {
    s += fmt::format("{}{} ({} run{})", s.empty() ? "" : "; ", id, k, k == 1 ? "" : "s");
    count += k;
  }
  return s;
}

std::string drop_other_data(ReadRuns& runs, const std::string& data_path, std::size_t& dropped) {
  dropped = 0;
  std::set<std::string> ids, paths;
  for (const auto& f : runs.files) {
    if (!identity_of(f).empty()) ids.insert(identity_of(f));
    paths.insert(f.config.str("data"));
  }
  if (ids.size() <= 1) return "";  // one dataset (or none recorded): nothing to pool apart
  const std::string path = !data_path.empty() ? data_path : paths.size() == 1 ? *paths.begin() : "";
  const std::string current = path.empty() ? "" : data::dataset_identity(path);
  if (current.empty() || !ids.count(current)) {
    std::size_t n = 0;
    const std::string all = other_identities(runs.files, "", n);
    const std::string why = path.empty()      ? "they name more than one dataset file and there is no study.toml"
                            : current.empty() ? path + " is not here (or not readable) to say which it holds now"
                                              : path + " now holds neither (" + current + ")";
    fail_input(fmt::format("the runs were made on {} datasets ({}) and {}: which runs are the study's cannot be told, "
                           "and runs on different data must not be pooled; move the other data's run files out of "
                           "runs/ (or collect where the dataset is) — nothing was written",
                           ids.size(), all, why));
  }
  std::vector<bool> keep(runs.files.size());
  for (std::size_t i = 0; i < runs.files.size(); ++i) keep[i] = identity_of(runs.files[i]) == current;
  std::size_t other = 0;
  const std::string others = other_identities(runs.files, current, other);
  dropped = std::size_t(std::count(keep.begin(), keep.end(), false));
  keep_only(runs, keep);
  return fmt::format("left out {} runs made on other data than {} holds now ({}): {}{}; runs on different data are "
                     "never pooled (status counts the same runs)",
                     dropped, path, current, others,
                     dropped > other ? fmt::format(", and {} that recorded no data identity", dropped - other) : "");
}

}  // namespace scalebench::study
