#pragma once
// The JSON paths of the jsonpaths and json_root properties: `$`, `$.a`, `$.a.b`, `$.a[0]`, `$["a b"]`,
// `$['a.b'][2].c`. Parsed once when a job is created, so decoding only compares keys and counts elements.
// Wildcards, slices and filters are not supported (StarRocks does not load with them either).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::format {

struct JsonPathStep {
  enum class Kind : uint8_t { kKey, kIndex };
  Kind kind = Kind::kKey;
  std::string key;   // kKey: the object key, unescaped
  size_t index = 0;  // kIndex: the array element, 0-based

  bool operator==(const JsonPathStep&) const = default;
};

struct JsonPath {
  std::string text;                // as the user wrote it, for messages
  std::vector<JsonPathStep> steps;  // empty: the root itself (`$`)
};

// InvalidArgument naming the path and what is wrong with it, e.g.
// `invalid JSON path "$.a[": expected an array index or a quoted key after "[" at position 4`.
Result<JsonPath> ParseJsonPath(std::string_view text);

// Paths deeper than this are refused: JSON nested deeper is rejected by the parser anyway (simdjson's limit is
// 1024 levels), and the decoder walks paths recursively.
inline constexpr size_t kMaxJsonPathSteps = 256;
// Array indexes above this are refused: no message holds that many elements, and it keeps counts in range.
inline constexpr size_t kMaxJsonPathIndex = 100'000'000;

}  // namespace sluice::format
