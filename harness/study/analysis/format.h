// format.h — output formats shared by report and compare: aligned text tables, Markdown tables,
// and the JSON value helpers (NaN becomes null). Knows nothing about metrics.
#pragma once

#include <string>
#include <vector>

namespace scalebench::study {

enum class Format { text, markdown, json };
Format parse_format(const std::string& s);  // throws naming the value

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
// text: columns padded, numbers right-aligned; markdown: a pipe table.
std::string render(const TextTable& t, Format f);

std::string json_string(const std::string& s);
std::string json_number(double v);  // null for NaN/inf

// Fixed decimals, "-" for NaN.
std::string fixed(double v, int decimals);
// Percent with decimals, "-" for NaN: 0.123 → "12.3%".
std::string percent(double fraction, int decimals);

}  // namespace scalebench::study
