// Statements mariadb-dump / mysqldump send that mean nothing for Sluice, and the SHOW forms of objects Sluice does
// not have: LOCK TABLES ... / UNLOCK TABLES / FLUSH ... / SAVEPOINT, RELEASE SAVEPOINT, ROLLBACK TO SAVEPOINT (which
// --single-transaction wraps around each table's read) are accepted as no-ops (DuckDB's snapshot isolation already
// gives the dump one consistent view per statement, and Sluice has no table locks); SHOW TRIGGERS / EVENTS /
// PROCEDURE STATUS / FUNCTION STATUS answer empty results with MySQL's columns, and so do the dump's tablespace
// queries over INFORMATION_SCHEMA.FILES (ParseTablespaceQuery).
#include <optional>
#include <string>
#include <vector>

#include "sql/ast.h"
#include "sql/parser.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

// An empty result with these columns (all text), as DuckDB SQL.
PassThrough EmptyResult(std::initializer_list<const char*> columns) {
  std::string sql = "SELECT ";
  bool first = true;
  for (const char* c : columns) {
    sql += (first ? "" : ", ") + std::string("CAST(NULL AS VARCHAR) AS \"") + c + "\"";
    first = false;
  }
  return PassThrough{sql + " WHERE false"};
}

// The names of a bare select list `a, b, c` followed by FROM, consumed; nullopt when it has anything else.
std::optional<std::vector<std::string>> BareSelectList(TokenStream& ts) {
  std::vector<std::string> names;
  while (true) {
    if (!ts.Peek().IsIdentifier() || ts.PeekWord("FROM")) return std::nullopt;
    names.push_back(ts.Next().text);
    if (ts.AcceptWord("FROM")) return names;
    if (!ts.AcceptSymbol(",")) return std::nullopt;
  }
}

}  // namespace

std::optional<Statement> ParseTablespaceQuery(std::string_view sql) {
  // A dump's query is a few hundred bytes; a longer statement is not one, and is not tokenized twice.
  if (sql.size() > 4096) return std::nullopt;
  TokenStream ts(sql, Tokenize(sql));
  if (!ts.AcceptWord("SELECT")) return std::nullopt;
  ts.AcceptWord("DISTINCT");
  std::optional<std::vector<std::string>> names = BareSelectList(ts);
  if (!names || !ts.AcceptWord("INFORMATION_SCHEMA") || !ts.AcceptSymbol(".") || !ts.AcceptWord("FILES"))
    return std::nullopt;
  // FILES alone: a join or a second table could bring rows.
  if (!ts.AtEnd() && !ts.PeekWord("WHERE") && !ts.PeekWord("GROUP") && !ts.PeekWord("ORDER")) return std::nullopt;
  std::string select = "SELECT ";
  for (size_t i = 0; i < names->size(); ++i)
    select += (i ? ", " : "") + std::string("CAST(NULL AS VARCHAR) AS ") + QuoteIdentifier((*names)[i]);
  return Statement{PassThrough{select + " WHERE false"}};
}

bool IsDumpStatement(const TokenStream& ts) {
  const Token& a = ts.Peek();
  const Token& b = ts.Peek(1);
  if (a.IsWord("LOCK") && (b.IsWord("TABLES") || b.IsWord("TABLE"))) return true;
  if (a.IsWord("UNLOCK") && (b.IsWord("TABLES") || b.IsWord("TABLE"))) return true;
  if (a.IsWord("FLUSH")) return true;
  // mariadb-dump --single-transaction reads each table between SAVEPOINT sp and ROLLBACK TO SAVEPOINT sp.
  if (a.IsWord("SAVEPOINT") || (a.IsWord("RELEASE") && b.IsWord("SAVEPOINT"))) return true;
  if (a.IsWord("ROLLBACK") && b.IsWord("TO")) return true;
  // ALTER TABLE t DISABLE KEYS / ENABLE KEYS (around a dump's INSERTs): Sluice keeps no secondary indexes to pause.
  if (a.IsWord("ALTER") && b.IsWord("TABLE")) {
    size_t at = 3;
    if (ts.PeekSymbol(".", at)) at += 2;
    if ((ts.PeekWord("DISABLE", at) || ts.PeekWord("ENABLE", at)) && ts.PeekWord("KEYS", at + 1)) return true;
  }
  if (a.IsWord("SHOW") && (b.IsWord("TRIGGERS") || b.IsWord("EVENTS"))) return true;
  if (a.IsWord("SHOW") && (b.IsWord("PROCEDURE") || b.IsWord("FUNCTION")) && ts.PeekWord("STATUS", 2)) return true;
  return false;
}

Result<Statement> ParseDumpStatement(TokenStream& ts) {
  const Token& a = ts.Peek();
  const Token& b = ts.Peek(1);
  if (a.IsWord("SHOW")) {
    // The LIKE / WHERE / FROM db that may follow filter nothing: there is nothing to show.
    if (b.IsWord("TRIGGERS"))
      return Statement{EmptyResult({"Trigger", "Event", "Table", "Statement", "Timing", "Created", "sql_mode",
                                    "Definer", "character_set_client", "collation_connection",
                                    "Database Collation"})};
    if (b.IsWord("EVENTS"))
      return Statement{EmptyResult({"Db", "Name", "Definer", "Time zone", "Type", "Execute at", "Interval value",
                                    "Interval field", "Starts", "Ends", "Status", "Originator",
                                    "character_set_client", "collation_connection", "Database Collation"})};
    return Statement{EmptyResult({"Db", "Name", "Type", "Definer", "Modified", "Created", "Security_type", "Comment",
                                  "character_set_client", "collation_connection", "Database Collation"})};
  }
  NoOpStatement out;
  out.verb = std::string(a.raw) + " " + std::string(b.raw);
  out.note = a.IsWord("FLUSH")   ? "FLUSH has nothing to do in Sluice: tables are written through on commit"
             : a.IsWord("ALTER") ? "Sluice keeps no secondary indexes to disable"
             : (a.IsWord("SAVEPOINT") || a.IsWord("RELEASE") || a.IsWord("ROLLBACK"))
                 ? "Sluice has no savepoints: ROLLBACK TO SAVEPOINT undoes nothing (dump tools only read between them)"
                                 : "Sluice has no table locks; each statement reads one consistent snapshot";
  while (!ts.AtEnd()) ts.Next();
  return Statement{std::move(out)};
}

}  // namespace sluice::sql
