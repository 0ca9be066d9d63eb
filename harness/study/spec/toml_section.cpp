// toml_section.cpp — section() and parse_toml() (see toml_section.h).
#include "harness/study/spec/toml_section.h"

namespace scalebench::study {

Section section(const std::string& source, const toml::table& root, const char* name) {
  const toml::node* n = root.get(name);
  if (n && !n->is_table())
    Section(source, nullptr, name, n->source()).fail_at(n->source(), name, "expected a [" + std::string(name) + "] table");
  toml::source_region top;
  top.begin = {1, 1};
  return Section(source, n ? n->as_table() : nullptr, name, n ? n->source() : top);
}

toml::table parse_toml(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    fail_input(fmt::format("{}:{}:{}: TOML syntax: {}", source, e.source().begin.line, e.source().begin.column,
                           Section::one_line(std::string(e.description()))));
  }
}

}  // namespace scalebench::study
