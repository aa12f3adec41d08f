// SHOW statements. Sluice answers them itself (from its catalog or session), so an unknown SHOW is an error that
// lists what is supported rather than something DuckDB would misread (DuckDB's SHOW means DESCRIBE).
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

constexpr std::string_view kShowForms =
    "one of DATABASES, SCHEMAS, TABLES, TABLES HISTORY, COLUMNS, FIELDS, CREATE TABLE, ROUTINE LOAD, "
    "CREATE ROUTINE LOAD, PIPES, VCLUSTERS, VARIABLES, STATUS, WARNINGS, ERRORS, ENGINES, COLLATION, CHARACTER SET, "
    "CHARSET, PROCESSLIST, NODES, INDEX, KEYS, TABLE STATUS, CREATE DATABASE or PLUGINS (the SHOW statements Sluice "
    "supports)";

Result<std::optional<std::string>> OptionalLike(TokenStream& ts) {
  if (ts.AcceptWord("LIKE")) {
    ASSIGN_OR_RETURN(std::string pattern, ts.ExpectString("a pattern string, like 'abc%'"));
    return std::optional<std::string>(std::move(pattern));
  }
  if (ts.PeekWord("WHERE")) return ts.Error("LIKE 'pattern' or end of statement (WHERE is not supported here)");
  return std::optional<std::string>();
}

// SHOW VARIABLES WHERE Variable_name = 'x' is what some drivers send; the name goes into `like`.
Result<std::optional<std::string>> OptionalLikeOrWhere(TokenStream& ts) {
  if (!ts.AcceptWord("WHERE")) return OptionalLike(ts);
  const Token& column = ts.Peek();
  if (!column.IsIdentifier() || !EqualsIgnoreCase(column.text, "Variable_name")) {
    return ts.Error("Variable_name (SHOW ... WHERE supports only Variable_name = 'x' or Variable_name LIKE 'x')");
  }
  ts.Next();
  if (!ts.AcceptSymbol("=") && !ts.AcceptWord("LIKE")) return ts.ErrorExpecting({"'='", "LIKE"});
  ASSIGN_OR_RETURN(std::string name, ts.ExpectString("a variable name in quotes"));
  return std::optional<std::string>(std::move(name));
}

Result<Statement> ShowSystemStatement(TokenStream& ts, ShowSystem::What what, bool global, bool full = false) {
  ShowSystem st;
  st.what = what;
  st.global = global;
  st.full = full;
  ts.Next();
  switch (what) {
    case ShowSystem::What::kVariables:
    case ShowSystem::What::kStatus: {
      ASSIGN_OR_RETURN(st.like, OptionalLikeOrWhere(ts));
      break;
    }
    case ShowSystem::What::kCollation:
    case ShowSystem::What::kCharset: {
      ASSIGN_OR_RETURN(st.like, OptionalLike(ts));
      break;
    }
    case ShowSystem::What::kWarnings:
    case ShowSystem::What::kErrors:
      // LIMIT [offset,] n is accepted for the clients that send it; the lists are short anyway.
      if (ts.AcceptWord("LIMIT")) {
        if (auto n = ts.ExpectInteger("a row count"); !n.ok()) return n.status();
        if (ts.AcceptSymbol(",")) {
          if (auto n = ts.ExpectInteger("a row count"); !n.ok()) return n.status();
        }
      }
      break;
    default:
      break;
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ShowTablesStatement(TokenStream& ts, bool full) {
  ts.Next();  // TABLES
  ShowTables st;
  st.full = full;
  st.history = ts.AcceptWord("HISTORY");
  if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
    ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("a database name"));
    st.catalog = name.db;
    st.db = name.name;
  }
  ASSIGN_OR_RETURN(st.like, OptionalLike(ts));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

// SHOW [FULL] COLUMNS FROM t [FROM db]: the same answer as DESC t.
Result<Statement> ShowColumnsStatement(TokenStream& ts, bool full) {
  ts.Next();  // COLUMNS | FIELDS
  if (!ts.AcceptWord("FROM") && !ts.AcceptWord("IN")) return ts.ErrorExpecting({"FROM", "IN"});
  DescribeTable st;
  st.full = full;
  ASSIGN_OR_RETURN(st.table, ts.ExpectQualifiedName("a table name"));
  if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
    ASSIGN_OR_RETURN(st.table.db, ts.ExpectIdentifier("a database name"));
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

// SHOW INDEX|INDEXES|KEYS FROM|IN t [FROM|IN db]
Result<Statement> ShowIndexStatement(TokenStream& ts) {
  ts.Next();  // INDEX | INDEXES | KEYS
  if (!ts.AcceptWord("FROM") && !ts.AcceptWord("IN")) return ts.ErrorExpecting({"FROM", "IN"});
  ShowCatalog st;
  st.what = ShowCatalog::What::kIndex;
  ASSIGN_OR_RETURN(st.table, ts.ExpectQualifiedName("a table name"));
  if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
    ASSIGN_OR_RETURN(st.table.db, ts.ExpectIdentifier("a database name"));
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

// SHOW TABLE STATUS [FROM|IN db] [LIKE 'p']
Result<Statement> ShowTableStatusStatement(TokenStream& ts) {
  ts.Next();  // TABLE
  ts.Next();  // STATUS
  ShowCatalog st;
  st.what = ShowCatalog::What::kTableStatus;
  if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
    ASSIGN_OR_RETURN(st.db, ts.ExpectIdentifier("a database name"));
  }
  ASSIGN_OR_RETURN(st.like, OptionalLike(ts));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

}  // namespace

Result<Statement> ParseShow(TokenStream& ts) {
  ts.Next();  // SHOW
  bool scoped = false, global = false;
  if (ts.AcceptWord("GLOBAL")) {
    scoped = global = true;
  } else if (ts.AcceptWord("SESSION") || ts.AcceptWord("LOCAL")) {
    scoped = true;
  }
  const bool full = ts.AcceptWord("FULL");
  const Token& t = ts.Peek();
  if (scoped && !t.IsWord("VARIABLES") && !t.IsWord("STATUS")) return ts.ErrorExpecting({"VARIABLES", "STATUS"});
  if (full && !t.IsWord("TABLES") && !t.IsWord("COLUMNS") && !t.IsWord("FIELDS") && !t.IsWord("PROCESSLIST")) {
    return ts.ErrorExpecting({"TABLES", "COLUMNS", "FIELDS", "PROCESSLIST"});
  }
  using What = ShowSystem::What;
  if (t.IsWord("DATABASES") || t.IsWord("SCHEMAS")) {
    ts.Next();
    ShowDatabases st;
    if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
      ASSIGN_OR_RETURN(st.catalog, ts.ExpectIdentifier("a catalog name"));
    }
    ASSIGN_OR_RETURN(st.like, OptionalLike(ts));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  if (t.IsWord("TABLES")) return ShowTablesStatement(ts, full);
  if (t.IsWord("COLUMNS") || t.IsWord("FIELDS")) return ShowColumnsStatement(ts, full);
  if (t.IsWord("INDEX") || t.IsWord("INDEXES") || t.IsWord("KEYS")) return ShowIndexStatement(ts);
  if (t.IsWord("TABLE") && ts.PeekWord("STATUS", 1)) return ShowTableStatusStatement(ts);
  if (t.IsWord("PLUGINS")) return ShowSystemStatement(ts, What::kPlugins, false);
  if (t.IsWord("CREATE") && (ts.PeekWord("DATABASE", 1) || ts.PeekWord("SCHEMA", 1))) {
    ts.Next();
    ts.Next();
    ShowCatalog st;
    st.what = ShowCatalog::What::kCreateDatabase;
    if (ts.AcceptWord("IF")) {  // SHOW CREATE DATABASE IF NOT EXISTS d: MySQL's form for dumps
      if (!ts.AcceptWord("NOT")) return ts.ErrorExpecting({"NOT"});
      if (!ts.AcceptWord("EXISTS")) return ts.ErrorExpecting({"EXISTS"});
    }
    ASSIGN_OR_RETURN(st.db, ts.ExpectIdentifier("a database name"));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  if (t.IsWord("CREATE")) {
    ts.Next();
    if (!ts.AcceptWord("TABLE")) return ts.ErrorExpecting({"TABLE", "DATABASE", "ROUTINE LOAD"});
    ShowCreateTable st;
    ASSIGN_OR_RETURN(st.table, ts.ExpectTableName("a table name"));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  if (t.IsWord("VARIABLES")) return ShowSystemStatement(ts, What::kVariables, global);
  if (t.IsWord("STATUS")) return ShowSystemStatement(ts, What::kStatus, global);
  if (t.IsWord("WARNINGS")) return ShowSystemStatement(ts, What::kWarnings, false);
  if (t.IsWord("ERRORS")) return ShowSystemStatement(ts, What::kErrors, false);
  if (t.IsWord("ENGINES")) return ShowSystemStatement(ts, What::kEngines, false);
  if (t.IsWord("STORAGE") && ts.PeekWord("ENGINES", 1)) {
    ts.Next();
    return ShowSystemStatement(ts, What::kEngines, false);
  }
  if (t.IsWord("COLLATION")) return ShowSystemStatement(ts, What::kCollation, false);
  if (t.IsWord("CHARSET")) return ShowSystemStatement(ts, What::kCharset, false);
  if (t.IsWord("CHARACTER") && ts.PeekWord("SET", 1)) {
    ts.Next();
    return ShowSystemStatement(ts, What::kCharset, false);
  }
  if (t.IsWord("PROCESSLIST")) return ShowSystemStatement(ts, What::kProcesslist, false, full);
  if (t.IsWord("NODES")) {
    ts.Next();
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{ShowNodes{}};
  }
  return ts.Error(kShowForms);
}

}  // namespace sluice::sql
