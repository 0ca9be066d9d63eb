// table.cpp — Attrs and Table (see table.h).
#include "harness/record/table.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace scalebench::record {
namespace {

double parse_double(const std::string& s, double fallback) {
  if (s.empty()) return fallback;
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : fallback;
}

std::string format_double(double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); }

}  // namespace

void Attrs::set(const std::string& name, AttrValue value) {
  for (auto& [n, v] : items_)
    if (n == name) {
      v = std::move(value);
      return;
    }
  items_.emplace_back(name, std::move(value));
}

const AttrValue* Attrs::find(const std::string& name) const {
  for (const auto& [n, v] : items_)
    if (n == name) return &v;
  return nullptr;
}

double Attrs::num(const std::string& name, double fallback) const {
  const AttrValue* v = find(name);
  if (!v) return fallback;
  if (const auto* i = std::get_if<std::int64_t>(v)) return double(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return parse_double(std::get<std::string>(*v), fallback);
}

std::int64_t Attrs::integer(const std::string& name, std::int64_t fallback) const {
  const AttrValue* v = find(name);
  if (!v) return fallback;
  if (const auto* i = std::get_if<std::int64_t>(v)) return *i;
  const double d = num(name, kNaN);
  return std::isfinite(d) ? std::int64_t(std::llround(d)) : fallback;
}

std::string Attrs::str(const std::string& name, const std::string& fallback) const {
  const AttrValue* v = find(name);
  if (!v) return fallback;
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(v)) return std::to_string(*i);
  return format_double(std::get<double>(*v));
}

Column& Table::add(const std::string& name, Column::Kind kind) {
  if (Column* c = find(name)) return *c;
  const std::size_t n = rows();
  Column c;
  c.name = name;
  c.kind = kind;
  if (kind == Column::Kind::i64) c.i.assign(n, 0);
  if (kind == Column::Kind::f64) c.f.assign(n, kNaN);
  if (kind == Column::Kind::str) c.s.assign(n, "");
  cols_.push_back(std::move(c));
  return cols_.back();
}

const Column* Table::find(const std::string& name) const {
  for (const auto& c : cols_)
    if (c.name == name) return &c;
  return nullptr;
}

Column* Table::find(const std::string& name) {
  for (auto& c : cols_)
    if (c.name == name) return &c;
  return nullptr;
}

double Table::num(const std::string& name, std::size_t row) const {
  const Column* c = find(name);
  if (!c || row >= c->size()) return kNaN;
  if (c->kind == Column::Kind::i64) return double(c->i[row]);
  if (c->kind == Column::Kind::f64) return c->f[row];
  return parse_double(c->s[row], kNaN);
}

std::int64_t Table::integer(const std::string& name, std::size_t row) const {
  const Column* c = find(name);
  if (!c || row >= c->size()) return 0;
  if (c->kind == Column::Kind::i64) return c->i[row];
  const double d = num(name, row);
  return std::isfinite(d) ? std::int64_t(std::llround(d)) : 0;
}

std::string Table::str(const std::string& name, std::size_t row) const {
  const Column* c = find(name);
  if (!c || row >= c->size()) return "";
  if (c->kind == Column::Kind::str) return c->s[row];
  if (c->kind == Column::Kind::i64) return std::to_string(c->i[row]);
  return format_double(c->f[row]);
}

void Table::append(const Attrs& row) {
  for (const auto& [name, v] : row.items()) {
    const Column::Kind kind = std::holds_alternative<std::int64_t>(v) ? Column::Kind::i64
                              : std::holds_alternative<double>(v)     ? Column::Kind::f64
                                                                      : Column::Kind::str;
    add(name, kind);
  }
  for (auto& c : cols_) {
    const AttrValue* v = row.find(c.name);
    switch (c.kind) {
      case Column::Kind::i64: c.i.push_back(v ? row.integer(c.name) : 0); break;
      case Column::Kind::f64: c.f.push_back(v ? row.num(c.name) : kNaN); break;
      case Column::Kind::str: c.s.push_back(v ? row.str(c.name) : std::string()); break;
    }
  }
}

}  // namespace scalebench::record
