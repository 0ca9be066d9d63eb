// field.h — one run option, described once: its key (TOML key and run-file attribute), CLI flag,
// help, default, check, whether it must agree across ranks, whether and when it joins the run id,
// when it appears on a launch line, whether a sweep spec may set it. Field<C> reads and writes a
// member of a config struct C through typed codecs, so every consumer — the CLI (harness/main.cpp),
// `--config` and sweep `[train]` tables (harness/study/config_toml), run ids and run-file
// attributes (harness/record/run_config), canonical_text and launch lines — loops over a table of
// them instead of listing options itself. The tables are in train_fields.cpp and run_config.cpp.
// What it deliberately does not do: know the CLI or TOML libraries, or rules between fields
// (TrainConfig::validate).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include "kernels/common/enum_names.h"

namespace scalebench {

// A stored value: the three kinds a run file's attributes hold (record::AttrValue is this type).
// Booleans are integers 0/1.
using FieldValue = std::variant<std::int64_t, double, std::string>;

enum class ValueKind { boolean, integer, number, string };  // the TOML type a key takes
enum class IdRule { always, unless_default, never };       // joins the run id
enum class LaunchRule { always, unless_default, never };   // written on launch lines

// A problem with a value, without saying where the value came from ("0 is out of range [1, 9]");
// the caller prefixes "--epochs: " or "spec.toml:3:10: train.epochs: ".
using Problem = std::optional<std::string>;

template <class C>
struct Field {
  std::string_view key;      // snake_case: TOML key, run-file attribute, canonical-text key
  std::string flag;          // "--lr-scaling" (empty: not on the command line)
  std::string help;          // CLI help, choices included
  ValueKind kind = ValueKind::string;
  bool agree = true;         // must be equal on every rank of a run
  IdRule id = IdRule::always;
  LaunchRule launch = LaunchRule::always;
  bool attr = true;          // written to the run file's /config
  bool in_spec = true;       // a sweep spec's [train] may set it (false: set per point, or tests only)
  std::function<std::string(const C&)> text;                 // the value as a command line writes it
  std::function<Problem(C&, std::string_view)> parse;        // text → member, checked; problem on failure
  std::function<Problem(const C&)> check;                    // the member's own constraint
  std::function<FieldValue(const C&)> value;                 // as stored (attributes, run ids)
  std::function<Problem(C&, const FieldValue&)> set_value;   // from a stored value, checked

  bool is_default(const C& c) const { return text(c) == text(C{}); }
  std::string default_text() const { return text(C{}); }
};

// ---- codecs: text and stored forms of each member type ------------------------------------------

template <class T>
struct Codec;

template <class T>
  requires std::is_integral_v<T> && (!std::is_same_v<T, bool>)
struct Codec<T> {
  static constexpr ValueKind kind = ValueKind::integer;
  static std::optional<T> from_text(std::string_view s) {
    T v{};
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
  }
  static std::string to_text(T v) { return std::to_string(v); }
  static FieldValue to_value(T v) { return std::int64_t(v); }
  static std::optional<T> from_value(const FieldValue& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      if constexpr (std::is_unsigned_v<T>) {
        if (*i < 0) return std::nullopt;
      }
      return T(*i);
    }
    if (const auto* s = std::get_if<std::string>(&v)) return from_text(*s);
    return std::nullopt;
  }
  static std::string expected() { return std::is_unsigned_v<T> ? "a non-negative integer" : "an integer"; }
};

template <>
struct Codec<double> {
  static constexpr ValueKind kind = ValueKind::number;
  static std::optional<double> from_text(std::string_view s) {
    const std::string z(s);
    char* end = nullptr;
    const double v = std::strtod(z.c_str(), &end);
    if (z.empty() || end != z.c_str() + z.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  }
  static std::string to_text(double v) { return fmt::format("{}", v); }  // shortest exact text
  static FieldValue to_value(double v) { return v; }
  static std::optional<double> from_value(const FieldValue& v) {
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return double(*i);
    return from_text(std::get<std::string>(v));
  }
  static std::string expected() { return "a finite number"; }
};

template <>
struct Codec<bool> {
  static constexpr ValueKind kind = ValueKind::boolean;
  static std::optional<bool> from_text(std::string_view s) {
    if (s == "true" || s == "1") return true;
    if (s == "false" || s == "0") return false;
    return std::nullopt;
  }
  static std::string to_text(bool v) { return v ? "true" : "false"; }
  static FieldValue to_value(bool v) { return std::int64_t(v ? 1 : 0); }
  static std::optional<bool> from_value(const FieldValue& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i != 0;
    if (const auto* s = std::get_if<std::string>(&v)) return from_text(*s);
    return std::nullopt;
  }
  static std::string expected() { return "true or false"; }
};

template <>
struct Codec<std::string> {
  static constexpr ValueKind kind = ValueKind::string;
  static std::optional<std::string> from_text(std::string_view s) { return std::string(s); }
  static std::string to_text(const std::string& v) { return v; }
  static FieldValue to_value(const std::string& v) { return v; }
  static std::optional<std::string> from_value(const FieldValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    return std::nullopt;
  }
  static std::string expected() { return "a string"; }
};

template <NamedEnum E>
struct Codec<E> {
  static constexpr ValueKind kind = ValueKind::string;
  static std::optional<E> from_text(std::string_view s) { return find_enum<E>(s); }
  static std::string to_text(E v) { return std::string(name_of(v)); }
  static FieldValue to_value(E v) { return to_text(v); }
  static std::optional<E> from_value(const FieldValue& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return from_text(*s);
    return std::nullopt;
  }
  static std::string expected() { return "one of: " + enum_choices<E>(); }
};

// ---- checks ---------------------------------------------------------------------------------------

template <class T>
using Check = std::function<Problem(const T&)>;

template <class T>
Check<T> in_range(T lo, T hi) {
  return [lo, hi](const T& v) -> Problem {
    if (v >= lo && v <= hi) return std::nullopt;
    return fmt::format("{} is out of range [{}, {}]", v, lo, hi);
  };
}
template <class T>
Check<T> at_least(T lo) {
  return [lo](const T& v) -> Problem {
    if (v >= lo) return std::nullopt;
    return fmt::format("{} must be >= {}", v, lo);
  };
}
template <class T>
Check<T> above(T lo) {
  return [lo](const T& v) -> Problem {
    if (v > lo) return std::nullopt;
    return fmt::format("{} must be > {}", v, lo);
  };
}

// ---- the builder ----------------------------------------------------------------------------------

struct FieldTraits {
  bool agree = true;
  IdRule id = IdRule::always;
  LaunchRule launch = LaunchRule::always;
  bool attr = true;
  bool in_spec = true;
  std::string flag;  // default: "--" + key with '_' → '-'
};

inline std::string flag_of(std::string_view key) {
  std::string f = "--";
  for (char c : key) f += c == '_' ? '-' : c;
  return f;
}

// A Field over member `m` of C. `custom` replaces the codec's text parser (value types such as
// ClassWeights that check while they parse); it throws scalebench::Error with the problem.
template <class C, class T>
Field<C> make_field(std::string_view key, T C::*m, std::string help, FieldTraits tr = {}, Check<T> check = {},
                    std::function<T(std::string_view)> custom = {}) {
  using K = Codec<T>;
  Field<C> f;
  f.key = key;
  f.flag = tr.flag.empty() ? flag_of(key) : tr.flag;
  f.help = std::move(help);
  f.kind = K::kind;
  f.agree = tr.agree;
  f.id = tr.id;
  f.launch = tr.launch;
  f.attr = tr.attr;
  f.in_spec = tr.in_spec;
  f.text = [m](const C& c) { return K::to_text(c.*m); };
  f.check = [m, check](const C& c) -> Problem { return check ? check(c.*m) : std::nullopt; };
  auto assign = [m, check](C& c, std::optional<T> v, std::string_view shown) -> Problem {
    if (!v) return fmt::format("'{}' is not {}", shown, K::expected());
    if (check)
      if (auto p = check(*v)) return p;
    c.*m = std::move(*v);
    return std::nullopt;
  };
  f.parse = [assign, custom](C& c, std::string_view s) -> Problem {
    if (!custom) return assign(c, K::from_text(s), s);
    try {
      return assign(c, custom(s), s);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  };
  f.value = [m](const C& c) { return K::to_value(c.*m); };
  f.set_value = [f_parse = f.parse, assign](C& c, const FieldValue& v) -> Problem {
    if (const auto* s = std::get_if<std::string>(&v)) return f_parse(c, *s);
    return assign(c, K::from_value(v), std::visit([](const auto& x) { return fmt::format("{}", x); }, v));
  };
  return f;
}

}  // namespace scalebench
