#pragma once
// One JSON parse per row for all of an expression list's constant-path reads of the same text column.
//
// `PARSE_JSON(value::STRING)['a']['b']` alone compiles to `json_extract(TRY_CAST(value AS JSON), '/a/b')`, and
// its `::STRING` to `json_extract_string(<that>, '$')`: DuckDB parses the message for every such read (twice
// with the TRY_CAST), so a pipe reading five fields parsed each message about ten times. Instead, every read
// with a constant path of one text column is registered here, and one step of the SELECT extracts them all at
// once with DuckDB's list forms, which parse the text once:
//   json_extract_string(TRY_CAST(col AS JSON), ['/a/b', '/c']) AS __sluice_jt0   -- the values as text
//   json_extract(TRY_CAST(col AS JSON), ['/a/b', '/c'])        AS __sluice_jv0   -- the values as JSON
// A read becomes `__sluice_jv0[1]` (JSON) whose text is `__sluice_jt0[1]` (TypedSql::json_text); DuckDB drops
// the list no expression uses. The values are DuckDB's own, element for element, so results do not change:
// a missing key or index, text that is not JSON and NULL text give NULL, as before.
//
// Which reads take this path (MatchJsonRead): a chain of subscripts whose keys are string literals or
// non-negative integer literals, over PARSE_JSON/JSON_PARSE of a text column (optionally `::STRING` /
// `CAST(... AS VARCHAR)`), or over the text column itself. Anything else (a computed key, a negative index,
// JSON functions such as get_json_string, PARSE_JSON of an expression) compiles as before.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "transform/expression.h"

namespace sluice::transform {

// Keeps the SQL bounded: reads beyond this many per column compile on their own.
inline constexpr size_t kMaxSharedJsonPaths = 256;

// The shape of a read, before its base is compiled.
struct JsonRead {
  const Expr* base = nullptr;  // the text the JSON is parsed from (the PARSE_JSON argument, or the column)
  std::string pointer;         // the JSON pointer of the whole chain, e.g. "/a/0/b"
};

// A constant-path read, or nullopt. `e` is the outermost subscript of the chain.
std::optional<JsonRead> MatchJsonRead(const Expr& e);

class JsonReadPlan {
 public:
  struct Source {
    std::string column_sql;             // the text column, as the SELECT names it (e.g. __sluice_r7)
    std::vector<std::string> pointers;  // in order of first use
  };

  // The SQL of the read's value as JSON and as text (what json_extract_string(json, '$') gives), or nullopt
  // when the column already has kMaxSharedJsonPaths paths.
  struct Read {
    std::string json_sql;
    std::string text_sql;
  };
  std::optional<Read> Add(const std::string& column_sql, const std::string& pointer);

  // Reads of this column (its SQL) get their text from the decoder where it has it (TransformSpec::
  // decoded_json_source): the decoded column where it is not NULL, else json_extract_string(TRY_CAST(col AS
  // JSON), pointer), so DuckDB parses only the messages holding a value the decoder left to it.
  void SetDecodedColumn(std::string column_sql) { decoded_column_sql_ = std::move(column_sql); }
  const std::vector<std::string>& decoded_pointers() const { return decoded_pointers_; }

  bool empty() const { return sources_.empty(); }
  // The extraction step's columns: two lists per text column (see above).
  std::vector<std::string> Columns() const;

 private:
  std::vector<Source> sources_;
  std::string decoded_column_sql_;
  std::vector<std::string> decoded_pointers_;
};

}  // namespace sluice::transform
