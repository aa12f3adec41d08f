// Column types of both dialects. Names are kept as written (upper-cased): mapping INTEGER and INT, or STRING and
// VARCHAR, onto one storage type is the catalog's decision, and SHOW CREATE TABLE can echo what the user wrote.
#include <array>
#include <string_view>

#include "common/ascii.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

struct ScalarType {
  std::string_view name;
  size_t max_params;  // bigint(20): display width; varchar(26): length; decimal(10,2): precision and scale
};

// Also the few names MySQL and DuckDB users bring along (TEXT, REAL, BLOB, TIME, UUID); the catalog maps them.
constexpr std::array<ScalarType, 38> kScalarTypes = {{
    {"TINYINT", 1},     {"SMALLINT", 1},      {"INT", 1},           {"INTEGER", 1},    {"BIGINT", 1},
    {"LARGEINT", 1},    {"FLOAT", 0},         {"DOUBLE", 0},        {"DECIMAL", 2},    {"DECIMALV2", 2},
    {"DECIMALV3", 2},   {"DECIMAL32", 2},     {"DECIMAL64", 2},     {"DECIMAL128", 2}, {"DECIMAL256", 2},
    {"NUMERIC", 2},     {"BOOLEAN", 0},       {"BOOL", 0},          {"CHAR", 1},       {"VARCHAR", 1},
    {"STRING", 0},      {"BINARY", 1},        {"VARBINARY", 1},     {"DATE", 0},       {"DATETIME", 1},
    {"TIMESTAMP", 1},   {"TIMESTAMP_LTZ", 1}, {"TIMESTAMP_NTZ", 1}, {"JSON", 0},       {"JSONB", 0},
    {"BITMAP", 0},      {"HLL", 0},           {"PERCENTILE", 0},    {"TEXT", 0},       {"REAL", 0},
    {"BLOB", 0},        {"TIME", 1},          {"UUID", 0},
}};

constexpr std::string_view kTypeExamples =
    "a column type (INT, BIGINT, DOUBLE, DECIMAL(p,s), VARCHAR(n), STRING, DATE, DATETIME, TIMESTAMP, BOOLEAN, "
    "JSON, ARRAY<T>, MAP<K,V> or STRUCT<name T, ...>)";

const ScalarType* FindScalar(std::string_view upper) {
  for (const ScalarType& t : kScalarTypes) {
    if (t.name == upper) return &t;
  }
  return nullptr;
}

Status ParseParams(TokenStream& ts, const ScalarType& scalar, TypeSpec* type) {
  if (!ts.PeekSymbol("(")) return Status::Ok();
  if (scalar.max_params == 0) {
    return ts.Error("no '(' after " + type->name + ": this type takes no length or precision");
  }
  ts.Next();
  do {
    if (type->params.size() == scalar.max_params) {
      return ts.Error("')': " + type->name + " takes at most " + std::to_string(scalar.max_params) +
                      (scalar.max_params == 1 ? " parameter" : " parameters"));
    }
    ASSIGN_OR_RETURN(int64_t p, ts.ExpectInteger("a non-negative integer"));
    type->params.push_back(p);
  } while (ts.AcceptSymbol(","));
  return ts.ExpectSymbol(")");
}

}  // namespace

Result<TypeSpec> ParseType(TokenStream& ts, int depth) {
  if (depth >= kMaxNestingDepth) {
    return ts.Error("a simpler type: types nest at most " + std::to_string(kMaxNestingDepth) + " levels deep");
  }
  const Token& t = ts.Peek();
  if (t.kind != TokenKind::kWord) return ts.Error(kTypeExamples);
  TypeSpec type;
  type.name = AsciiUpper(t.raw);

  if (type.name == "ARRAY" || type.name == "MAP" || type.name == "STRUCT") {
    ts.Next();
    RETURN_IF_ERROR(ts.ExpectSymbol("<"));
    if (type.name == "STRUCT") {
      do {
        ASSIGN_OR_RETURN(std::string field, ts.ExpectIdentifier("a field name"));
        ts.AcceptSymbol(":");  // Lakehouse writes struct<a:int>, StarRocks struct<a int>
        ASSIGN_OR_RETURN(TypeSpec child, ParseType(ts, depth + 1));
        if (ts.AcceptWord("COMMENT")) {
          // Field comments have no place in TypeSpec; they are accepted so StarRocks DDL copies over as is.
          if (auto comment = ts.ExpectString("a comment string"); !comment.ok()) return comment.status();
        }
        type.field_names.push_back(std::move(field));
        type.children.push_back(std::move(child));
      } while (ts.AcceptSymbol(","));
    } else {
      ASSIGN_OR_RETURN(TypeSpec first, ParseType(ts, depth + 1));
      type.children.push_back(std::move(first));
      if (type.name == "MAP") {
        RETURN_IF_ERROR(ts.ExpectSymbol(","));
        ASSIGN_OR_RETURN(TypeSpec value, ParseType(ts, depth + 1));
        type.children.push_back(std::move(value));
      }
    }
    if (!ts.AcceptSymbol(">")) {
      return type.name == "STRUCT" ? ts.ErrorExpecting({"','", "'>'"}) : ts.Error("'>'");
    }
    return type;
  }

  const ScalarType* scalar = FindScalar(type.name);
  if (scalar == nullptr) return ts.Error(kTypeExamples);
  ts.Next();
  RETURN_IF_ERROR(ParseParams(ts, *scalar, &type));
  return type;
}

}  // namespace sluice::sql
