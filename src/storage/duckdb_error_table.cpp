#include "storage/duckdb_error_table.h"

#include <regex>
#include <string_view>
#include <vector>

namespace sluice::storage {

namespace {

// MySQL's names for DuckDB's physical integer types, as "Out of range value" messages use them.
std::string MysqlTypeName(const std::string& duck) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"INT8", "TINYINT"},           {"INT16", "SMALLINT"},          {"INT32", "INT"},
      {"INT64", "BIGINT"},           {"INT128", "LARGEINT"},         {"UINT8", "TINYINT UNSIGNED"},
      {"UINT16", "SMALLINT UNSIGNED"}, {"UINT32", "INT UNSIGNED"},   {"UINT64", "BIGINT UNSIGNED"},
      {"TINYINT", "TINYINT"},        {"SMALLINT", "SMALLINT"},       {"INTEGER", "INT"},
      {"BIGINT", "BIGINT"},          {"HUGEINT", "LARGEINT"},        {"VARCHAR", "CHAR"},
      {"DOUBLE", "DOUBLE"},          {"FLOAT", "FLOAT"},             {"DATE", "DATE"},
      {"TIMESTAMP", "DATETIME"},     {"BOOL", "BOOLEAN"},            {"BOOLEAN", "BOOLEAN"}};
  for (const auto& [d, m] : kNames) {
    if (duck == d) return m;
  }
  return duck;
}

// One row: a DuckDB message (its first line, decorations cut) and what the client gets instead. `format` uses
// $1..$9 for the pattern's groups, and $T1..$T9 for a group read as a DuckDB type name shown as MySQL's.
struct Row {
  std::regex pattern;
  StatusCode code;
  std::string format;
};

const std::vector<Row>& Table() {
  static const std::vector<Row> rows = [] {
    auto r = [](const char* p, StatusCode c, const char* f) { return Row{std::regex(p), c, f}; };
    return std::vector<Row>{
        // ---- catalog: 1146, 1049, 1305
        r(R"re(^Table with name (\S+) does not exist.*)re", StatusCode::kUnknownTable, "Table '$1' doesn't exist"),
        r(R"re(^Table or view with name (\S+) does not exist.*)re", StatusCode::kUnknownTable, "Table '$1' doesn't exist"),
        r(R"re(^View with name (\S+) does not exist.*)re", StatusCode::kUnknownTable, "Table '$1' doesn't exist"),
        r(R"re(^Schema with name (\S+) does not exist.*)re", StatusCode::kUnknownDatabase, "Unknown database '$1'"),
        r(R"re(^(?:Scalar|Aggregate|Table|Pragma) Function with name (\S+) does not exist.*)re", StatusCode::kNotFound,
          "FUNCTION $1 does not exist"),
        r(R"re(^Macro Function with name (\S+) does not exist.*)re", StatusCode::kNotFound, "FUNCTION $1 does not exist"),
        // ---- binder: 1054, 1052, 1055
        r(R"re(^Referenced column "?(.+?)"? not found in FROM clause.*)re", StatusCode::kUnknownColumn,
          "Unknown column '$1' in 'field list'"),
        r(R"re(^Referenced column "?(.+?)"? not found.*)re", StatusCode::kUnknownColumn, "Unknown column '$1'"),
        r(R"re(^Referenced update column "?(.+?)"? not found in table.*)re", StatusCode::kUnknownColumn,
          "Unknown column '$1' in 'field list'"),
        r(R"re(^Table "(.+?)" does not have a column named "(.+?)".*)re", StatusCode::kUnknownColumn,
          "Unknown column '$1.$2' in 'field list'"),
        r(R"re(^Referenced table "(.+?)" not found.*)re", StatusCode::kUnknownColumn,
          "Unknown table '$1' in field list"),
        r(R"re(^Ambiguous reference to column name "(.+?)" \(use: (.+)\).*)re", StatusCode::kInvalidArgument,
          "Column '$1' in field list is ambiguous: qualify it ($2)"),
        r(R"re(^column "(.+?)" must appear in the GROUP BY clause.*)re", StatusCode::kInvalidArgument,
          "Expression '$1' isn't in GROUP BY: add it to the GROUP BY list, or use ANY_VALUE($1)"),
        // ---- constraints: 1062, 1048
        r(R"re(^Duplicate key "[^:"]+: ([^,"]*)" violates (?:primary key|unique) constraint.*)re",
          StatusCode::kAlreadyExists, "Duplicate entry '$1' for key 'PRIMARY'"),
        r(R"re(^Duplicate key "(.+)" violates (?:primary key|unique) constraint.*)re", StatusCode::kAlreadyExists,
          "Duplicate entry '$1' for key 'PRIMARY'"),
        r(R"re(^PRIMARY KEY or UNIQUE constraint violation: duplicate key "(.*)".*)re", StatusCode::kAlreadyExists,
          "Duplicate entry '$1' for key 'PRIMARY'"),
        r(R"re(^NOT NULL constraint failed: (?:.+\.)?(.+))re", StatusCode::kInvalidArgument, "Column '$1' cannot be null"),
        // ---- date_format / str_to_date / from_unixtime / unix_timestamp with a format that is not a constant
        r(R"re(^(?:strftime|strptime) format must be a constant.*)re", StatusCode::kNotSupported,
          "the date format of date_format, str_to_date, from_unixtime and unix_timestamp must be a constant string "
          "in a query, e.g. date_format(d, '%Y-%m-%d')"),
        // ---- values: 1264, 1690, 1366
        r(R"re(^Type (\w+) with value (.+?) can't be cast because the value is out of range for the destination type (\w+) when casting from source column (.+))re",
          StatusCode::kOutOfRange, "Out of range value for column '$4': $2 does not fit in $T3"),
        r(R"re(^Type (\w+) with value (.+?) can't be cast because the value is out of range for the destination type (\w+).*)re",
          StatusCode::kOutOfRange, "Out of range value: $2 does not fit in $T3"),
        r(R"re(^Could not cast value (.+?) to (\w+)(?: when casting from source column (.+))?.*)re", StatusCode::kOutOfRange,
          "Out of range value: $1 does not fit in $T2"),
        r(R"re(^Overflow in (\w+) of (\w+) \((.+)\).*)re", StatusCode::kOutOfRange,
          "$T2 value is out of range in '$3' ($1 overflow)"),
        r(R"re(^Could not convert string '(.*)' to (\w+) when casting from source column (.+))re",
          StatusCode::kInvalidArgument, "Incorrect $T2 value: '$1' for column '$3'"),
        // A CAST or a comparison in a statement: MySQL's 1292, which its strict mode raises in writes (and MySQL
        // turns into a warning and a 0 in queries, which Sluice cannot: docs/clients.md).
        r(R"re(^Could not convert string '(.*)' to U?INT(?:8|16|32|64|128)\b.*)re", StatusCode::kInvalidArgument,
          "Truncated incorrect INTEGER value: '$1'"),
        r(R"re(^Could not convert string '(.*)' to (?:DOUBLE|FLOAT)\b.*)re", StatusCode::kInvalidArgument,
          "Truncated incorrect DOUBLE value: '$1'"),
        r(R"re(^Could not convert string '(.*)' to (\w+).*)re", StatusCode::kInvalidArgument, "Incorrect $T2 value: '$1'"),
    };
  }();
  return rows;
}

std::string Expand(const std::string& format, const std::smatch& m) {
  std::string out;
  for (size_t i = 0; i < format.size(); i++) {
    const bool typed = format[i] == '$' && i + 2 < format.size() && format[i + 1] == 'T' &&
                       format[i + 2] >= '1' && format[i + 2] <= '9';
    if (typed) {
      out += MysqlTypeName(m[format[i + 2] - '0'].str());
      i += 2;
    } else if (format[i] == '$' && i + 1 < format.size() && format[i + 1] >= '1' && format[i + 1] <= '9') {
      out += m[format[i + 1] - '0'].str();
      i += 1;
    } else {
      out.push_back(format[i]);
    }
  }
  return out;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// DuckDB's context block: "LINE 3: <text of the line, maybe cut with ...>" and a caret line under the error.
struct Context {
  int line = 0;
  std::string near;  // the line's text from the error on
};

Context ReadContext(const std::string& message) {
  Context c;
  size_t at = message.find("\nLINE ");
  if (at == std::string::npos) return c;
  size_t colon = message.find(": ", at);
  size_t eol = message.find('\n', at + 1);
  if (colon == std::string::npos || eol == std::string::npos || colon > eol) return c;
  c.line = std::atoi(message.substr(at + 6, colon - at - 6).c_str());
  const size_t prefix = colon + 2 - (at + 1);  // width of "LINE n: "
  std::string text = message.substr(colon + 2, eol - colon - 2);
  size_t caret_eol = message.find('\n', eol + 1);
  std::string caret_line = message.substr(eol + 1, caret_eol == std::string::npos ? std::string::npos : caret_eol - eol - 1);
  size_t caret = caret_line.find('^');
  if (caret == std::string::npos || caret < prefix) return c;
  size_t from = caret - prefix;
  if (from > text.size()) from = text.size();
  c.near = text.substr(from);
  if (c.near.size() >= 3 && c.near.compare(c.near.size() - 3, 3, "...") == 0) c.near.resize(c.near.size() - 3);
  return c;
}

// MySQL's ER_PARSE_ERROR wording, with where it happened as MySQL shows it (the text from the error on).
Status SyntaxError(const std::string& message) {
  Context c = ReadContext(message);
  std::string near = c.near;
  if (near.size() > 80) near = near.substr(0, 80);
  std::string what = WithoutDuckDBDecorations(message);
  // "syntax error at or near "x"" / "syntax error at end of input" say nothing MySQL's wording does not.
  std::string detail;
  if (!StartsWith(what, "syntax error at")) detail = " (" + what + ")";
  return Status::SyntaxError(
      "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for "
      "the right syntax to use near '" + near + "' at line " + std::to_string(c.line > 0 ? c.line : 1) + detail);
}

}  // namespace

std::string WithoutDuckDBDecorations(const std::string& message) {
  std::string out = message;
  // Everything from the context block on is DuckDB's presentation (and may quote generated SQL).
  for (const char* cut : {"\nLINE ", "\nCandidate bindings", "\nDid you mean", "\n\tCandidate functions",
                          "\nCandidate functions", "\nCandidates:", " Did you mean"}) {
    size_t at = out.find(cut);
    if (at != std::string::npos) out.resize(at);
  }
  size_t at = out.find("\n\nCandidate bindings");
  if (at != std::string::npos) out.resize(at);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\t')) out.pop_back();
  // "... does not exist!" -> "... does not exist"
  if (!out.empty() && out.back() == '!') out.pop_back();
  return out;
}

// "Table 't1' doesn't exist" names the table as the statement wrote it ('db1.t1') when DuckDB's caret points at
// that name: the context names the schema DuckDB's message leaves out.
std::string QualifiedAsWritten(const std::string& message, const std::string& worded) {
  const size_t open = worded.find('\'');
  const size_t close = open == std::string::npos ? std::string::npos : worded.find('\'', open + 1);
  if (close == std::string::npos) return worded;
  const std::string name = worded.substr(open + 1, close - open - 1);
  std::string near = ReadContext(message).near;
  size_t end = 0;
  while (end < near.size() && (IsNameChar(near[end]) || near[end] == '.' || near[end] == '"' || near[end] == '`')) end++;
  std::string written;
  for (char c : near.substr(0, end)) {
    if (c != '"' && c != '`') written.push_back(c);
  }
  if (written.size() <= name.size() || written.compare(written.size() - name.size(), name.size(), name) != 0 ||
      written[written.size() - name.size() - 1] != '.')
    return worded;
  return worded.substr(0, open + 1) + written + worded.substr(close);
}

Status MysqlStatusFromDuckDB(DuckDBErrorClass cls, const std::string& message, StatusCode fallback) {
  if (cls == DuckDBErrorClass::kParser) return SyntaxError(message);
  const std::string text = WithoutDuckDBDecorations(message);
  const std::string first_line = text.substr(0, text.find('\n'));
  if (first_line.size() <= 4096) {
    std::smatch m;
    for (const Row& row : Table()) {
      if (!std::regex_match(first_line, m, row.pattern)) continue;
      std::string worded = Expand(row.format, m);
      if (row.code == StatusCode::kUnknownTable) worded = QualifiedAsWritten(message, worded);
      return Status(row.code, std::move(worded));
    }
  }
  return Status(fallback, text);
}

}  // namespace sluice::storage
