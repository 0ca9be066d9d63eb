// fuzz_mutate.cpp — byte and TOML-aware mutations (see fuzz.h).
#include <algorithm>
#include <cstring>
#include <regex>

#include "fuzz.h"

namespace sbfuzz {
namespace {

const std::vector<std::uint64_t> kInteresting = {0,          1,          2,          7,          8,
                                                 0x7f,       0x80,       0xff,       0x100,      0x7fff,
                                                 0x8000,     0xffff,     0x10000,    0x7fffffff, 0x80000000,
                                                 0xffffffff, 1ULL << 32, 1ULL << 40, ~0ULL >> 1, ~0ULL};

const std::vector<std::string> kValues = {
    "0", "-1", "1", "2", "-0", "65536", "65537", "2147483647", "2147483648", "-2147483649",
    "9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e308", "-1e308", "1e-320",
    "nan", "inf", "-inf", "0.0", "1.5", "0x7fffffff", "0o777", "0b1", "true", "false", "\"\"", "\"x\"",
    "\"1:1000000000:*2\"", "\"1:2147483647\"", "\"0:8\"", "\"8:1\"", "\"1:8:*1\"", "\"1:8:+0\"", "\"1:8:*-2\"",
    "\"1:65536:+1\"", "\"a\\nb\"", "\"$(id)\"", "\"`id`\"", "\"; rm -rf /\"", "\"\\u0000\"", "\"\\\\\"", "'''x\ny'''",
    "[]", "[1]", "[1, 2, 3]", "[\"a\", 1]", "[[1]]", "{}", "{ a = 1 }", "1979-05-27T07:32:00Z", "07:32:00",
    "\"unet:depth=99\"", "\"vgg11:width=0\"", "\"unet:depth=2,base=4,base=4\"", "\"single\"", "\"ps-async\"",
    "\"cuda\"", "\"bf16\"", "\"NHWC\"", "\"fp16\"", "\"auto\"", "\"1,2,3\"", "\"-1,nan\"", "\"/dev/null\"",
};

std::uint64_t put_le(Bytes& b, std::size_t at, std::uint64_t v, std::size_t width) {
  for (std::size_t i = 0; i < width && at + i < b.size(); ++i) b[at + i] = char((v >> (8 * i)) & 0xff);
  return v;
}

}  // namespace

void mutate_bytes(Bytes& b, Rng& rng, const std::vector<Bytes>& seeds) {
  if (b.empty()) b.push_back('\0');
  const std::size_t at = rng.below(b.size());
  switch (rng.below(9)) {
    case 0: b[at] = char(b[at] ^ (1 << rng.below(8))); break;
    case 1: b[at] = char(rng.below(256)); break;
    case 2: b[at] = rng.chance(2) ? '\0' : char(0xff); break;
    case 3: {
      const std::size_t width = std::size_t(1) << rng.below(4);  // 1, 2, 4, 8
      std::uint64_t v = rng.pick(kInteresting);
      if (rng.chance(3)) v = v - 1 + rng.below(3);
      put_le(b, at, v, width);
      break;
    }
    case 4: b.resize(at); break;  // truncate
    case 5: {                     // remove a range
      const std::size_t n = std::min(b.size() - at, 1 + rng.below(64));
      b.erase(at, n);
      break;
    }
    case 6: {  // duplicate a range
      const std::size_t n = std::min(b.size() - at, 1 + rng.below(64));
      b.insert(rng.below(b.size() + 1), b.substr(at, n));
      break;
    }
    case 7: {  // overwrite with a range of another seed at the same offset (files share layouts)
      const Bytes& other = rng.pick(seeds);
      if (at < other.size()) {
        const std::size_t n = std::min({other.size() - at, b.size() - at, 1 + rng.below(256)});
        b.replace(at, n, other, at, n);
      }
      break;
    }
    default: {  // an 8-byte run copied from elsewhere in the file (addresses, sizes)
      const std::size_t from = rng.below(b.size());
      const std::size_t n = std::min({std::size_t(8), b.size() - at, b.size() - from});
      std::memmove(&b[at], &b[from], n);
      break;
    }
  }
}

void mutate_toml(Bytes& b, Rng& rng, const std::vector<Bytes>& seeds) {
  std::vector<std::string> lines;
  {
    std::size_t p = 0;
    while (p <= b.size()) {
      const std::size_t e = b.find('\n', p);
      lines.push_back(b.substr(p, e == Bytes::npos ? Bytes::npos : e - p));
      if (e == Bytes::npos) break;
      p = e + 1;
    }
  }
  // The dictionary: every key and section header of the seeds.
  std::vector<std::string> keys, sections;
  static const std::regex key_re(R"(^\s*([A-Za-z0-9_.-]+)\s*=)"), section_re(R"(^\s*(\[[^\]]*\]))");
  for (const Bytes& s : seeds) {
    std::smatch m;
    std::size_t p = 0;
    while (p < s.size()) {
      std::size_t e = s.find('\n', p);
      if (e == Bytes::npos) e = s.size();
      const std::string line = s.substr(p, e - p);
      if (std::regex_search(line, m, key_re)) keys.push_back(m[1]);
      if (std::regex_search(line, m, section_re)) sections.push_back(m[1]);
      p = e + 1;
    }
  }
  if (keys.empty()) keys.push_back("name");
  if (sections.empty()) sections.push_back("[study]");
  std::string& line = lines[rng.below(lines.size())];
  const std::size_t eq = line.find('=');
  switch (rng.below(8)) {
    case 0:
    case 1:
    case 2:  // a value replaced by an edge case
      if (eq != std::string::npos) line = line.substr(0, eq + 1) + " " + rng.pick(kValues);
      else line = rng.pick(keys) + " = " + rng.pick(kValues);
      break;
    case 3:  // a known key with an edge-case value, anywhere
      lines.insert(lines.begin() + std::ptrdiff_t(rng.below(lines.size() + 1)), rng.pick(keys) + " = " + rng.pick(kValues));
      break;
    case 4:  // a section header moved or repeated
      lines.insert(lines.begin() + std::ptrdiff_t(rng.below(lines.size() + 1)), rng.pick(sections));
      break;
    case 5:  // a line dropped or duplicated
      if (rng.chance(2)) lines.erase(lines.begin() + std::ptrdiff_t(rng.below(lines.size())));
      else lines.insert(lines.begin() + std::ptrdiff_t(rng.below(lines.size() + 1)), rng.pick(lines));
      break;
    case 6:  // a long value
      if (eq != std::string::npos) line = line.substr(0, eq + 1) + " \"" + std::string(1 + rng.below(100000), 'x') + "\"";
      break;
    default: {  // a character of TOML syntax inserted or removed
      static const std::string syntax = "[]{}\"'=,.#\\\n\t ";
      if (line.empty() || rng.chance(2)) line.insert(rng.below(line.size() + 1), 1, syntax[rng.below(syntax.size())]);
      else line.erase(rng.below(line.size()), 1);
      break;
    }
  }
  b.clear();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) b += '\n';
    b += lines[i];
  }
  if (rng.chance(4)) mutate_bytes(b, rng, seeds);
}

}  // namespace sbfuzz
