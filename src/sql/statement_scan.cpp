#include "sql/statement_scan.h"

#include <cstdint>

#include "common/ascii.h"
#include "common/json_nesting.h"
#include "sql/lexer.h"
#include "sql/token_stream.h"

namespace sluice::sql {

namespace {

bool IsName(const Token& t) { return t.IsIdentifier(); }

// DuckDB's reserved keywords (duckdb_keywords(), category 'reserved'): unquoted, they never name a table or a
// function, so they are not kept as names. Skipping them keeps the scan of a bulk INSERT's NULLs and TRUEs small.
// Only reserved words may be here: an unreserved one (INSERT, VALUES, JOIN ...) can be a table's name.
bool IsPlainKeyword(const Token& t) {
  static const char* const kWords[] = {"NULL", "TRUE", "FALSE", "AND", "OR", "NOT", "AS", "IN", "ON", "CASE",
                                       "WHEN", "ELSE", "END", "DEFAULT", "ASC", "DESC", "SELECT", "FROM", "WHERE",
                                       "INTO", "GROUP", "ORDER", "LIMIT", "OFFSET", "HAVING", "UNION", "ALL",
                                       "DISTINCT", "WITH", "THEN", "USING", "CREATE", "TABLE"};
  for (const char* w : kWords)
    if (t.IsWord(w)) return true;
  return false;
}

// The chain starting at tokens[i]; advances i past it.
NameChain ReadChain(const std::vector<Token>& tokens, size_t& i) {
  NameChain chain;
  chain.parts.push_back(tokens[i].text);
  i++;
  while (i + 1 < tokens.size() && tokens[i].IsSymbol(".") && IsName(tokens[i + 1])) {
    chain.parts.push_back(tokens[i + 1].text);
    i += 2;
  }
  if (i < tokens.size() && tokens[i].IsSymbol("(")) {
    chain.called = true;
    if (i + 2 < tokens.size() && tokens[i + 1].kind == TokenKind::kString &&
        (tokens[i + 2].IsSymbol(")") || tokens[i + 2].IsSymbol(","))) {
      chain.first_argument = tokens[i + 1].text;
      chain.literal_argument = true;
    }
  }
  return chain;
}

// The name right after position i (skipping IF [NOT] EXISTS), as a chain, or empty.
std::vector<std::string> NameAt(const std::vector<Token>& tokens, size_t i) {
  if (i < tokens.size() && tokens[i].IsWord("IF")) {
    i++;
    if (i < tokens.size() && tokens[i].IsWord("NOT")) i++;
    if (i < tokens.size() && tokens[i].IsWord("EXISTS")) i++;
  }
  if (i >= tokens.size() || !IsName(tokens[i])) return {};
  return ReadChain(tokens, i).parts;
}

size_t Find(const std::vector<Token>& tokens, size_t from, std::string_view word) {
  for (size_t i = from; i < tokens.size(); i++)
    if (tokens[i].IsWord(word)) return i;
  return tokens.size();
}

void ReadHead(const std::vector<Token>& t, StatementScan& s) {
  size_t i = 0;
  if (t.empty()) return;
  s.verb = AsciiUpper(t[0].raw);
  if (s.verb == "EXPLAIN") {
    // EXPLAIN [ANALYZE] [(options)] <statement>: EXPLAIN ANALYZE runs it, so it is checked as that statement.
    i = 1;
    if (i < t.size() && t[i].IsWord("ANALYZE")) i++;
    if (i < t.size() && t[i].IsSymbol("(")) {
      int depth = 0;
      for (; i < t.size(); i++) {
        if (t[i].IsSymbol("(")) depth++;
        if (t[i].IsSymbol(")") && --depth == 0) {
          i++;
          break;
        }
      }
    }
    if (i >= t.size()) return;
    std::vector<Token> rest(t.begin() + static_cast<std::ptrdiff_t>(i), t.end());
    ReadHead(rest, s);
    return;
  }
  if (s.verb == "TRUNCATE") {
    size_t k = 1;
    if (k < t.size() && t[k].IsWord("TABLE")) k++;
    s.target = NameAt(t, k);
    return;
  }
  if (s.verb == "WITH") {
    // WITH ... INSERT/UPDATE/DELETE: the verb is the first of those at depth 0 after the CTEs.
    int depth = 0;
    for (size_t k = 1; k < t.size(); k++) {
      if (t[k].IsSymbol("(")) depth++;
      if (t[k].IsSymbol(")")) depth--;
      if (depth == 0 && (t[k].IsWord("INSERT") || t[k].IsWord("UPDATE") || t[k].IsWord("DELETE") ||
                         t[k].IsWord("MERGE") || t[k].IsWord("SELECT"))) {
        s.verb = AsciiUpper(t[k].raw);
        i = k;
        break;
      }
    }
  }
  auto after = [&](size_t k) { return NameAt(t, k); };
  if (s.verb == "INSERT" || s.verb == "REPLACE") {
    s.verb = "INSERT";
    size_t into = Find(t, i, "INTO");
    if (into < t.size()) s.target = after(into + 1);
  } else if (s.verb == "UPDATE") {
    s.target = after(i + 1);
  } else if (s.verb == "DELETE") {
    size_t from = Find(t, i, "FROM");
    if (from < t.size()) s.target = after(from + 1);
  } else if (s.verb == "MERGE") {
    size_t into = Find(t, i, "INTO");
    if (into < t.size()) s.target = after(into + 1);
    for (size_t k = i; k + 1 < t.size(); k++) {
      if (!t[k].IsWord("THEN")) continue;
      if (t[k + 1].IsWord("INSERT")) s.merge_inserts = true;
      if (t[k + 1].IsWord("UPDATE")) s.merge_updates = true;
      if (t[k + 1].IsWord("DELETE")) s.merge_deletes = true;
    }
  } else if (s.verb == "CREATE" || s.verb == "DROP" || s.verb == "ALTER" || s.verb == "COMMENT") {
    size_t k = 1;
    if (s.verb == "COMMENT" && k < t.size() && t[k].IsWord("ON")) k++;
    if (k + 1 < t.size() && t[k].IsWord("OR") && t[k + 1].IsWord("REPLACE")) k += 2;
    while (k < t.size() && (t[k].IsWord("TEMP") || t[k].IsWord("TEMPORARY") || t[k].IsWord("PERSISTENT") ||
                            t[k].IsWord("UNIQUE"))) {
      if (!t[k].IsWord("UNIQUE") && !t[k].IsWord("PERSISTENT")) s.temporary = true;
      k++;
    }
    if (k < t.size()) {
      s.object_kind = AsciiUpper(t[k].raw);
      if (s.object_kind == "FUNCTION") s.object_kind = "MACRO";
      s.target = after(k + 1);
    }
    if (s.verb == "CREATE" && s.object_kind == "TABLE") s.creates_from_query = Find(t, k, "AS") < t.size();
    if (s.verb == "CREATE" && s.object_kind == "INDEX") {
      size_t on = Find(t, k, "ON");
      if (on < t.size()) s.index_table = after(on + 1);
    }
  }
}

}  // namespace

Result<StatementScan> ScanStatement(std::string_view sql) {
  // Streams the tokens (a 30 MB INSERT is millions of them): the head is read from the first kHeadTokens, and
  // only chains of names are kept, not the literals between them.
  constexpr size_t kHeadTokens = 256;
  StatementScan scan;
  TokenReader reader(sql);
  std::vector<Token> head;
  bool merge = false;
  bool after_then = false;
  // A call's first argument: pending_call is the chain, stage 1 after '(' , stage 2 after a string.
  size_t pending_call = SIZE_MAX;
  int stage = 0;
  std::string pending_text;
  std::vector<std::string> chain;  // the names of the chain being read
  bool chain_wants_name = false;   // just read a '.' after a name
  auto finish_chain = [&](bool called) {
    if (chain.empty()) return;
    scan.names.push_back(NameChain{chain, called, "", false});
    if (called) {
      pending_call = scan.names.size() - 1;
      stage = 1;
    }
    chain.clear();
  };
  bool after_from = false;
  bool after_dot = false;  // the previous token was '.'
  // REVOKE ... FROM 'u'@'%': the account after FROM is not a file (REVOKE is Sluice's own, never DuckDB's).
  bool revoke = false;
  std::vector<bool> paren_is_call;  // per open parenthesis: whether it opened a call
  for (Token t = reader.Next(); t.kind != TokenKind::kEnd; t = reader.Next()) {
    if (t.kind == TokenKind::kInvalid) return TokenStream(sql, {}).ErrorAt(t, "");  // the parser's wording
    if (head.size() < kHeadTokens) head.push_back(t);
    if (head.size() == 1 && t.IsWord("MERGE")) merge = true;
    if (head.size() == 1 && t.IsWord("REVOKE")) revoke = true;
    if (merge && after_then) {
      if (t.IsWord("INSERT")) scan.merge_inserts = true;
      if (t.IsWord("UPDATE")) scan.merge_updates = true;
      if (t.IsWord("DELETE")) scan.merge_deletes = true;
    }
    after_then = t.IsWord("THEN");
    // FROM inside a function's parentheses is syntax (EXTRACT(YEAR FROM '...'), TRIM('x' FROM s)), not a table.
    bool in_call = !paren_is_call.empty() && paren_is_call.back();
    if (after_from && !revoke && (t.kind == TokenKind::kString || t.kind == TokenKind::kDollarString))
      scan.reads_file_by_name = true;
    after_from = (t.IsWord("FROM") || t.IsWord("JOIN")) && !in_call;
    if (t.IsSymbol("(")) paren_is_call.push_back(!chain.empty() && !chain_wants_name);
    if (t.IsSymbol(")") && !paren_is_call.empty()) paren_is_call.pop_back();
    if (stage == 1 && t.IsWord("VOLUME") && AsciiLower(scan.names[pending_call].parts.back()) == "directory") {
      // DIRECTORY(VOLUME vol): the name follows.
    } else if (stage == 1) {
      // A lone string or name: f('x') or DIRECTORY(vol).
      stage = t.kind == TokenKind::kString || IsName(t) ? 2 : 0;
      pending_text = t.text;
    } else if (stage == 2) {
      if (t.IsSymbol(")") || t.IsSymbol(",")) {
        scan.names[pending_call].first_argument = pending_text;
        scan.names[pending_call].literal_argument = true;
      }
      stage = 0;
    }
    bool name = IsName(t) && !(t.kind == TokenKind::kWord && IsPlainKeyword(t));
    if ((IsName(t) || t.kind == TokenKind::kDoubleQuoted) && after_dot &&
        IsNestingGuardedJsonFunction(AsciiLower(t.text)) && scan.dotted_json_call.empty())
      scan.dotted_json_call = t.text;
    after_dot = t.IsSymbol(".");
    if (name && (chain.empty() || chain_wants_name)) {
      chain.push_back(t.text);
      chain_wants_name = false;
      continue;
    }
    if (!chain.empty() && !chain_wants_name && t.IsSymbol(".")) {
      chain_wants_name = true;
      continue;
    }
    chain_wants_name = false;
    finish_chain(t.IsSymbol("("));
    if (name) chain.push_back(t.text);  // a name right after a chain (t alias): a chain of its own
  }
  finish_chain(false);
  bool inserts = scan.merge_inserts, updates = scan.merge_updates, deletes = scan.merge_deletes;
  ReadHead(head, scan);
  scan.merge_inserts |= inserts;
  scan.merge_updates |= updates;
  scan.merge_deletes |= deletes;
  return scan;
}

}  // namespace sluice::sql
