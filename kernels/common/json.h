// json.h — the one way scalebench reads and writes JSON (commbench --json, train --trace, report
// and compare --format json): nlohmann::ordered_json, whose members keep the order they were added
// in, so a file's key order is its writer's. Writing: build a Json, print it with layout(). Reading:
// parse (one error line "<where>: not JSON (...)"), then take members by name through Value, whose
// every failure is one line naming the file and the member ("--commbench cb.json: results[2].bytes
// is a string ("4K"), expected an integer").
// Not here: what any file holds (its writer and reader know their keys), and JSON from elsewhere
// than a file or a string.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace scalebench::json {

using Json = nlohmann::ordered_json;

// v as fmt's "{:.<decimals>f}" prints it, read back: a writer that printed fixed decimals keeps
// writing the same values (the text may drop trailing zeros: 5.000 -> 5.0).
double rounded(double v, int decimals);
// v, or null where it is NaN or infinite (JSON has neither).
Json number_or_null(double v);

// The document's text: an object's members one a line, and the elements of a member that is an
// array of objects or arrays one a line; everything deeper on that line. Ends with a newline.
// Strings that are not valid UTF-8 are written with U+FFFD for the bad bytes (JSON text is UTF-8).
std::string layout(const Json& doc);

// Parses `text`; `where` names it in the error ("--commbench cb.json").
Json parse(std::string_view text, const std::string& where);
// Reads and parses a file ("<where>: <reason>" when it cannot be read).
Json read_file(const std::string& path, const std::string& where);

// A value inside a parsed document and its place there, for the error lines of a reader. Holds a
// reference: the document must outlive it.
class Value {
 public:
  explicit Value(const Json& doc, std::string where) : v_(&doc), where_(std::move(where)) {}
  const Json& raw() const { return *v_; }
  const std::string& path() const { return path_; }  // "results[2].bytes"; "" for the document

  Value operator[](std::string_view key) const;           // a member that must be there
  std::optional<Value> find(std::string_view key) const;  // a member that may be missing
  std::vector<Value> elements() const;                    // an array's
  std::vector<std::pair<std::string, Value>> members() const;  // an object's, in order

  double number() const;
  std::int64_t integer() const;
  std::string string() const;

  // Throws "<where>: <path> <what>" ("<where>: <what>" for the document itself).
  [[noreturn]] void fail(std::string_view what) const;

 private:
  Value(const Json* v, std::string where, std::string path) : v_(v), where_(std::move(where)), path_(std::move(path)) {}
  void expect(bool ok, std::string_view kind) const;  // fails with "is <type> (...), expected <kind>"
  const Json* v_;
  std::string where_, path_;
};

}  // namespace scalebench::json
