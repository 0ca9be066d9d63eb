// json.cpp — layout, parsing and the member reader (see json.h).
#include "kernels/common/json.h"

#include <charconv>
#include <cmath>

#include "kernels/common/check.h"
#include "kernels/common/read_file.h"

namespace scalebench::json {
namespace {

std::string dump(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

bool holds_rows(const Json& v) { return v.is_array() && !v.empty() && (v.front().is_object() || v.front().is_array()); }

// nlohmann's reason without its "[json.exception.parse_error.101] " tag and the bytes it last read
// (which may be binary: an HDF5 file given as JSON); a text that ends too early says so.
std::string reason(const nlohmann::json::parse_error& e) {
  std::string w = e.what();
  if (const auto tag = w.find("] "); w.rfind("[json.exception", 0) == 0 && tag != std::string::npos) w.erase(0, tag + 2);
  if (const auto last = w.find("; last read: "); last != std::string::npos) {
    const auto expected = w.find("'; expected ", last);
    w.erase(last, expected == std::string::npos ? std::string::npos : expected + 1 - last);
  }
  if (w.find("unexpected end of input") != std::string::npos) w += " (cut short?)";
  return w;
}

}  // namespace

double rounded(double v, int decimals) {
  if (!std::isfinite(v)) return v;
  const std::string text = fmt::format("{:.{}f}", v, decimals);
  double out = v;
  std::from_chars(text.data(), text.data() + text.size(), out);  // not strtod: no locale
  return out;
}

Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::string layout(const Json& doc) {
  if (!doc.is_object() || doc.empty()) return dump(doc) + "\n";
  std::string out = "{";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    out += (it == doc.begin() ? "\n  " : ",\n  ") + dump(Json(it.key())) + ": ";
    if (!holds_rows(it.value())) {
      out += dump(it.value());
      continue;
    }
    const Json& rows = it.value();
    for (std::size_t i = 0; i < rows.size(); ++i) out += (i ? ",\n    " : "[\n    ") + dump(rows[i]);
    out += "\n  ]";
  }
  return out + "\n}\n";
}

Json parse(std::string_view text, const std::string& where) {
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail_input(fmt::format("{}: not JSON ({})", where, reason(e)));
  }
}

Json read_file(const std::string& path, const std::string& where) {
  return parse(read_text_file(path, fmt::format("{}: cannot read", where)), where);
}

void Value::fail(std::string_view what) const {
  fail_input(path_.empty() ? fmt::format("{}: {}", where_, what) : fmt::format("{}: {} {}", where_, path_, what));
}

void Value::expect(bool ok, std::string_view kind) const {
  if (ok) return;
  std::string shown = dump(*v_);
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  fail(fmt::format("is {} ({}), expected {}", v_->type_name(), shown, kind));
}

std::optional<Value> Value::find(std::string_view key) const {
  expect(v_->is_object(), "an object");
  const auto it = v_->find(key);
  if (it == v_->end()) return std::nullopt;
  return Value(&*it, where_, path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key));
}

Value Value::operator[](std::string_view key) const {
  auto v = find(key);
  if (!v) fail_input(path_.empty() ? fmt::format("{}: no \"{}\"", where_, key)
                                   : fmt::format("{}: {} has no \"{}\"", where_, path_, key));
  return *v;
}

std::vector<Value> Value::elements() const {
  expect(v_->is_array(), "an array");
  std::vector<Value> out;
  for (std::size_t i = 0; i < v_->size(); ++i) out.push_back(Value(&(*v_)[i], where_, fmt::format("{}[{}]", path_, i)));
  return out;
}

std::vector<std::pair<std::string, Value>> Value::members() const {
  expect(v_->is_object(), "an object");
  std::vector<std::pair<std::string, Value>> out;
  for (auto it = v_->begin(); it != v_->end(); ++it)
    out.emplace_back(it.key(), Value(&*it, where_, path_.empty() ? it.key() : fmt::format("{}.{}", path_, it.key())));
  return out;
}

double Value::number() const {
  expect(v_->is_number(), "a number");
  return v_->get<double>();
}

std::int64_t Value::integer() const {
  expect(v_->is_number_integer(), "an integer");
  if (v_->is_number_unsigned())
    expect(v_->get<std::uint64_t>() <= std::uint64_t(INT64_MAX), "an integer below 2^63");
  return v_->get<std::int64_t>();
}

std::string Value::string() const {
  expect(v_->is_string(), "a string");
  return v_->get<std::string>();
}

}  // namespace scalebench::json
