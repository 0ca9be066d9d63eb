// toml_section.h — one [section] of a TOML file (sweep spec, Slurm profile) with typed getters that
// fail with "<file>:<line>:<column>: <section.key>: <problem>", the one error line scalebench gives
// for bad input. Not here: what the keys mean (spec.cpp, slurm_profile.cpp).
#pragma once

// Debian's libtomlplusplus-dev (3.3) ships the multi-header entry point toml.h; upstream
// single-header installs have toml.hpp.
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/common/check.h"
#include "kernels/common/printable.h"

namespace scalebench::study {

// One [section] of a TOML file, with typed getters that fail at the right place.
class Section {
 public:
  Section(const std::string& source, const toml::table* t, std::string name, toml::source_region where)
      : source_(source), t_(t), name_(std::move(name)), where_(where) {}

  bool present() const { return t_ != nullptr; }
  const toml::table* table() const { return t_; }
  const std::string& name() const { return name_; }
  const toml::node* node(const char* key) const { return t_ ? t_->get(key) : nullptr; }
  bool has(const char* key) const { return node(key) != nullptr; }

  [[noreturn]] void fail(const char* key, const std::string& msg) const {
    const toml::node* n = node(key);
    fail_at(n ? n->source() : where_, name_ + "." + key, msg);
  }
  [[noreturn]] void fail_at(const toml::source_region& r, const std::string& field, const std::string& msg) const {
    fail_input(fmt::format("{}:{}:{}: {}: {}", source_, r.begin.line, r.begin.column, one_line(field), one_line(msg)));
  }
  // Control characters of quoted keys and values (a TOML string may hold "\n") escaped, so that
  // the error stays one line.
  static std::string one_line(const std::string& s) { return printable(s); }

  void check_known(std::initializer_list<const char*> keys) const {
    if (!t_) return;
    for (auto&& [k, v] : *t_) {
      bool ok = false;
      for (const char* known : keys) ok = ok || k.str() == known;
      if (!ok) {
        std::string list;
        for (const char* known : keys) list += (list.empty() ? "" : ", ") + std::string(known);
        fail_at(k.source(), name_ + "." + std::string(k.str()), fmt::format("unknown key (known: {})", list));
      }
    }
  }

  std::optional<std::string> str(const char* key) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail(key, fmt::format("expected a string, got {}", type_name(*n)));
    return n->value<std::string>();
  }
  std::optional<std::int64_t> integer(const char* key, std::int64_t lo, std::int64_t hi) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) fail(key, fmt::format("expected an integer, got {}", type_name(*n)));
    const std::int64_t v = *n->value<std::int64_t>();
    if (v < lo || v > hi) fail(key, fmt::format("{} is out of range [{}, {}]", v, lo, hi));
    return v;
  }
  std::optional<double> number(const char* key) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_number()) fail(key, fmt::format("expected a number, got {}", type_name(*n)));
    const double v = *n->value<double>();
    if (!std::isfinite(v)) fail(key, "must be finite");
    return v;
  }
  std::optional<bool> boolean(const char* key) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) fail(key, fmt::format("expected true or false, got {}", type_name(*n)));
    return n->value<bool>();
  }
  std::string one_of(const char* key, const std::string& fallback, std::initializer_list<const char*> allowed) const {
    const auto v = str(key);
    if (!v) return fallback;
    std::string list;
    for (const char* a : allowed) {
      if (*v == a) return *v;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    fail(key, fmt::format("'{}' is not one of: {}", *v, list));
  }
  // A list of strings (a single string is accepted as a one-element list).
  std::vector<std::string> strings(const char* key) const {
    const toml::node* n = node(key);
    if (!n) fail(key, "required");
    if (n->is_string()) return {*n->value<std::string>()};
    const toml::array* a = n->as_array();
    if (!a) fail(key, fmt::format("expected a list of strings, got {}", type_name(*n)));
    if (a->empty()) fail(key, "must not be empty");
    std::vector<std::string> out;
    for (const toml::node& e : *a) {
      if (!e.is_string()) fail_at(e.source(), name_ + "." + key, fmt::format("expected a string, got {}", type_name(e)));
      out.push_back(*e.value<std::string>());
    }
    return out;
  }

  static std::string type_name(const toml::node& n) {
    std::ostringstream os;
    os << n.type();
    return os.str();
  }

 private:
  const std::string& source_;
  const toml::table* t_;
  std::string name_;
  toml::source_region where_;
};

// The [name] table of root (absent → a Section whose getters see no keys; not a table → error).
Section section(const std::string& source, const toml::table& root, const char* name);

// Parses TOML text; a syntax error becomes "<source>:<line>:<column>: TOML syntax: ...".
toml::table parse_toml(std::string_view text, const std::string& source);

}  // namespace scalebench::study
