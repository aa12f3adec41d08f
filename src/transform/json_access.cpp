#include "transform/json_access.h"

#include <charconv>

#include "sql/parser.h"
#include "transform/compiler.h"

namespace sluice::transform {

namespace {

std::string TextListAlias(size_t i) { return "__sluice_jt" + std::to_string(i); }
std::string JsonListAlias(size_t i) { return "__sluice_jv" + std::to_string(i); }

// A JSON pointer token as EmitSubscript builds it: a key with ~ and / escaped (RFC 6901), an index in decimal.
std::optional<std::string> PointerToken(const Expr& key) {
  if (key.kind != ExprKind::kLiteral) return std::nullopt;
  if (key.literal == LiteralKind::kString) {
    std::string out;
    for (char c : key.text) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
    return out;
  }
  if (key.literal == LiteralKind::kInteger) {
    int64_t index = 0;
    const char* end = key.text.data() + key.text.size();
    auto [at, error] = std::from_chars(key.text.data(), end, index);
    if (error != std::errc() || at != end || index < 0) return std::nullopt;
    return std::to_string(index);
  }
  return std::nullopt;
}

bool IsTextCast(const Expr& e) {
  if (e.kind != ExprKind::kCast || !e.cast_type.params.empty()) return false;
  const std::string& t = e.cast_type.name;
  return t == "STRING" || t == "VARCHAR" || t == "TEXT";
}

}  // namespace

std::optional<JsonRead> MatchJsonRead(const Expr& e) {
  std::vector<std::string> tokens;
  const Expr* at = &e;
  while (at->kind == ExprKind::kSubscript) {
    std::optional<std::string> token = PointerToken(*at->children[1]);
    if (!token) return std::nullopt;
    tokens.push_back(std::move(*token));
    at = at->children[0].get();
  }
  if (tokens.empty()) return std::nullopt;
  if (at->kind == ExprKind::kCall && (at->text == "parse_json" || at->text == "json_parse") &&
      at->children.size() == 1) {
    at = at->children[0].get();
    if (IsTextCast(*at)) at = at->children[0].get();
  }
  if (at->kind != ExprKind::kColumn) return std::nullopt;
  JsonRead read;
  read.base = at;
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) read.pointer += "/" + *it;
  return read;
}

std::optional<JsonReadPlan::Read> JsonReadPlan::Add(const std::string& column_sql, const std::string& pointer) {
  size_t s = 0;
  while (s < sources_.size() && sources_[s].column_sql != column_sql) s++;
  if (s == sources_.size()) sources_.push_back(Source{column_sql, {}});
  std::vector<std::string>& pointers = sources_[s].pointers;
  size_t p = 0;
  while (p < pointers.size() && pointers[p] != pointer) p++;
  if (p == pointers.size()) {
    if (pointers.size() >= kMaxSharedJsonPaths) return std::nullopt;
    pointers.push_back(pointer);
  }
  const std::string element = "[" + std::to_string(p + 1) + "]";
  Read read{JsonListAlias(s) + element, TextListAlias(s) + element};
  if (!decoded_column_sql_.empty() && column_sql == decoded_column_sql_) {
    size_t d = 0;
    while (d < decoded_pointers_.size() && decoded_pointers_[d] != pointer) d++;
    if (d == decoded_pointers_.size()) decoded_pointers_.push_back(pointer);
    // CASE, not COALESCE: DuckDB hoists a subexpression repeated across COALESCEs (the TRY_CAST) into a step
    // of its own that parses every row, but leaves the branches of a CASE to the rows that take them.
    const std::string decoded = DecodedJsonColumn(d);
    read.text_sql = "CASE WHEN " + decoded + " IS NOT NULL THEN " + decoded + " ELSE json_extract_string(TRY_CAST(" +
                    column_sql + " AS JSON), " + sql::QuoteLiteral(pointer) + ") END";
  }
  return read;
}

std::vector<std::string> JsonReadPlan::Columns() const {
  std::vector<std::string> out;
  for (size_t s = 0; s < sources_.size(); s++) {
    std::string list;
    for (const std::string& p : sources_[s].pointers) list += (list.empty() ? "" : ", ") + sql::QuoteLiteral(p);
    const std::string args = "TRY_CAST(" + sources_[s].column_sql + " AS JSON), [" + list + "]";
    out.push_back("json_extract_string(" + args + ") AS " + TextListAlias(s));
    out.push_back("json_extract(" + args + ") AS " + JsonListAlias(s));
  }
  return out;
}

}  // namespace sluice::transform
