// ParseStatement: finds which statement family the text belongs to. Sluice's own statements are parsed here or in
// the *_parser.cpp files; everything else is handed to DuckDB after TranslateForDuckDB.
#include "sql/parser.h"

#include "sql/routine_load_parser.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

PassThrough MakePassThrough(const TokenStream& ts, const SessionContext& session) {
  std::string_view sql = ts.sql();
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!sql.empty() && space(sql.front())) sql.remove_prefix(1);
  while (!sql.empty() && space(sql.back())) sql.remove_suffix(1);
  return PassThrough{TranslateForDuckDB(sql, session)};
}

Result<Statement> ParseCreateDatabase(TokenStream& ts) {
  ts.Next();  // CREATE
  ts.Next();  // DATABASE | SCHEMA
  CreateDatabase st;
  st.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a database name"));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ParseDropDatabase(TokenStream& ts) {
  ts.Next();  // DROP
  ts.Next();  // DATABASE | SCHEMA
  DropDatabase st;
  st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a database name"));
  st.force = ts.AcceptWord("FORCE");
  if (!ts.AtEnd()) return ts.ErrorExpecting({"FORCE", "end of statement"});
  return Statement{std::move(st)};
}

Result<Statement> ParseDropTable(TokenStream& ts) {
  ts.Next();  // DROP
  ts.Next();  // TABLE
  DropTable st;
  st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(st.table, ts.ExpectQualifiedName("a table name"));
  st.force = ts.AcceptWord("FORCE");
  if (!ts.AtEnd()) return ts.ErrorExpecting({"FORCE", "end of statement"});
  return Statement{std::move(st)};
}

// UNDROP TABLE t, or StarRocks' own spelling RECOVER TABLE t.
Result<Statement> ParseUndropTable(TokenStream& ts) {
  ts.Next();  // UNDROP | RECOVER
  RETURN_IF_ERROR(ts.ExpectWord("TABLE"));
  UndropTable st;
  ASSIGN_OR_RETURN(st.table, ts.ExpectQualifiedName("a table name"));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ParseUse(TokenStream& ts) {
  ts.Next();  // USE
  UseDatabase st;
  ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a database name"));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ParseDescribe(TokenStream& ts) {
  ts.Next();  // DESC | DESCRIBE
  DescribeTable st;
  ASSIGN_OR_RETURN(st.table, ts.ExpectQualifiedName("a table name"));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

// DESCRIBE SELECT ... and friends are DuckDB's: they describe a query's result, not a table.
bool DescribesQuery(const TokenStream& ts) {
  const Token& t = ts.Peek(1);
  if (t.IsSymbol("(")) return true;
  for (std::string_view k : {"SELECT", "WITH", "FROM", "VALUES", "TABLE", "PIVOT", "UNPIVOT", "SUMMARIZE"}) {
    if (t.IsWord(k)) return true;
  }
  return false;
}

// CREATE TABLE ... AS SELECT and CREATE TABLE ... LIKE are run by DuckDB: an AS or LIKE outside parentheses gives
// them away (a StarRocks column list or PARTITION clause keeps everything else inside parentheses).
bool IsCreateTableAsOrLike(const TokenStream& ts) {
  int depth = 0;
  for (size_t i = 2;; ++i) {
    const Token& t = ts.Peek(i);
    if (t.kind == TokenKind::kEnd) return false;
    if (t.IsSymbol("(")) ++depth;
    if (t.IsSymbol(")")) --depth;
    if (depth == 0 && (t.IsWord("AS") || t.IsWord("LIKE"))) return true;
  }
}

Result<Statement> ParseCreate(TokenStream& ts, const SessionContext& session) {
  const Token& what = ts.Peek(1);
  if (what.IsWord("DATABASE") || what.IsWord("SCHEMA")) return ParseCreateDatabase(ts);
  if (what.IsWord("TABLE") && !IsCreateTableAsOrLike(ts)) {
    ASSIGN_OR_RETURN(CreateTable ct, ParseCreateTable(ts));
    return Statement{std::move(ct)};
  }
  // CREATE VIEW / MACRO / SEQUENCE / INDEX, CREATE [OR REPLACE] [TEMP] TABLE, CTAS, LIKE: DuckDB's business.
  return Statement{MakePassThrough(ts, session)};
}

// Cuts the tokens at the first ';'. Anything but more ';' after it is a second statement, which the caller should
// have split off (SplitStatements); running only the first would silently drop the rest.
Result<std::vector<Token>> OneStatement(std::vector<Token> tokens, std::string_view* sql) {
  size_t cut = tokens.size() - 1;  // the kEnd token
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].kind == TokenKind::kInvalid || tokens[i].IsSymbol(";")) {
      cut = i;
      break;
    }
  }
  if (tokens[cut].kind == TokenKind::kInvalid) {
    return TokenStream(*sql, {}).ErrorAt(tokens[cut], "");
  }
  for (size_t i = cut; i + 1 < tokens.size(); ++i) {
    if (!tokens[i].IsSymbol(";")) {
      TokenStream ts(*sql, {});
      return ts.Complain(tokens[i], "expected end of statement: send one statement at a time");
    }
  }
  Token end = tokens[cut];
  end.kind = TokenKind::kEnd;
  end.raw = {};
  end.text.clear();
  *sql = sql->substr(0, end.offset);
  tokens.resize(cut);
  tokens.push_back(std::move(end));
  return tokens;
}

}  // namespace

Result<Statement> ParseStatement(std::string_view sql, const SessionContext& session) {
  ASSIGN_OR_RETURN(std::vector<Token> tokens, OneStatement(Tokenize(sql), &sql));
  if (tokens.size() == 1) return Status::SyntaxError("Query was empty");
  TokenStream ts(sql, std::move(tokens));
  const Token& first = ts.Peek();
  const Token& second = ts.Peek(1);
  if (first.IsWord("CREATE") && second.IsWord("ROUTINE")) return ParseCreateRoutineLoad(ts);
  if (first.IsWord("ALTER") && second.IsWord("ROUTINE")) return ParseAlterRoutineLoad(ts);
  if ((first.IsWord("PAUSE") || first.IsWord("RESUME") || first.IsWord("STOP")) && second.IsWord("ROUTINE"))
    return ParseControlRoutineLoad(ts);
  if (first.IsWord("SHOW") && IsShowRoutineLoad(ts)) return ParseShowRoutineLoad(ts);
  if (first.IsWord("CREATE")) return ParseCreate(ts, session);
  if (first.IsWord("DROP")) {
    if (second.IsWord("DATABASE") || second.IsWord("SCHEMA")) return ParseDropDatabase(ts);
    if (second.IsWord("TABLE")) return ParseDropTable(ts);
  }
  if (first.IsWord("UNDROP") || (first.IsWord("RECOVER") && second.IsWord("TABLE"))) return ParseUndropTable(ts);
  if (first.IsWord("USE")) return ParseUse(ts);
  if (first.IsWord("SHOW")) return ParseShow(ts);
  if ((first.IsWord("DESC") || first.IsWord("DESCRIBE")) && !DescribesQuery(ts)) return ParseDescribe(ts);
  if (first.IsWord("SET")) return ParseSet(ts);
  return Statement{MakePassThrough(ts, session)};
}

}  // namespace sluice::sql
