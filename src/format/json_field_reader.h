#pragma once
// JsonFieldReader: the values of a few JSON pointers in one document, with one full (validating) simdjson parse,
// for values DuckDB would otherwise extract by parsing the text again (a pipe's `PARSE_JSON(value::STRING)['a']`,
// see transform/json_access.h).
//
// It answers only where its answer is certainly what DuckDB's `json_extract_string(TRY_CAST(text AS JSON),
// pointer)` gives, and says "unknown" everywhere else, so that the caller asks DuckDB for those:
// - known: a string (its unescaped text, unless it holds a NUL), an integer that fits 64 bits and is not written
//   `-0` (its decimal text), true / false;
// - unknown: the text does not parse (simdjson is strict RFC 8259, DuckDB's reader more lenient), a missing key
//   or index, JSON null, other numbers (DuckDB rewrites `2.50` as `2.5`), objects and arrays (DuckDB rewrites
//   their text), a key that appears twice in its object, an index that is not written canonically.
//
// Not thread-safe: one reader per decoder.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::format {

class JsonFieldReader {
 public:
  // `pointers` are RFC 6901 JSON pointers ("/a/0/b", with "~0" for '~' and "~1" for '/'), each starting with '/'.
  static Result<JsonFieldReader> Create(const std::vector<std::string>& pointers);

  JsonFieldReader(JsonFieldReader&&) noexcept;
  JsonFieldReader& operator=(JsonFieldReader&&) noexcept;
  ~JsonFieldReader();

  // out[i] is the text of pointer i, or nullopt for unknown. The views stay valid until the next Read.
  void Read(std::string_view json, std::vector<std::optional<std::string_view>>& out);

  size_t size() const;

 private:
  class Impl;
  explicit JsonFieldReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::format
