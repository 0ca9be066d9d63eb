// slurm/safe.cpp — whitelist checks for values bound for Slurm scripts (see slurm/safe.h).
#include "harness/study/launch/slurm/safe.h"

#include <cctype>

#include <fmt/format.h>

#include "kernels/common/check.h"
#include "kernels/common/printable.h"

namespace scalebench::study::slurm {
namespace {

constexpr std::string_view kWordPunct = "_.,:+=@%/-^";

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || kWordPunct.find(c) != std::string_view::npos;
}

// "'a b'" → "the character ' ' (0x20) at position 2".
std::string describe_bad(const std::string& v, std::size_t at) {
  const unsigned char c = static_cast<unsigned char>(v[at]);
  const std::string shown = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : std::isprint(c) ? std::string(1, char(c)) : "?";
  return fmt::format("the character '{}' (0x{:02x}) at position {}", shown, c, at + 1);
}

// Printable form of a value for an error line: one line, no raw bytes of a job script's field.
std::string printable(const std::string& v) { return scalebench::printable(v, HighBytes::escape); }

}  // namespace

const std::string& require_arg(const std::string& value, const std::string& field) {
  for (std::size_t i = 0; i < value.size(); ++i)
    SB_REQUIRE(word_char(value[i]), "{}: '{}' holds {}; values written into Slurm scripts may hold only letters, "
               "digits and _ . , : + = @ % / - ^", field, printable(value), describe_bad(value, i));
  return value;
}

const std::string& require_word(const std::string& value, const std::string& field) {
  SB_REQUIRE(!value.empty(), "{}: must not be empty", field);
  require_arg(value, field);
  SB_REQUIRE(value[0] != '-', "{}: '{}' must not start with '-' (it would read as an option)", field, value);
  return value;
}

const std::string& require_env_name(const std::string& value, const std::string& field) {
  SB_REQUIRE(!value.empty(), "{}: must not be empty", field);
  for (std::size_t i = 0; i < value.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    SB_REQUIRE(c == '_' || std::isalpha(c) || (i > 0 && std::isdigit(c)),
               "{}: '{}' is not an environment variable name ({}; letters, digits and _, not starting with a digit)",
               field, printable(value), describe_bad(value, i));
  }
  return value;
}

const std::string& require_time(const std::string& value, const std::string& field) {
  // Split off "D-", then 1-3 colon-separated digit groups (D-H allows at most H:M:S too).
  bool ok = !value.empty() && value.size() <= 16;
  std::string rest = value;
  if (const auto dash = rest.find('-'); ok && dash != std::string::npos) {
    const std::string days = rest.substr(0, dash);
    ok = !days.empty() && days.find_first_not_of("0123456789") == std::string::npos;
    rest = rest.substr(dash + 1);
  }
  int groups = 0;
  for (std::size_t b = 0; ok && b <= rest.size(); ++groups) {
    const std::size_t e = std::min(rest.find(':', b), rest.size());
    const std::string g = rest.substr(b, e - b);
    ok = !g.empty() && g.size() <= 6 && g.find_first_not_of("0123456789") == std::string::npos;
    b = e + 1;
  }
  ok = ok && groups >= 1 && groups <= 3;
  SB_REQUIRE(ok, "{}: '{}' is not a Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)", field,
             printable(value));
  return value;
}

const std::string& require_option(const std::string& value, const std::string& field) {
  const auto eq = value.find('=');
  const std::string name = value.substr(0, eq);
  bool ok = name.size() > 2 && name.rfind("--", 0) == 0 && std::isalnum(static_cast<unsigned char>(name[2]));
  for (std::size_t i = 2; ok && i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    ok = std::islower(c) || std::isdigit(c) || c == '-';
  }
  SB_REQUIRE(ok, "{}: '{}' is not an option of the form --name or --name=value (name of a-z, 0-9 and -)", field,
             printable(value));
  if (eq != std::string::npos) require_word(value.substr(eq + 1), field + " (" + name + " value)");
  return value;
}

std::string quote(std::string_view value) {
  SB_CHECK(value.find('\'') == std::string_view::npos, "quote: a value with a quote reached a script: {}", value);
  return "'" + std::string(value) + "'";
}

}  // namespace scalebench::study::slurm
