// ParseStatement: finds which statement family the text belongs to. Sluice's own statements are parsed here or in
// the *_parser.cpp files; everything else is handed to DuckDB after TranslateForDuckDB.
#include "sql/parser.h"

#include "sql/account_parser.h"
#include "sql/routine_load_parser.h"
#include "sql/statement_parsers.h"
#include "sql/volume_parser.h"

namespace sluice::sql {

namespace {

PassThrough MakePassThrough(std::string_view sql, const SessionContext& session) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!sql.empty() && space(sql.front())) sql.remove_prefix(1);
  while (!sql.empty() && space(sql.back())) sql.remove_suffix(1);
  return PassThrough{TranslateForDuckDB(sql, session)};
}

PassThrough MakePassThrough(const TokenStream& ts, const SessionContext& session) {
  return MakePassThrough(ts.sql(), session);
}

Result<Statement> ParseCreateDatabase(TokenStream& ts) {
  ts.Next();  // CREATE
  ts.Next();  // DATABASE | SCHEMA
  CreateDatabase st;
  st.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("a database name"));
  st.catalog = name.db;
  st.name = name.name;
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ParseDropDatabase(TokenStream& ts) {
  ts.Next();  // DROP
  ts.Next();  // DATABASE | SCHEMA
  DropDatabase st;
  st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("a database name"));
  st.catalog = name.db;
  st.name = name.name;
  st.force = ts.AcceptWord("FORCE");
  if (!ts.AtEnd()) return ts.ErrorExpecting({"FORCE", "end of statement"});
  return Statement{std::move(st)};
}

Result<Statement> ParseDropTable(TokenStream& ts) {
  ts.Next();  // DROP
  ts.Next();  // TABLE
  DropTable st;
  st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(st.table, ts.ExpectTableName("a table name"));
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

Result<Statement> ParseKill(TokenStream& ts) {
  ts.Next();  // KILL
  Kill st;
  if (ts.AcceptWord("QUERY")) {
    st.connection = false;
  } else {
    (void)ts.AcceptWord("CONNECTION");
  }
  ASSIGN_OR_RETURN(int64_t id, ts.ExpectInteger("a connection id (the Id column of SHOW PROCESSLIST)"));
  if (id < 0 || id > UINT32_MAX) return Status::NotFound("Unknown thread id: " + std::to_string(id));
  st.connection_id = static_cast<uint32_t>(id);
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{st};
}

Result<Statement> ParseDescribe(TokenStream& ts) {
  ts.Next();  // DESC | DESCRIBE
  DescribeTable st;
  ASSIGN_OR_RETURN(st.table, ts.ExpectTableName("a table name"));
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

// DuckDB's own max_expression_depth (1000) bounds expressions it builds; brackets in the text get the same bound.
constexpr size_t kMaxNestingDepth = 1000;

// The statement up to its first ';', read without keeping tokens. Anything but more ';' after it is a second
// statement, which the caller should have split off (SplitStatements): running only the first would silently drop
// the rest. Also bounds how deeply brackets nest: DuckDB's parser and binder recurse once per level, and a statement of
// 100,000 '(' must be refused here rather than reach them (docs/security.md, "What cannot crash the server").
Result<std::string_view> OneStatement(std::string_view sql) {
  TokenReader reader(sql);
  Token t = reader.Next();
  size_t depth = 0;
  while (t.kind != TokenKind::kEnd && !t.IsSymbol(";")) {
    if (t.kind == TokenKind::kInvalid) return TokenStream(sql, {}).ErrorAt(t, "");
    if (t.IsSymbol("(") || t.IsSymbol("[") || t.IsSymbol("{")) {
      if (++depth > kMaxNestingDepth)
        return TokenStream(sql, {}).Complain(
            t, "brackets nest more than " + std::to_string(kMaxNestingDepth) +
                   " levels deep; write the statement with less nesting");
    } else if ((t.IsSymbol(")") || t.IsSymbol("]") || t.IsSymbol("}")) && depth > 0) {
      --depth;
    }
    t = reader.Next();
  }
  const size_t end = t.offset;
  for (; t.kind != TokenKind::kEnd; t = reader.Next()) {
    if (!t.IsSymbol(";")) {
      return TokenStream(sql, {}).Complain(t, "expected end of statement: send one statement at a time");
    }
  }
  return sql.substr(0, end);
}

// Queries and DML are DuckDB's and may be megabytes (a bulk INSERT): they are translated as a stream instead of being
// held as tokens. Every other statement, Sluice's own included, gets a TokenStream.
bool IsPlainQueryOrDml(const Token& first) {
  if (first.IsSymbol("(")) return true;
  for (std::string_view k : {"SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE", "VALUES", "FROM"}) {
    if (first.IsWord(k)) return true;
  }
  return false;
}

}  // namespace

Result<Statement> ParseStatement(std::string_view sql, const SessionContext& session) {
  ASSIGN_OR_RETURN(sql, OneStatement(sql));
  const Token start = TokenReader(sql).Next();
  if (start.kind == TokenKind::kEnd) return Status::SyntaxError("Query was empty");
  if (start.IsWord("SELECT")) {
    if (std::optional<Statement> dump = ParseTablespaceQuery(sql)) return std::move(*dump);
  }
  if (IsPlainQueryOrDml(start)) return Statement{MakePassThrough(sql, session)};
  TokenStream ts(sql, Tokenize(sql));
  const Token& first = ts.Peek();
  const Token& second = ts.Peek(1);
  if (first.IsWord("CREATE") && second.IsWord("ROUTINE")) return ParseCreateRoutineLoad(ts);
  if (first.IsWord("ALTER") && second.IsWord("ROUTINE")) return ParseAlterRoutineLoad(ts);
  if ((first.IsWord("PAUSE") || first.IsWord("RESUME") || first.IsWord("STOP")) && second.IsWord("ROUTINE"))
    return ParseControlRoutineLoad(ts);
  if (first.IsWord("SHOW") && IsShowRoutineLoad(ts)) return ParseShowRoutineLoad(ts);
  if (IsDumpStatement(ts)) return ParseDumpStatement(ts);  // before ALTER TABLE: ... DISABLE KEYS is a dump's
  // ALTER TABLE catalog.db.t EXECUTE procedure(...) / SET (...): table care and properties of an Iceberg table
  // (lakehouse/lake_care.h), which the executor reads from the statement's text.
  if (first.IsWord("ALTER") && second.IsWord("TABLE") && ts.Peek(2).IsIdentifier() && ts.Peek(3).IsSymbol(".") &&
      ts.Peek(4).IsIdentifier() && ts.Peek(5).IsSymbol(".") && ts.Peek(6).IsIdentifier() &&
      (ts.Peek(7).IsWord("EXECUTE") || ts.Peek(7).IsWord("SET")))
    return Statement{MakePassThrough(sql, session)};
  // ALTER SYSTEM DECOMMISSION NODE 'name' / CANCEL DECOMMISSION NODE 'name' / ALTER SYSTEM DROP NODE 'name'.
  if ((first.IsWord("ALTER") && second.IsWord("SYSTEM")) || (first.IsWord("CANCEL") && second.IsWord("DECOMMISSION"))) {
    DecommissionNode d;
    d.cancel = first.IsWord("CANCEL");
    ts.Next();
    if (!d.cancel) {
      ts.Next();  // SYSTEM
      d.drop = ts.PeekWord("DROP");
      if (!ts.PeekWord("DECOMMISSION") && !d.drop)
        return ts.NotSupportedAt(ts.Peek(), "ALTER SYSTEM takes DECOMMISSION NODE 'name' or DROP NODE 'name' only");
    }
    ts.Next();  // DECOMMISSION or DROP
    if (ts.PeekWord("BACKEND") || ts.PeekWord("BACKENDS"))
      return ts.NotSupportedAt(ts.Peek(), std::string("Sluice has nodes, not backends: write ") +
                                              (d.drop ? "DROP" : "DECOMMISSION") +
                                              " NODE 'name' (SHOW NODES lists the names)");
    if (!ts.AcceptWord("NODE")) return ts.ErrorExpecting({"NODE"});
    ASSIGN_OR_RETURN(d.name, ts.ExpectString("the node's name in quotes, as SHOW NODES lists it"));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(d)};
  }
  if (IsAlterTablePartition(ts)) return ParseAlterTablePartition(ts);
  if (IsAlterTable(ts)) return ParseAlterTable(ts);
  if (IsShowPartitions(ts)) return ParseShowPartitions(ts);
  if (IsAccountStatement(ts)) return ParseAccountStatement(ts);
  if (IsPipeStatement(ts)) return ParsePipeStatement(ts);
  if (IsExternalCatalogStatement(ts)) return ParseExternalCatalogStatement(ts);
  if (IsCreateStorageObject(ts)) return ParseCreateStorageObject(ts);
  if (IsShowStorageObjects(ts)) return ParseShowStorageObjects(ts);
  if (IsStorageObjectStatement(ts)) return ParseDescribeOrDropStorageObject(ts);
  if (IsCopyInto(ts)) return ParseCopyInto(ts);
  if (first.IsWord("CREATE")) return ParseCreate(ts, session);
  if (first.IsWord("DROP")) {
    if (second.IsWord("DATABASE") || second.IsWord("SCHEMA")) return ParseDropDatabase(ts);
    if (second.IsWord("TABLE")) return ParseDropTable(ts);
  }
  if (first.IsWord("UNDROP") || (first.IsWord("RECOVER") && second.IsWord("TABLE"))) return ParseUndropTable(ts);
  if (first.IsWord("USE")) return ParseUse(ts);
  if (first.IsWord("KILL")) return ParseKill(ts);
  if (first.IsWord("SHOW")) return ParseShow(ts);
  if ((first.IsWord("DESC") || first.IsWord("DESCRIBE")) && !DescribesQuery(ts)) return ParseDescribe(ts);
  if (first.IsWord("SET")) return ParseSet(ts);
  return Statement{MakePassThrough(ts, session)};
}

}  // namespace sluice::sql
