// format.h — output formats shared by report and compare: aligned text tables and Markdown tables
// (JSON is kernels/common/json.h). Knows nothing about metrics.
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

// Fixed decimals, "-" for NaN; three significant digits beyond 10^9 ("1e+300").
std::string fixed(double v, int decimals);
// Percent with decimals, "-" for NaN: 0.123 → "12.3%". Bounded width: from 10^5 % on, three
// significant digits ("1e+302%"), so an absurd value cannot print 300 digits into a table.
std::string percent(double fraction, int decimals);
// The same with a sign: a change, "+12.3%", "-1.0%".
std::string signed_percent(double fraction, int decimals);

}  // namespace scalebench::study
