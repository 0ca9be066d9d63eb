// run_config.h — RunConfig (DESIGN §1: one point of a study = TrainConfig + world size +
// repetition), its canonical text and the ids derived from it:
//   run_id   = hash of the canonical text: the same point always gets the same id, so a rerun of a
//              study finds its earlier run files (docs/results-schema.md, "Run ids").
//   point_id = the same without repetition, data path, data identity and study name: repetitions of
//              one point share it, and `compare` matches points of two studies by it.
//   group_id = point_id without strategy and world size (and, in strong scaling, without the
//              per-device batch): the points whose speedup is measured against one N = 1 point.
// What it deliberately does not do: know how runs are launched or stored.
#pragma once

#include <string>

#include <span>

#include "harness/record/table.h"
#include "harness/train/train_fields.h"

namespace scalebench::record {

enum class Scaling { weak, strong };  // weak: per-device batch fixed; strong: global batch fixed

}  // namespace scalebench::record
namespace scalebench {
template <>
struct EnumNames<record::Scaling> {
  static constexpr std::array<EnumEntry<record::Scaling>, 2> entries{
      {{record::Scaling::weak, "weak"}, {record::Scaling::strong, "strong"}}};
};
}  // namespace scalebench
namespace scalebench::record {

static_assert(std::is_same_v<AttrValue, FieldValue>, "run-file attributes store field values as they are");

struct RunConfig {
  TrainConfig train;
  int world_size = 1;            // devices in the run (ranks × devices per rank)
  int repetition = 1;            // 1-based; repetitions measure run-to-run variation
  Scaling scaling = Scaling::weak;
  std::string study;             // the study's name ("" for a stand-alone run); not part of any id

  int global_batch() const { return train.batch * train.accumulate * world_size; }  // per optimizer step
  void validate() const;         // throws scalebench::Error naming the field
};

// The fields a run adds to its TrainConfig (world_size, repetition, scaling, study), described like
// train_fields(); world_size has no flag (the launcher sets it).
std::span<const Field<RunConfig>> run_fields();

// Every field that can change a result, one `key = value` line each (TOML syntax), sorted by key:
// the train and run fields whose id rule says so (field.h). Cosmetic fields (progress_seconds)
// and the study name are left out.
std::string canonical_text(const RunConfig& c);
// The tables the ids are computed over: the real ones by default; tests pass a table with a made-up
// field to prove that adding an option with its default leaves every id unchanged.
struct FieldTables {
  std::span<const Field<TrainConfig>> train = train_fields();
  std::span<const Field<RunConfig>> run = run_fields();
};
std::string canonical_text(const RunConfig& c, const FieldTables& t);
// FNV-1a 64-bit of the text with the MurmurHash3 fmix64 finalizer, as 16 lower-case hex digits.
// Stable across platforms and versions.
std::string hash_hex(const std::string& text);
std::string run_id(const RunConfig& c, const FieldTables& t = {});
// Fills c.train.data_identity from the dataset file (harness/data/identity.h; "" when it cannot be
// read). Every place that names a run by its id calls it first — train, the sweep's launchers,
// status — so they all name a regenerated file's runs alike.
void identify_data(RunConfig& c);
// run_id of c with its data identified: the id its run file gets (launchers, status, tests).
std::string run_id_with_data(RunConfig c);
std::string point_id(const RunConfig& c, const FieldTables& t = {});
std::string group_id(const RunConfig& c, const FieldTables& t = {});
// "unet:depth=2,base=4 ring N=4 b=8" — for progress lines and tables.
std::string point_label(const RunConfig& c);

// The /config attributes of a run file: every field, plus run_id, point_id, group_id,
// global_batch and config_text (the canonical text).
Attrs config_attrs(const RunConfig& c);
// The inverse; absent fields keep their defaults (files written by other versions stay readable);
// a value that does not parse (an unknown strategy name, say) throws scalebench::Error naming it.
RunConfig config_from_attrs(const Attrs& a);

}  // namespace scalebench::record
