// overrides.cpp — `sweep --set/--name/--output/--repetitions` written into the spec's text and parsed
// again (overrides.h). The text is edited by line, from the source regions toml++ gives each key and
// value, so the rest of the spec (comments, order) stays as the user wrote it.
#include "harness/study/spec/overrides.h"

#include <fmt/format.h>

#include <sstream>

#include "harness/study/spec/toml_section.h"
#include "kernels/common/check.h"

namespace scalebench::study {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

const toml::table* find_table(const toml::table& root, const std::string& section) {
  const toml::table* t = &root;
  std::istringstream parts(section);
  for (std::string part; std::getline(parts, part, '.');) {
    const toml::node* n = t->get(part);
    if (!n || !n->is_table()) return nullptr;
    t = n->as_table();
  }
  return t;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\u{:04x}", c);
    else out += char(c);
  }
  return out + "\"";
}

// The value as the spec wrote it (0.1, not the double's 0.10000000000000001), its lines joined.
std::string node_text(const std::vector<std::string>& lines, const toml::node& n) {
  const auto& r = n.source();
  std::string out;
  for (auto l = r.begin.line; l >= 1 && l <= r.end.line && l <= lines.size(); ++l) {
    const std::string& line = lines[l - 1];
    const std::size_t from = l == r.begin.line ? r.begin.column - 1 : line.find_first_not_of(" \t");
    const std::size_t to = l == r.end.line ? r.end.column - 1 : line.size();
    if (from == std::string::npos || from >= to || from >= line.size()) continue;
    out += (out.empty() || out.back() == '[' ? "" : " ") + line.substr(from, to - from);
  }
  return out;
}

// The header line of `section` (1-based), or 0 where the table has no `[section]` line of its own
// (defined only through a sub-table's header): then a header is added at the end.
std::size_t header_line(const std::vector<std::string>& lines, const toml::table& t, const std::string& section) {
  const auto line = t.source().begin.line;
  if (line == 0 || line > lines.size()) return 0;
  std::string l = lines[line - 1];
  l.erase(0, l.find_first_not_of(" \t"));
  return l.rfind("[" + section + "]", 0) == 0 ? line : 0;
}

std::string apply_one(const std::string& text, const std::string& source, const SpecOverride& o) {
  const toml::table root = parse_toml(text, source);
  std::vector<std::string> lines = split_lines(text);
  const toml::table* t = find_table(root, o.section);
  const std::string field = o.section + "." + o.key;
  if (t && t->is_inline())
    fail_input(fmt::format("{}: {}: [{}] is an inline table in {}: set it as a whole", o.flag, field, o.section,
                           source));
  if (t) {
    for (auto&& [k, v] : *t) {
      if (k.str() != o.key) continue;
      const auto first = k.source().begin.line, last = v.source().end.line;
      SB_REQUIRE(first >= 1 && last >= first && last <= lines.size(), "{}: {}: no source lines for {}", source,
                 o.flag, field);
      const std::string indent = lines[first - 1].substr(0, lines[first - 1].find_first_not_of(" \t"));
      const std::string line = fmt::format("{}{} = {}  # {} {} (the spec said {})", indent, o.key, o.value, o.command, o.flag,
                                           node_text(lines, v));
      lines.erase(lines.begin() + long(first - 1), lines.begin() + long(last));
      lines.insert(lines.begin() + long(first - 1), line);
      return join_lines(lines);
    }
    if (const auto h = header_line(lines, *t, o.section)) {
      lines.insert(lines.begin() + long(h), fmt::format("{} = {}  # {} {} (not in the spec)", o.key, o.value, o.command, o.flag));
      return join_lines(lines);
    }
  }
  lines.push_back(fmt::format("[{}]", o.section));
  lines.push_back(fmt::format("{} = {}  # {} {} (not in the spec)", o.key, o.value, o.command, o.flag));
  return join_lines(lines);
}

}  // namespace

SpecOverride parse_set(std::string_view arg) {
  const auto eq = arg.find('=');
  const std::string path(arg.substr(0, eq));
  const auto dot = path.rfind('.');
  if (eq == std::string_view::npos || dot == std::string::npos || dot == 0 || dot + 1 == path.size() ||
      path.find_first_of(" \t\"'[]") != std::string::npos)
    fail_input(fmt::format("--set {}: expected section.key=value, e.g. --set train.lr=0.1 or --set "
                           "sweep.devices=[1,2] (docs/sweep-spec.md)", Section::one_line(std::string(arg))));
  SpecOverride o{path.substr(0, dot), path.substr(dot + 1), std::string(arg.substr(eq + 1)),
                 "--set " + std::string(arg)};
  // A TOML value stays as typed; anything else (a path, a bare word) is a string.
  try {
    (void)toml::parse("v = " + o.value);
  } catch (const std::exception&) {
    o.value = toml_string(o.value);
  }
  if (o.value.empty() || o.value.find('\n') != std::string::npos) o.value = toml_string(arg.substr(eq + 1));
  return o;
}

SpecOverride string_override(std::string section, std::string key, std::string_view value, std::string flag) {
  return {std::move(section), std::move(key), toml_string(value), std::move(flag)};
}

SweepSpec with_overrides(const SweepSpec& spec, const std::vector<SpecOverride>& overrides) {
  if (overrides.empty()) return spec;
  std::string text = spec.text, flags;
  for (const auto& o : overrides) {
    text = apply_one(text, spec.source + (flags.empty() ? "" : " (with" + flags + ")"), o);
    flags += " " + o.flag;
  }
  SweepSpec out = parse_spec(text, spec.source + " (with" + flags + ")");
  out.source = spec.source;
  return out;
}

SweepSpec with_repetitions(const SweepSpec& spec, int k) {
  SB_REQUIRE(k >= 1 && k <= 1000, "--repetitions {}: must be 1-1000", k);
  return with_overrides(spec, {{"study", "repetitions", std::to_string(k), fmt::format("--repetitions {}", k)}});
}

std::string describe_overrides(const SweepSpec& before, const std::vector<SpecOverride>& overrides) {
  const toml::table root = parse_toml(before.text, before.source);
  const std::vector<std::string> lines = split_lines(before.text);
  std::string out;
  for (const auto& o : overrides) {
    const toml::table* t = find_table(root, o.section);
    const toml::node* old = t ? t->get(o.key) : nullptr;
    out += fmt::format("{}.{} = {} ({})\n", o.section, o.key, o.value,
                       old ? "the spec said " + node_text(lines, *old) : std::string("not in the spec"));
  }
  return out;
}

}  // namespace scalebench::study
