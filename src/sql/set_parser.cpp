// SET in its MySQL forms. Clients send these on connect (SET NAMES, SET autocommit=1, SET sql_mode=...), so every
// form a driver uses must parse; what a variable means is the session's business, not the parser's.
#include "common/ascii.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

using Assignment = SetVariables::Assignment;

constexpr std::string_view kLiteralValue = "a value (a number, a string, ON, OFF, TRUE, FALSE or DEFAULT)";

// A literal value as text: strings without their quotes, keywords upper-cased so the session can compare them.
Result<std::string> ParseLiteral(TokenStream& ts, bool* quoted = nullptr) {
  const Token& t = ts.Peek();
  std::string value;
  if (t.IsString()) {
    value = t.text;
    if (quoted) *quoted = true;
  } else if (t.kind == TokenKind::kNumber) {
    value = std::string(t.raw);
  } else if ((t.IsSymbol("-") || t.IsSymbol("+")) && ts.Peek(1).kind == TokenKind::kNumber) {
    ts.Next();
    value = (t.IsSymbol("-") ? "-" : "") + std::string(ts.Peek().raw);
  } else if (t.kind == TokenKind::kWord) {
    value = std::string(t.raw);
    for (std::string_view k : {"ON", "OFF", "DEFAULT", "TRUE", "FALSE", "NULL"}) {
      if (t.IsWord(k)) value = std::string(k);
    }
  } else if (t.kind == TokenKind::kQuotedIdent) {
    value = t.text;
  } else {
    return ts.Error(kLiteralValue);
  }
  ts.Next();
  return value;
}

// Whether the value starting at the next token is one literal token (then followed by ',' or the end).
bool IsLiteralValue(const TokenStream& ts) {
  const Token& t = ts.Peek();
  size_t next = (t.IsSymbol("-") || t.IsSymbol("+")) && ts.Peek(1).kind == TokenKind::kNumber ? 2 : 1;
  bool literal_token = t.IsString() || t.kind == TokenKind::kNumber || t.kind == TokenKind::kQuotedIdent ||
                       t.kind == TokenKind::kWord || next == 2;
  const Token& after = ts.Peek(next);
  return literal_token && (after.kind == TokenKind::kEnd || after.IsSymbol(","));
}

// A value: a literal, or an expression (`concat(@@sql_mode, ',STRICT_TRANS_TABLES')`, `@a + 1`) whose source
// text the session evaluates as SELECT <expression>. The expression ends at a ',' outside parentheses.
Status ParseValue(TokenStream& ts, Assignment& a) {
  if (ts.AtEnd()) return ts.Error(kLiteralValue);
  if (IsLiteralValue(ts)) {
    ASSIGN_OR_RETURN(a.value, ParseLiteral(ts, &a.string_literal));
    return Status::Ok();
  }
  // `SET a = 1 b = 2`: a value followed by a name is a missing comma, not an expression.
  const Token& after = ts.Peek(1);
  const Token& value = ts.Peek();
  if (after.kind == TokenKind::kWord && (value.IsString() || value.kind == TokenKind::kNumber)) {
    bool operator_word = false;
    for (std::string_view w : {"AND", "OR", "XOR", "NOT", "IS", "IN", "LIKE", "BETWEEN", "DIV", "MOD", "COLLATE",
                               "REGEXP", "RLIKE"})
      operator_word = operator_word || after.IsWord(w);
    if (!operator_word) {
      ts.Next();
      return ts.ErrorExpecting({"','", "end of statement"});
    }
  }
  const Token& first = ts.Peek();
  const Token* last = &first;
  int depth = 0;
  while (!ts.AtEnd() && !(depth == 0 && ts.PeekSymbol(","))) {
    if (ts.PeekSymbol("(")) ++depth;
    if (ts.PeekSymbol(")") && --depth < 0) return ts.Complain(ts.Peek(), "unbalanced ')' in the value");
    if (ts.Peek().kind == TokenKind::kInvalid) return ts.Error(kLiteralValue);
    last = &ts.Next();
  }
  if (depth != 0) return ts.Complain(ts.Peek(), "the value's '(' is not closed");
  a.value = std::string(ts.SourceText(first, *last));
  a.expression = true;
  return Status::Ok();
}

// SET NAMES charset [COLLATE collation] | SET CHARACTER SET charset | SET CHARSET charset.
Result<Statement> ParseCharset(TokenStream& ts, bool names) {
  SetVariables st;
  ASSIGN_OR_RETURN(std::string charset, ParseLiteral(ts));
  st.assignments.push_back(Assignment{names ? "names" : "charset", std::move(charset)});
  if (names && ts.AcceptWord("COLLATE")) {
    ASSIGN_OR_RETURN(std::string collation, ParseLiteral(ts));
    st.assignments.push_back(Assignment{"collation_connection", std::move(collation)});
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

// @@name, @@session.name, @@global.name, @@local.name.
Result<Assignment> SystemVariableName(TokenStream& ts, const Token& t) {
  std::string_view name = t.raw.substr(2);
  Assignment a;
  for (std::string_view scope : {"global.", "session.", "local.", "persist."}) {
    if (name.size() > scope.size() && EqualsIgnoreCase(name.substr(0, scope.size()), scope)) {
      a.global = scope == "global." || scope == "persist.";
      name.remove_prefix(scope.size());
      break;
    }
  }
  if (name.empty() || name.find('.') != std::string_view::npos) {
    return ts.ErrorAt(t, "a system variable such as @@autocommit or @@session.sql_mode");
  }
  a.name = AsciiLower(name);
  ts.Next();
  return a;
}

}  // namespace

Result<Statement> ParseSet(TokenStream& ts) {
  ts.Next();  // SET
  if (ts.AcceptWord("NAMES")) return ParseCharset(ts, true);
  if (ts.AcceptWords({"CHARACTER", "SET"}) || ts.AcceptWord("CHARSET")) return ParseCharset(ts, false);
  if (ts.PeekWord("PASSWORD") || ts.PeekWord("ROLE")) {
    return ts.NotSupportedAt(ts.Peek(), "SET " + AsciiUpper(ts.Peek().raw) + " is not supported");
  }
  SetVariables st;
  bool global_scope = false;  // a GLOBAL/SESSION keyword holds for the assignments after it, as in MySQL
  do {
    if (ts.AcceptWord("GLOBAL") || ts.AcceptWord("PERSIST") || ts.AcceptWord("PERSIST_ONLY")) {
      global_scope = true;
    } else if (ts.AcceptWord("SESSION") || ts.AcceptWord("LOCAL")) {
      global_scope = false;
    }
    const Token& t = ts.Peek();
    if (t.IsWord("TRANSACTION") && st.assignments.empty()) {
      // SET TRANSACTION ISOLATION LEVEL ... / READ ONLY: kept as one harmless assignment; DuckDB has one
      // isolation level.
      ts.Next();
      if (ts.AtEnd()) return ts.ErrorExpecting({"ISOLATION LEVEL", "READ WRITE", "READ ONLY"});
      const Token& from = ts.Peek();
      const Token* last = &from;
      while (!ts.AtEnd()) last = &ts.Next();
      st.assignments.push_back(Assignment{"transaction", std::string(ts.SourceText(from, *last)), global_scope});
      return Statement{std::move(st)};
    }
    Assignment a;
    if (t.kind == TokenKind::kVariable && t.raw.substr(0, 2) == "@@") {
      ASSIGN_OR_RETURN(a, SystemVariableName(ts, t));
    } else if (t.kind == TokenKind::kVariable) {
      // @name, @`name`, @'name': MySQL's user variables, named case-insensitively.
      std::string_view name = t.raw.substr(1);
      if (name.size() >= 2 && (name[0] == '`' || name[0] == '\'' || name[0] == '"'))
        name = name.substr(1, name.size() - 2);
      a.name = AsciiLower(name);
      a.user = true;
      ts.Next();
    } else if (t.IsIdentifier() && !t.text.empty()) {
      a.name = AsciiLower(t.text);
      a.global = global_scope;
      ts.Next();
    } else {
      return ts.Error("a variable name");
    }
    // DuckDB writes SET x TO v; MySQL has = and :=.
    if (!ts.AcceptSymbol("=") && !ts.AcceptSymbol(":=") && !ts.AcceptWord("TO")) {
      return ts.ErrorExpecting({"'='", "':='"});
    }
    RETURN_IF_ERROR(ParseValue(ts, a));
    st.assignments.push_back(std::move(a));
  } while (ts.AcceptSymbol(","));
  if (!ts.AtEnd()) return ts.ErrorExpecting({"','", "end of statement"});
  return Statement{std::move(st)};
}

}  // namespace sluice::sql
