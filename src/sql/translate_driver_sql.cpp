#include "sql/translate_driver_sql.h"

#include <vector>

#include "sql/time_format_parts.h"

namespace sluice::sql {

namespace {

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Splits `args` at top-level commas; nullopt for unbalanced text.
std::optional<std::vector<std::string_view>> TopLevelArguments(std::string_view args) {
  std::vector<Token> tokens = Tokenize(args);
  std::vector<std::string_view> out;
  size_t depth = 0, start = 0;
  bool any = false;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::kInvalid) return std::nullopt;
    if (t.kind == TokenKind::kEnd) break;
    if (t.IsSymbol("(") || t.IsSymbol("[") || t.IsSymbol("{")) depth++;
    if (t.IsSymbol(")") || t.IsSymbol("]") || t.IsSymbol("}")) {
      if (depth == 0) return std::nullopt;
      depth--;
    }
    if (depth == 0 && t.IsSymbol(",")) {
      out.push_back(Trimmed(args.substr(start, t.offset - start)));
      start = t.end();
      continue;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  out.push_back(Trimmed(args.substr(start)));
  return out;
}

// The DuckDB type for a MySQL CONVERT/CAST target written as text ("UNSIGNED INTEGER", "CHAR", "SIGNED").
std::optional<std::string> TargetType(std::string_view text) {
  std::vector<Token> tokens = Tokenize(text);
  std::vector<const Token*> words;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::kEnd) break;
    words.push_back(&t);
  }
  if (words.empty()) return std::nullopt;
  const Token& first = *words[0];
  if (std::optional<std::string> t = CastTypeFor(first)) {
    if (words.size() == 1 || (words.size() == 2 && (words[1]->IsWord("INTEGER") || words[1]->IsWord("INT"))))
      return t;
    return std::nullopt;
  }
  if (words.size() == 1 && (first.IsWord("CHAR") || first.IsWord("NCHAR"))) return std::string("VARCHAR");
  if (first.IsWord("DATETIME")) return std::string("TIMESTAMP");
  // DATE, DECIMAL(p, s), DOUBLE, TIME ...: DuckDB reads them as MySQL writes them.
  if (first.kind == TokenKind::kWord) return std::string(text);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> RewriteStrToDate(const Token& name, std::string_view args, const SessionContext& session) {
  (void)name;
  std::optional<std::vector<std::string_view>> split = TopLevelArguments(args);
  if (!split || split->size() != 2) return std::nullopt;
  std::vector<Token> format = Tokenize((*split)[1]);
  const bool literal = !format.empty() &&
                       (format[0].kind == TokenKind::kString || format[0].kind == TokenKind::kDoubleQuoted) &&
                       (format.size() == 1 || format[1].kind == TokenKind::kEnd);
  if (!literal) return std::nullopt;
  const TimeFormatParts parts = PartsOfTimeFormat(format[0].text);
  const char* type = !parts.time_of_day ? "DATE" : !parts.date ? "TIME" : nullptr;
  if (type == nullptr) return std::nullopt;
  return "CAST(str_to_date(" + TranslateForDuckDB((*split)[0], session) + ", " + QuoteLiteral(format[0].text) +
         ") AS " + type + ")";
}

bool IsDriverCall(const Token& t) { return t.IsWord("CONVERT") || t.IsWord("LOCATE"); }

std::optional<std::string> RewriteDriverCall(const Token& name, std::string_view args, const SessionContext& session) {
  std::optional<std::vector<std::string_view>> split = TopLevelArguments(args);
  if (!split) return std::nullopt;
  const auto& a = *split;
  if (name.IsWord("CONVERT")) {
    if (a.size() != 2) return std::nullopt;  // CONVERT(x USING utf8mb4) and others pass through
    std::optional<std::string> type = TargetType(a[1]);
    if (!type) return std::nullopt;
    return "CAST(" + TranslateForDuckDB(a[0], session) + " AS " + *type + ")";
  }
  if (name.IsWord("LOCATE")) {
    // MySQL counts from 1 and answers 0 when absent, as strpos does.
    if (a.size() == 2)
      return "strpos(" + TranslateForDuckDB(a[1], session) + ", " + TranslateForDuckDB(a[0], session) + ")";
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> CastTypeFor(const Token& t) {
  if (t.IsWord("SIGNED")) return std::string("BIGINT");
  if (t.IsWord("UNSIGNED")) return std::string("UBIGINT");
  return std::nullopt;
}

bool NeedsExplicitAlias(const Token& t) {
  for (std::string_view w : {"TYPE", "NAME", "VALUE", "KEY", "POSITION", "DATA", "COMMENT", "LEVEL", "USER",
                             "PASSWORD", "ROLE", "INDEX"}) {
    if (t.IsWord(w)) return true;
  }
  return false;
}

}  // namespace sluice::sql
