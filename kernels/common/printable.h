// printable.h — text from outside (a file's attribute, a spec value, an argument) made safe for one
// line on a terminal: \n \r \t written as such, every other control byte and DEL as \xNN, and bytes
// >= 0x80 as \xNN too where the text need not be UTF-8 (a damaged file, a job script's field).
// What it does not do: cut long text, or judge whether a character is allowed (the callers do).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace scalebench {

enum class HighBytes { keep, escape };

inline std::string printable(std::string_view s, HighBytes high = HighBytes::keep) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f || (c >= 0x80 && high == HighBytes::escape)) out += fmt::format("\\x{:02x}", c);
    else out += ch;
  }
  return out;
}

}  // namespace scalebench
