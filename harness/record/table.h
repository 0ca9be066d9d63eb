// table.h — the in-memory shapes of what scalebench stores in HDF5: typed attribute lists (Attrs)
// and column tables (Table, stored as a compound dataset). Plain C++ containers: no HDF5 here
// (h5io.h moves them in and out of files), so summaries, collect and compare can be tested on
// tables built in memory.
// Deliberately only three value kinds — 64-bit integer, double, UTF-8 string — which cover every
// field of the schema and map one-to-one onto numpy/pandas dtypes. Booleans are integers 0/1.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace scalebench::record {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using AttrValue = std::variant<std::int64_t, double, std::string>;

// Named values in insertion order; set() replaces a value of the same name.
class Attrs {
 public:
  void set(const std::string& name, AttrValue value);
  // Exact overloads so that int, double and bool arguments are never ambiguous.
  void set(const std::string& name, std::int64_t value) { set(name, AttrValue(value)); }
  void set(const std::string& name, double value) { set(name, AttrValue(value)); }
  void set(const std::string& name, std::string value) { set(name, AttrValue(std::move(value))); }
  void set(const std::string& name, const char* value) { set(name, AttrValue(std::string(value))); }
  void set(const std::string& name, int value) { set(name, AttrValue(std::int64_t{value})); }
  void set(const std::string& name, bool value) { set(name, AttrValue(std::int64_t{value ? 1 : 0})); }
  const AttrValue* find(const std::string& name) const;
  bool has(const std::string& name) const { return find(name) != nullptr; }
  // Typed reads with a fallback when absent; a number reads as either kind, a string as a number
  // only when it parses fully (so hand-edited files stay readable).
  double num(const std::string& name, double fallback = kNaN) const;
  std::int64_t integer(const std::string& name, std::int64_t fallback = 0) const;
  std::string str(const std::string& name, const std::string& fallback = "") const;
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

struct Column {
  enum class Kind { i64, f64, str };
  std::string name;
  Kind kind = Kind::f64;
  std::vector<std::int64_t> i;
  std::vector<double> f;
  std::vector<std::string> s;
  std::size_t size() const { return kind == Kind::i64 ? i.size() : kind == Kind::f64 ? f.size() : s.size(); }
};

// Columns of equal length. Lookups by name; a missing column reads as NaN / "" so readers of older
// or newer files keep working (DESIGN §6: readers ignore unknown fields).
class Table {
 public:
  Column& add(const std::string& name, Column::Kind kind);  // returns the existing one if present
  const Column* find(const std::string& name) const;
  Column* find(const std::string& name);
  const std::vector<Column>& columns() const { return cols_; }
  std::size_t rows() const { return cols_.empty() ? 0 : cols_.front().size(); }

  double num(const std::string& name, std::size_t row) const;        // NaN when absent/string
  std::int64_t integer(const std::string& name, std::size_t row) const;  // 0 when absent
  std::string str(const std::string& name, std::size_t row) const;   // numbers formatted

  // Appends one row: every column gets a value, taken from `row` by name when given there,
  // otherwise the column's empty value (NaN, 0 or ""). New names in `row` become new columns
  // (earlier rows get empty values), so rows of differing shape can be gathered.
  void append(const Attrs& row);

 private:
  std::vector<Column> cols_;
};

}  // namespace scalebench::record
