// spec.h — model spec strings (DESIGN §7): "family:key=value,key=value", e.g.
// "unet:depth=4,base=16,padding=same,bn=1" or "vgg16:width=0.25,bn=1". Parsing checks syntax;
// build_model_graph checks each family's keys and values and builds the Graph for a data shape.
// Every error is one line naming the spec and the offending key or value.
#pragma once

#include <map>
#include <vector>
#include <string>

#include "models/graph.h"

namespace scalebench {

struct ModelSpec {
  std::string text;    // as given
  std::string family;  // "unet", "vgg11", "vgg13", "vgg16", "vgg19"
  std::map<std::string, std::string> options;
};

struct DataShape {
  int channels = 1, height = 0, width = 0, classes = 0;
};

ModelSpec parse_model_spec(const std::string& text);
Graph build_model_graph(const ModelSpec& spec, const DataShape& data);
// The canonical text (family and every option, defaults filled in, sorted) — for run ids.
std::string canonical_spec(const ModelSpec& spec, const DataShape& data);

// Typed option access with one-line errors; used by the family builders.
class SpecOptions {
 public:
  explicit SpecOptions(const ModelSpec& spec) : spec_(spec) {}
  int integer(const std::string& key, int fallback, int min, int max);
  double real(const std::string& key, double fallback, double min, double max);
  bool flag(const std::string& key, bool fallback);
  std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);
  // Throws naming the first option no builder asked for.
  void reject_unknown() const;
  const std::map<std::string, std::string>& resolved() const { return resolved_; }

 private:
  const std::string& raw(const std::string& key);
  const ModelSpec& spec_;
  std::map<std::string, std::string> resolved_;
};

}  // namespace scalebench
