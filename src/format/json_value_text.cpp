#include "format/json_value_text.h"

namespace sluice::format {
namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string_view TrimJsonWhitespace(std::string_view s) {
  while (!s.empty() && IsJsonSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsJsonNumber(std::string_view t) {
  size_t i = 0;
  const size_t n = t.size();
  if (i < n && t[i] == '-') i++;
  if (i >= n) return false;
  if (t[i] == '0') {
    i++;
  } else if (IsDigit(t[i])) {
    while (i < n && IsDigit(t[i])) i++;
  } else {
    return false;
  }
  if (i < n && t[i] == '.') {
    i++;
    if (i >= n || !IsDigit(t[i])) return false;
    while (i < n && IsDigit(t[i])) i++;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    if (i >= n || !IsDigit(t[i])) return false;
    while (i < n && IsDigit(t[i])) i++;
  }
  return i == n;
}

std::string_view DescribeJsonType(simdjson::ondemand::json_type type) {
  namespace od = simdjson::ondemand;
  switch (type) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
  }
  return "an unknown value";
}

}  // namespace sluice::format
