// enum_names.h — one name table per enum, and the parser and printer every room uses with it, so
// a name ("ring", "bf16", "NHWC") is written once, next to its enum, and strings become enums at
// the boundary (the CLI, TOML files, run-file attributes) and nowhere else.
// A room declares, beside its enum:
//   template <> struct EnumNames<Layout> {
//     static constexpr std::array<EnumEntry<Layout>, 2> entries{{{Layout::NCHW, "NCHW"}, {Layout::NHWC, "NHWC"}}};
//   };
// What it deliberately does not do: aliases, case folding, or error messages with an option name
// (the caller knows where the text came from and prefixes it).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kernels/common/check.h"

namespace scalebench {

template <class E>
struct EnumEntry {
  E value;
  std::string_view name;
};

template <class E>
struct EnumNames;  // specialised beside each enum: static constexpr std::array<EnumEntry<E>, N> entries

template <class E>
concept NamedEnum = requires { EnumNames<E>::entries; };

template <NamedEnum E>
constexpr std::string_view name_of(E e) {
  for (const auto& en : EnumNames<E>::entries)
    if (en.value == e) return en.name;
  return "?";
}

template <NamedEnum E>
constexpr std::optional<E> find_enum(std::string_view s) {
  for (const auto& en : EnumNames<E>::entries)
    if (en.name == s) return en.value;
  return std::nullopt;
}

// "a, b, c" (or with another separator, e.g. "|" for help texts).
template <NamedEnum E>
std::string enum_choices(std::string_view sep = ", ") {
  std::string s;
  for (const auto& en : EnumNames<E>::entries) {
    if (!s.empty()) s += sep;
    s += en.name;
  }
  return s;
}

// The message every bad enum value gets: "'x' is not one of: a, b, c".
template <NamedEnum E>
std::string enum_problem(std::string_view s) {
  return fmt::format("'{}' is not one of: {}", s, enum_choices<E>());
}

// Throws Error "<what>: 'x' is not one of: a, b, c".
template <NamedEnum E>
E parse_enum(std::string_view s, std::string_view what) {
  if (auto e = find_enum<E>(s)) return *e;
  fail_input(fmt::format("{}: {}", what, enum_problem<E>(s)));
}

}  // namespace scalebench
