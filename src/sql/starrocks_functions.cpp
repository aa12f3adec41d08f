#include "sql/starrocks_functions.h"

#include <string>

namespace sluice::sql {

namespace {

// StarRocks reads a path without '$' under the root ('a.b' is '$.a.b'); '/a/b' is a JSON pointer. A constant
// path folds to a constant, so DuckDB still parses it once per query.
const char* kPath = "CASE WHEN left(p, 1) IN ('$', '/') THEN p ELSE '$.' || p END";
// Text that is not JSON gives NULL, as the load functions do (TRY_CAST); ARRAY and MAP values become their JSON.
const char* kDoc = "TRY_CAST(j AS JSON)";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// `@D` and `@P` in a body stand for the document and the path.
std::string Body(const std::string& text) { return Replace(Replace(text, "@D", kDoc), "@P", kPath); }

std::string JsonLengthBody(const std::string& path) {
  return Replace(Body("CAST(CASE json_type(@D, @@) WHEN 'ARRAY' THEN json_array_length(@D, @@) WHEN 'OBJECT' THEN "
                      "len(json_keys(@D, @@)) ELSE CASE WHEN @D IS NULL THEN NULL WHEN json_exists(@D, @@) THEN 1 "
                      "ELSE 0 END END AS INTEGER)"),
                 "@@", path);
}

}  // namespace

const std::vector<std::string_view>& StarRocksFunctionNames() {
  static const std::vector<std::string_view> names = {"json_query",      "json_length",  "json_unquote",
                                                      "get_json_string", "get_json_int", "get_json_double"};
  return names;
}

const std::vector<std::string>& StarRocksFunctionMacros() {
  static const std::string unquote_text = "CAST(s AS VARCHAR)";
  static const std::vector<std::string> statements = {
      "CREATE OR REPLACE TEMP MACRO json_query(j, p) AS " + Body("json_extract(@D, @P)"),
      "CREATE OR REPLACE TEMP MACRO json_length(j) AS " + JsonLengthBody("'$'") + ", (j, p) AS " +
          JsonLengthBody(kPath),
      "CREATE OR REPLACE TEMP MACRO json_unquote(s) AS CASE WHEN " + unquote_text +
          " LIKE '\"%\"' THEN coalesce(json_extract_string(TRY_CAST(" + unquote_text + " AS JSON), '$'), " +
          unquote_text + ") ELSE " + unquote_text + " END",
      "CREATE OR REPLACE TEMP MACRO get_json_string(j, p) AS " + Body("json_extract_string(@D, @P)"),
      "CREATE OR REPLACE TEMP MACRO get_json_int(j, p) AS " + Body("TRY_CAST(json_extract_string(@D, @P) AS BIGINT)"),
      "CREATE OR REPLACE TEMP MACRO get_json_double(j, p) AS " +
          Body("TRY_CAST(json_extract_string(@D, @P) AS DOUBLE)"),
  };
  return statements;
}

}  // namespace sluice::sql
