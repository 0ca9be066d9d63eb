// point_fields.h — the configuration columns of a study table that tell points apart (every train
// and run field that joins the point id: harness/record/run_config.h), read back for people:
// which of them vary within a study (the axes a report splits its tables by and a label shows),
// a point's label with them, and the fields in which two points differ (what `compare` says when
// BASE and NEW points do not match).
// What it deliberately does not do: compute ids, or decide which points match (compare.cpp).
#pragma once

#include <string>
#include <vector>

#include "harness/record/table.h"

namespace scalebench::study {

// Keys of the study-table columns that join the point id, in field-table order.
std::vector<std::string> point_keys();

// The point keys, other than those every label shows (model, strategy, world_size), whose values
// differ between rows of any of the tables (batch included: row_label shows it anyway).
std::vector<std::string> varied_keys(const std::vector<const record::Table*>& tables);

// "unet:depth=2,base=4 ring N=2 b=8" + " key=value" for each of `varied`.
std::string row_label(const record::Table& t, std::size_t r, const std::vector<std::string>& varied);

// The point keys in which row ra of a and row rb of b differ: "epochs 2 -> 3, compression none -> bf16"
// ("" when none do).
std::string field_differences(const record::Table& a, std::size_t ra, const record::Table& b, std::size_t rb);

}  // namespace scalebench::study
