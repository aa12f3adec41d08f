#include "format/json_path.h"

#include <fmt/format.h>

#include "format/quoted_bytes.h"

namespace sluice::format {
namespace {

Status PathError(std::string_view text, std::string_view what, size_t position) {
  return Status::InvalidArgument(
      fmt::format("invalid JSON path {}: {} at position {}; write paths like $.a.b, $.a[0] or $[\"a b\"]",
                  QuoteBytes(text), what, position));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<JsonPath> ParseJsonPath(std::string_view text) {
  JsonPath path{std::string(text), {}};
  if (text.empty() || text[0] != '$') return PathError(text, "a path must start with \"$\"", 0);
  const size_t n = text.size();
  size_t i = 1;
  while (i < n) {
    if (path.steps.size() >= kMaxJsonPathSteps) return PathError(text, "too many steps", i);
    const char c = text[i];
    if (c == '.') {
      const size_t start = ++i;
      while (i < n && text[i] != '.' && text[i] != '[') i++;
      const std::string_view key = text.substr(start, i - start);
      if (key.empty()) return PathError(text, "expected a key after \".\"", start);
      if (key == "*") return PathError(text, "wildcards are not supported", start);
      path.steps.push_back({JsonPathStep::Kind::kKey, std::string(key), 0});
    } else if (c == '[') {
      const size_t start = ++i;
      if (i < n && (text[i] == '"' || text[i] == '\'')) {
        const char quote = text[i++];
        std::string key;
        while (i < n && text[i] != quote) {
          if (text[i] == '\\' && i + 1 < n) i++;  // \" \' \\ inside a quoted key
          key.push_back(text[i++]);
        }
        if (i >= n) return PathError(text, "unterminated quoted key", start);
        i++;  // the closing quote
        if (i >= n || text[i] != ']') return PathError(text, "expected \"]\" after a quoted key", i);
        i++;
        path.steps.push_back({JsonPathStep::Kind::kKey, std::move(key), 0});
      } else {
        size_t index = 0;
        while (i < n && IsDigit(text[i])) {
          index = index * 10 + static_cast<size_t>(text[i] - '0');
          if (index > kMaxJsonPathIndex) return PathError(text, "array index too large", start);
          i++;
        }
        if (i == start) {
          if (i < n && text[i] == '*') return PathError(text, "wildcards are not supported", start);
          return PathError(text, "expected an array index or a quoted key after \"[\"", start);
        }
        if (i >= n || text[i] != ']') return PathError(text, "expected \"]\" after an array index", i);
        i++;
        path.steps.push_back({JsonPathStep::Kind::kIndex, {}, index});
      }
    } else {
      return PathError(text, fmt::format("unexpected {}", QuoteBytes(text.substr(i, 1))), i);
    }
  }
  return path;
}

}  // namespace sluice::format
