// ALTER TABLE t <clause> [, <clause> ...]: the column and table clauses of MySQL and StarRocks (ADD / DROP /
// MODIFY / CHANGE / RENAME COLUMN, COMMENT, RENAME) and DuckDB's own ALTER COLUMN ... TYPE / SET DEFAULT, so that
// every way of changing a table goes through the catalog and its metadata stays true. ADD / DROP PARTITION are
// partition_parser.cpp's.
#include <string>

#include "common/ascii.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

using Kind = AlterTableClause::Kind;

constexpr std::string_view kClauses =
    "ADD COLUMN, DROP COLUMN, MODIFY COLUMN, CHANGE COLUMN, RENAME COLUMN, ALTER COLUMN, COMMENT or RENAME";

Status ParsePosition(TokenStream& ts, AlterTableClause* c) {
  if (ts.AcceptWord("FIRST")) {
    c->first = true;
  } else if (ts.AcceptWord("AFTER")) {
    ASSIGN_OR_RETURN(c->after, ts.ExpectIdentifier("the column to place it after"));
  }
  return Status::Ok();
}

// StarRocks lets ADD / MODIFY COLUMN name a rollup (`TO r`) and PROPERTIES; Sluice tables have no rollups.
Status RefuseRollup(TokenStream& ts) {
  if (ts.PeekWord("TO") || ts.PeekWord("IN") || ts.PeekWord("FROM"))
    return ts.NotSupportedAt(ts.Peek(), "rollups are not supported: Sluice tables have no rollup indexes; leave "
                                        "out TO / FROM <rollup>");
  if (ts.PeekWord("PROPERTIES")) {
    ts.Next();
    if (auto skipped = ts.SkipParenthesized(); !skipped.ok()) return skipped.status();
  }
  return Status::Ok();
}

Result<AlterTableClause> ParseAdd(TokenStream& ts) {
  AlterTableClause c;
  c.kind = Kind::kAddColumns;
  ts.AcceptWord("COLUMN");
  if (ts.PeekWord("INDEX") || ts.PeekWord("KEY") || ts.PeekWord("PRIMARY") || ts.PeekWord("UNIQUE") ||
      ts.PeekWord("CONSTRAINT") || ts.PeekWord("ROLLUP"))
    return ts.NotSupportedAt(ts.Peek(), "ALTER TABLE ... ADD " + AsciiUpper(ts.Peek().raw) +
                                            " is not supported: Sluice changes columns, not indexes, keys or rollups");
  c.if_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  if (ts.AcceptSymbol("(")) {  // StarRocks / MySQL: ADD COLUMN (c1 type, c2 type)
    do {
      ASSIGN_OR_RETURN(ColumnDef col, ParseColumnDefinition(ts, true));
      c.columns.push_back(std::move(col));
    } while (ts.AcceptSymbol(","));
    if (!ts.AcceptSymbol(")")) return ts.ErrorExpecting({"','", "')'"});
  } else {
    ASSIGN_OR_RETURN(ColumnDef col, ParseColumnDefinition(ts, true));
    c.columns.push_back(std::move(col));
    RETURN_IF_ERROR(ParsePosition(ts, &c));
  }
  RETURN_IF_ERROR(RefuseRollup(ts));
  return c;
}

Result<AlterTableClause> ParseDrop(TokenStream& ts) {
  AlterTableClause c;
  c.kind = Kind::kDropColumn;
  if (ts.PeekWord("INDEX") || ts.PeekWord("KEY") || ts.PeekWord("PRIMARY") || ts.PeekWord("CONSTRAINT") ||
      ts.PeekWord("ROLLUP"))
    return ts.NotSupportedAt(ts.Peek(), "ALTER TABLE ... DROP " + AsciiUpper(ts.Peek().raw) +
                                            " is not supported: Sluice changes columns, not indexes, keys or rollups");
  ts.AcceptWord("COLUMN");
  c.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(c.column, ts.ExpectIdentifier("the column to drop"));
  RETURN_IF_ERROR(RefuseRollup(ts));
  return c;
}

// MODIFY [COLUMN] c <definition> [FIRST | AFTER x], or MODIFY COLUMN c COMMENT '...' (StarRocks: the comment
// only), or MODIFY COMMENT '...' (the table's comment).
Result<AlterTableClause> ParseModify(TokenStream& ts) {
  AlterTableClause c;
  if (ts.PeekWord("COMMENT") && ts.Peek(1).IsString()) {
    ts.Next();
    c.kind = Kind::kTableComment;
    ASSIGN_OR_RETURN(c.comment, ts.ExpectString("a comment string"));
    return c;
  }
  ts.AcceptWord("COLUMN");
  if (ts.Peek(1).IsWord("COMMENT")) {
    c.kind = Kind::kColumnComment;
    ASSIGN_OR_RETURN(c.column, ts.ExpectIdentifier("a column name"));
    ts.Next();  // COMMENT
    ASSIGN_OR_RETURN(c.comment, ts.ExpectString("a comment string"));
    return c;
  }
  c.kind = Kind::kModifyColumn;
  ASSIGN_OR_RETURN(ColumnDef col, ParseColumnDefinition(ts, true));
  c.column = col.name;
  c.columns.push_back(std::move(col));
  RETURN_IF_ERROR(ParsePosition(ts, &c));
  RETURN_IF_ERROR(RefuseRollup(ts));
  return c;
}

// MySQL: CHANGE [COLUMN] old new <definition> [FIRST | AFTER x].
Result<AlterTableClause> ParseChange(TokenStream& ts) {
  AlterTableClause c;
  c.kind = Kind::kModifyColumn;
  ts.AcceptWord("COLUMN");
  ASSIGN_OR_RETURN(c.column, ts.ExpectIdentifier("the column to change"));
  ASSIGN_OR_RETURN(ColumnDef col, ParseColumnDefinition(ts, true));
  c.new_name = col.name;
  c.columns.push_back(std::move(col));
  RETURN_IF_ERROR(ParsePosition(ts, &c));
  return c;
}

// RENAME COLUMN a TO b; RENAME [TO | AS] new_table (MySQL) / RENAME new_table (StarRocks).
Result<AlterTableClause> ParseRename(TokenStream& ts) {
  AlterTableClause c;
  if (ts.PeekWord("COLUMN")) {
    ts.Next();
    c.kind = Kind::kRenameColumn;
    ASSIGN_OR_RETURN(c.column, ts.ExpectIdentifier("the column to rename"));
    RETURN_IF_ERROR(ts.ExpectWord("TO"));
    ASSIGN_OR_RETURN(c.new_name, ts.ExpectIdentifier("the column's new name"));
    return c;
  }
  if (ts.PeekWord("INDEX") || ts.PeekWord("KEY") || ts.PeekWord("ROLLUP") || ts.PeekWord("PARTITION"))
    return ts.NotSupportedAt(ts.Peek(), "ALTER TABLE ... RENAME " + AsciiUpper(ts.Peek().raw) + " is not supported");
  c.kind = Kind::kRenameTable;
  if (!ts.AcceptWord("TO")) ts.AcceptWord("AS");
  ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("the table's new name"));
  if (!name.db.empty())
    return Status::NotSupported("RENAME cannot move a table to another database ('" + name.db +
                                "'); give the new name without a database");
  c.new_name = name.name;
  return c;
}

// ALTER [COLUMN] c [SET DATA] TYPE type | SET DEFAULT v | DROP DEFAULT | SET NOT NULL | DROP NOT NULL.
Result<AlterTableClause> ParseAlterColumn(TokenStream& ts) {
  AlterTableClause c;
  ts.AcceptWord("COLUMN");
  ASSIGN_OR_RETURN(c.column, ts.ExpectIdentifier("a column name"));
  if (ts.AcceptWords({"SET", "DATA", "TYPE"}) || ts.AcceptWord("TYPE")) {
    c.kind = Kind::kAlterType;
    ASSIGN_OR_RETURN(c.type, ParseType(ts));
    if (ts.PeekWord("USING"))
      return ts.NotSupportedAt(ts.Peek(), "ALTER COLUMN ... TYPE ... USING is not supported: values are converted "
                                          "as CAST does; UPDATE them first, or use MODIFY COLUMN");
    return c;
  }
  if (ts.AcceptWords({"SET", "DEFAULT"})) {
    c.kind = Kind::kSetDefault;
    ASSIGN_OR_RETURN(c.default_sql, ParseDefaultValue(ts));
    return c;
  }
  if (ts.AcceptWords({"DROP", "DEFAULT"})) {
    c.kind = Kind::kSetDefault;
    return c;
  }
  if (ts.AcceptWords({"SET", "NOT", "NULL"})) {
    c.kind = Kind::kSetNullable;
    c.nullable = false;
    return c;
  }
  if (ts.AcceptWords({"DROP", "NOT", "NULL"})) {
    c.kind = Kind::kSetNullable;
    c.nullable = true;
    return c;
  }
  return ts.ErrorExpecting({"TYPE", "SET DATA TYPE", "SET DEFAULT", "DROP DEFAULT", "SET NOT NULL", "DROP NOT NULL"});
}

Result<AlterTableClause> ParseClause(TokenStream& ts) {
  const Token& t = ts.Peek();
  if (t.IsWord("ADD")) return (ts.Next(), ParseAdd(ts));
  if (t.IsWord("DROP")) return (ts.Next(), ParseDrop(ts));
  if (t.IsWord("MODIFY")) return (ts.Next(), ParseModify(ts));
  if (t.IsWord("CHANGE")) return (ts.Next(), ParseChange(ts));
  if (t.IsWord("RENAME")) return (ts.Next(), ParseRename(ts));
  if (t.IsWord("ALTER")) return (ts.Next(), ParseAlterColumn(ts));
  if (t.IsWord("COMMENT")) {
    ts.Next();
    AlterTableClause c;
    c.kind = Kind::kTableComment;
    ts.AcceptSymbol("=");
    ASSIGN_OR_RETURN(c.comment, ts.ExpectString("a comment string"));
    return c;
  }
  if (t.IsWord("SET") || t.IsWord("ORDER") || t.IsWord("DISTRIBUTED") || t.IsWord("SWAP") || t.IsWord("REPLACE"))
    return ts.NotSupportedAt(t, "ALTER TABLE ... " + AsciiUpper(t.raw) + " is not supported; Sluice supports " +
                                    std::string(kClauses));
  return ts.Error(kClauses);
}

}  // namespace

bool IsAlterTable(const TokenStream& ts) { return ts.PeekWord("ALTER") && ts.PeekWord("TABLE", 1); }

Result<Statement> ParseAlterTable(TokenStream& ts) {
  ts.Next();  // ALTER
  ts.Next();  // TABLE
  AlterTable alter;
  if (ts.PeekWord("IF") && ts.PeekWord("EXISTS", 1))
    return ts.NotSupportedAt(ts.Peek(), "ALTER TABLE IF EXISTS is not supported; name a table that exists");
  ASSIGN_OR_RETURN(alter.table, ts.ExpectQualifiedName("a table name"));
  do {
    ASSIGN_OR_RETURN(AlterTableClause c, ParseClause(ts));
    alter.clauses.push_back(std::move(c));
  } while (ts.AcceptSymbol(","));
  if (!ts.AtEnd()) return ts.ErrorExpecting({"','", "end of statement"});
  return Statement{std::move(alter)};
}

}  // namespace sluice::sql
