// CREATE TABLE in the StarRocks form (ENGINE, key model, PARTITION BY, DISTRIBUTED BY, PROPERTIES) and the
// Lakehouse form (inline PRIMARY KEY, PARTITIONED BY, CLUSTERED BY). Table options are accepted in any order, each
// once: users paste DDL from either product and the order carries no meaning for Sluice.
#include <string>
#include <vector>

#include "common/ascii.h"
#include "sql/parser.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

const char* AggregateFunctionName(AggregateFunction f) {
  switch (f) {
    case AggregateFunction::kSum: return "SUM";
    case AggregateFunction::kMax: return "MAX";
    case AggregateFunction::kMin: return "MIN";
    case AggregateFunction::kReplace: return "REPLACE";
    case AggregateFunction::kReplaceIfNotNull: return "REPLACE_IF_NOT_NULL";
    case AggregateFunction::kNone: return "";
  }
  return "";
}

namespace {

constexpr std::string_view kColumnAttributes =
    "one of NULL, NOT NULL, DEFAULT, COMMENT, AUTO_INCREMENT, PRIMARY KEY, SUM, MAX, MIN, REPLACE, "
    "REPLACE_IF_NOT_NULL, ',' or ')'";

struct ColumnAttributeSeen {
  bool nullability = false, aggregate = false, default_value = false, auto_increment = false, comment = false,
       primary_key = false;
};

// `x INT KEY` style words that must not be taken for a DEFAULT value.
bool IsAttributeKeyword(const Token& t) {
  for (std::string_view k : {"NOT", "COMMENT", "AUTO_INCREMENT", "PRIMARY", "DEFAULT"}) {
    if (t.IsWord(k)) return true;
  }
  return false;
}

}  // namespace

// DEFAULT's value as SQL DuckDB can run: strings become '...' literals whichever quote they were written in.
Result<std::string> ParseDefaultValue(TokenStream& ts) {
  const Token& t = ts.Peek();
  if (t.IsString()) {
    ts.Next();
    return QuoteLiteral(t.text);
  }
  if (t.kind == TokenKind::kNumber) {
    ts.Next();
    return std::string(t.raw);
  }
  if ((t.IsSymbol("-") || t.IsSymbol("+")) && ts.Peek(1).kind == TokenKind::kNumber) {
    ts.Next();
    const Token& n = ts.Next();
    return (t.IsSymbol("-") ? "-" : "") + std::string(n.raw);
  }
  if (t.IsSymbol("(")) {
    ASSIGN_OR_RETURN(const Token* close, ts.SkipParenthesized());
    return std::string(ts.SourceText(t, *close));
  }
  if (t.kind == TokenKind::kWord && !IsAttributeKeyword(t)) {
    if (t.IsWord("NULL") || t.IsWord("TRUE") || t.IsWord("FALSE")) {
      ts.Next();
      return AsciiUpper(t.raw);
    }
    ts.Next();
    if (ts.PeekSymbol("(")) {  // CURRENT_TIMESTAMP(), now(), uuid()
      ASSIGN_OR_RETURN(const Token* close, ts.SkipParenthesized());
      return std::string(ts.SourceText(t, *close));
    }
    return std::string(t.raw);  // CURRENT_TIMESTAMP
  }
  return ts.Error("a default value (a string, a number, NULL, CURRENT_TIMESTAMP or a parenthesized expression)");
}

namespace {

}  // namespace

Result<ColumnDef> ParseColumnDefinition(TokenStream& ts, bool in_alter) {
  ColumnDef col;
  ASSIGN_OR_RETURN(col.name, ts.ExpectIdentifier("a column name, PRIMARY KEY or INDEX"));
  ASSIGN_OR_RETURN(col.type, ParseType(ts));
  ColumnAttributeSeen seen;
  auto once = [&](bool& flag, const Token& t, std::string_view what) -> Status {
    if (flag) return ts.Complain(t, std::string(what) + " is written twice for column '" + col.name + "'");
    flag = true;
    return Status::Ok();
  };
  // In ALTER TABLE a definition also ends the statement, or meets its position (FIRST / AFTER x).
  auto ends = [&] {
    return ts.PeekSymbol(",") || ts.PeekSymbol(")") ||
           (in_alter && (ts.AtEnd() || ts.PeekWord("FIRST") || ts.PeekWord("AFTER")));
  };
  while (!ends()) {
    const Token& t = ts.Peek();
    if (in_alter && t.IsWord("KEY")) {
      return ts.NotSupportedAt(t, "adding or making key columns is not supported: a table's key columns are the "
                                  "ones CREATE TABLE gave it; add '" + col.name + "' as a value column");
    }
    if (t.IsWord("NULL") || (t.IsWord("NOT") && ts.PeekWord("NULL", 1))) {
      RETURN_IF_ERROR(once(seen.nullability, t, "NULL / NOT NULL"));
      col.nullable = t.IsWord("NULL");
      ts.Next();
      if (t.IsWord("NOT")) ts.Next();
    } else if (t.IsWord("SUM") || t.IsWord("MAX") || t.IsWord("MIN") || t.IsWord("REPLACE") ||
               t.IsWord("REPLACE_IF_NOT_NULL")) {
      RETURN_IF_ERROR(once(seen.aggregate, t, "an aggregate function"));
      col.aggregate = t.IsWord("SUM")       ? AggregateFunction::kSum
                      : t.IsWord("MAX")     ? AggregateFunction::kMax
                      : t.IsWord("MIN")     ? AggregateFunction::kMin
                      : t.IsWord("REPLACE") ? AggregateFunction::kReplace
                                            : AggregateFunction::kReplaceIfNotNull;
      ts.Next();
    } else if (t.IsWord("HLL_UNION") || t.IsWord("BITMAP_UNION") || t.IsWord("PERCENTILE_UNION")) {
      return ts.NotSupportedAt(t, "the aggregate function " + AsciiUpper(t.raw) + " of column '" + col.name +
                                      "' is not supported; use SUM, MAX, MIN, REPLACE or REPLACE_IF_NOT_NULL");
    } else if (t.IsWord("DEFAULT")) {
      RETURN_IF_ERROR(once(seen.default_value, t, "DEFAULT"));
      ts.Next();
      ASSIGN_OR_RETURN(col.default_sql, ParseDefaultValue(ts));
    } else if (t.IsWord("AUTO_INCREMENT")) {
      RETURN_IF_ERROR(once(seen.auto_increment, t, "AUTO_INCREMENT"));
      col.auto_increment = true;
      ts.Next();
    } else if (t.IsWord("COMMENT")) {
      RETURN_IF_ERROR(once(seen.comment, t, "COMMENT"));
      ts.Next();
      ASSIGN_OR_RETURN(col.comment, ts.ExpectString("a comment string"));
    } else if (t.IsWord("PRIMARY")) {
      RETURN_IF_ERROR(once(seen.primary_key, t, "PRIMARY KEY"));
      ts.Next();
      RETURN_IF_ERROR(ts.ExpectWord("KEY"));
      col.primary_key_inline = true;
    } else {
      return ts.Error(in_alter ? std::string(kColumnAttributes) + ", FIRST, AFTER or end of statement"
                               : std::string(kColumnAttributes));
    }
  }
  return col;
}

namespace {

// INDEX name (cols) [USING BITMAP | USING NGRAMBF ("k" = "v")] [COMMENT '...']: accepted and ignored, since DuckDB
// picks its own indexes; StarRocks DDL with bitmap indexes still creates the table.
Status SkipIndex(TokenStream& ts) {
  ts.Next();  // INDEX
  if (auto name = ts.ExpectIdentifier("an index name"); !name.ok()) return name.status();
  if (auto cols = ts.ExpectNameList("a column name"); !cols.ok()) return cols.status();
  if (ts.AcceptWord("USING")) {
    if (auto kind = ts.ExpectIdentifier("an index type such as BITMAP"); !kind.ok()) return kind.status();
    if (ts.PeekSymbol("(")) {
      if (auto props = ts.SkipParenthesized(); !props.ok()) return props.status();
    }
  }
  if (ts.AcceptWord("COMMENT")) {
    if (auto comment = ts.ExpectString("a comment string"); !comment.ok()) return comment.status();
  }
  return Status::Ok();
}

bool IsIndexDefinition(const TokenStream& ts) {
  // `INDEX idx (c)`; a column that happens to be called index reads `index VARCHAR(26)`, with a number in the parens.
  return ts.PeekWord("INDEX") && ts.Peek(1).IsIdentifier() && ts.PeekSymbol("(", 2) && ts.Peek(3).IsIdentifier();
}

struct KeyClause {
  const Token* at = nullptr;  // where the key model was first given, for the "given twice" error
};

Status SetKey(TokenStream& ts, const Token& at, KeyModel model, CreateTable* ct, KeyClause* key) {
  if (key->at != nullptr) {
    return ts.Complain(at, "the table's key is already given at " + DescribePosition(*key->at) +
                               "; a table has one key (DUPLICATE, AGGREGATE, UNIQUE or PRIMARY KEY)");
  }
  key->at = &at;
  ct->key_model = model;
  ASSIGN_OR_RETURN(ct->key_columns, ts.ExpectNameList("a key column name"));
  return Status::Ok();
}

Status ParseElements(TokenStream& ts, CreateTable* ct, KeyClause* key) {
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  do {
    const Token& t = ts.Peek();
    if ((t.IsWord("PRIMARY") && ts.PeekWord("KEY", 1)) || (t.IsWord("CONSTRAINT") && ts.PeekWord("PRIMARY", 2))) {
      if (ts.AcceptWord("CONSTRAINT")) {
        if (auto name = ts.ExpectIdentifier("a constraint name"); !name.ok()) return name.status();
      }
      const Token& primary = ts.Next();
      ts.Next();  // KEY
      RETURN_IF_ERROR(SetKey(ts, primary, KeyModel::kPrimary, ct, key));
    } else if (IsIndexDefinition(ts)) {
      RETURN_IF_ERROR(SkipIndex(ts));
    } else {
      ASSIGN_OR_RETURN(ColumnDef col, ParseColumnDefinition(ts, false));
      ct->columns.push_back(std::move(col));
    }
  } while (ts.AcceptSymbol(","));
  if (!ts.AcceptSymbol(")")) return ts.ErrorExpecting({"','", "')'"});
  return Status::Ok();
}

// Words that end a PARTITION BY clause when met outside parentheses.
bool EndsPartitionClause(const TokenStream& ts) {
  const Token& t = ts.Peek();
  if (t.kind == TokenKind::kEnd) return true;
  for (std::string_view k : {"DISTRIBUTED", "PROPERTIES", "ORDER", "CLUSTERED", "COMMENT", "ENGINE"}) {
    if (t.IsWord(k)) return true;
  }
  for (std::string_view k : {"DUPLICATE", "AGGREGATE", "UNIQUE", "PRIMARY"}) {
    if (t.IsWord(k) && ts.PeekWord("KEY", 1)) return true;
  }
  return false;
}

// Keeps the clause's text as written (RANGE/LIST partitions with their VALUES, expressions, column lists): it is
// echoed by SHOW CREATE TABLE; Sluice does not partition DuckDB tables. Brackets are counted rather than matched
// because StarRocks writes half-open ranges as VALUES [("2024-01-01"), ("2024-02-01")).
Result<std::string> CapturePartition(TokenStream& ts) {
  const Token& start = ts.Next();  // PARTITION or PARTITIONED
  RETURN_IF_ERROR(ts.ExpectWord("BY"));
  const Token* last = nullptr;
  std::vector<const Token*> open;  // unclosed '(' and '['
  while (!open.empty() || !EndsPartitionClause(ts)) {
    const Token& t = ts.Peek();
    if (t.kind == TokenKind::kEnd) {
      return ts.ErrorAt(t, "')' to close the '" + std::string(open.back()->raw) + "' at " +
                               DescribePosition(*open.back()));
    }
    if (t.kind == TokenKind::kInvalid) return ts.Error("");
    if (t.IsSymbol("(") || t.IsSymbol("[")) {
      open.push_back(&t);
    } else if (t.IsSymbol(")") || t.IsSymbol("]")) {
      if (open.empty()) return ts.Complain(t, "this '" + std::string(t.raw) + "' closes nothing");
      open.pop_back();
    }
    last = &ts.Next();
  }
  if (last == nullptr) {
    return ts.Error("a partition description such as RANGE(col) (...), LIST(col) (...), date_trunc('day', col) "
                    "or (col, ...)");
  }
  return std::string(ts.SourceText(start, *last));
}

Status ParseDistribution(TokenStream& ts, CreateTable* ct) {
  ts.Next();  // DISTRIBUTED
  RETURN_IF_ERROR(ts.ExpectWord("BY"));
  if (ts.AcceptWord("HASH")) {
    ASSIGN_OR_RETURN(ct->distribution_columns, ts.ExpectNameList("a distribution column name"));
  } else if (ts.AcceptWord("RANDOM")) {
    ct->distributed_random = true;
  } else {
    return ts.ErrorExpecting({"HASH", "RANDOM"});
  }
  if (ts.AcceptWord("BUCKETS")) {
    const Token& n = ts.Peek();
    ASSIGN_OR_RETURN(int64_t buckets, ts.ExpectInteger("a number of buckets"));
    if (buckets < 1) return ts.ErrorAt(n, "a number of buckets of at least 1");
    ct->buckets = buckets;
  }
  return Status::Ok();
}

// Lakehouse: CLUSTERED BY (cols) [SORTED BY (cols)] INTO n BUCKETS.
Status ParseClustering(TokenStream& ts, CreateTable* ct) {
  ts.Next();  // CLUSTERED
  RETURN_IF_ERROR(ts.ExpectWord("BY"));
  ASSIGN_OR_RETURN(ct->distribution_columns, ts.ExpectNameList("a clustering column name"));
  if (ts.AcceptWord("SORTED")) {
    RETURN_IF_ERROR(ts.ExpectWord("BY"));
    if (auto sorted = ts.SkipParenthesized(); !sorted.ok()) return sorted.status();
  }
  if (ts.AcceptWord("INTO")) {
    const Token& n = ts.Peek();
    ASSIGN_OR_RETURN(int64_t buckets, ts.ExpectInteger("a number of buckets"));
    if (buckets < 1) return ts.ErrorAt(n, "a number of buckets of at least 1");
    ct->buckets = buckets;
    RETURN_IF_ERROR(ts.ExpectWord("BUCKETS"));
  }
  return Status::Ok();
}

Result<std::string> ParsePropertyValue(TokenStream& ts) {
  const Token& t = ts.Peek();
  if (t.IsString()) {
    ts.Next();
    return t.text;
  }
  if (t.kind == TokenKind::kNumber || t.kind == TokenKind::kWord) {
    ts.Next();
    return std::string(t.raw);
  }
  if (t.IsSymbol("-") && ts.Peek(1).kind == TokenKind::kNumber) {
    ts.Next();
    return "-" + std::string(ts.Next().raw);
  }
  return ts.Error("a property value in quotes, like \"1\"");
}

Status ParseProperties(TokenStream& ts, CreateTable* ct) {
  ts.Next();  // PROPERTIES
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  if (ts.AcceptSymbol(")")) return Status::Ok();
  do {
    const Token& k = ts.Peek();
    if (!k.IsString() && !k.IsIdentifier()) return ts.Error("a property name in quotes, like \"replication_num\"");
    ts.Next();
    RETURN_IF_ERROR(ts.ExpectSymbol("="));
    ASSIGN_OR_RETURN(std::string value, ParsePropertyValue(ts));
    ct->properties.emplace_back(k.text, std::move(value));
  } while (ts.AcceptSymbol(","));
  if (!ts.AcceptSymbol(")")) return ts.ErrorExpecting({"','", "')'"});
  return Status::Ok();
}

struct TableOption {
  std::string_view name;  // as listed in errors
  bool seen = false;
};

Status ParseTableOptions(TokenStream& ts, CreateTable* ct, KeyClause* key) {
  TableOption engine{"ENGINE"}, comment{"COMMENT"}, partition{"PARTITION BY"}, distribution{"DISTRIBUTED BY"},
      order{"ORDER BY"}, properties{"PROPERTIES"};
  auto once = [&](TableOption& option, const Token& t) -> Status {
    if (option.seen) return ts.Complain(t, std::string(option.name) + " is written twice");
    option.seen = true;
    return Status::Ok();
  };
  while (!ts.AtEnd()) {
    const Token& t = ts.Peek();
    if (t.IsWord("ENGINE")) {
      RETURN_IF_ERROR(once(engine, t));
      ts.Next();
      ts.AcceptSymbol("=");
      const Token& name = ts.Peek();
      ASSIGN_OR_RETURN(std::string value, ts.ExpectIdentifier("an engine name (OLAP)"));
      ct->engine = AsciiUpper(value);
      if (ct->engine != "OLAP") {
        return ts.NotSupportedAt(name, "ENGINE = " + value +
                                           " is not supported: Sluice tables are OLAP tables (write ENGINE = OLAP "
                                           "or leave ENGINE out)");
      }
    } else if ((t.IsWord("DUPLICATE") || t.IsWord("AGGREGATE") || t.IsWord("UNIQUE") || t.IsWord("PRIMARY"))) {
      KeyModel model = t.IsWord("DUPLICATE")   ? KeyModel::kDuplicate
                       : t.IsWord("AGGREGATE") ? KeyModel::kAggregate
                       : t.IsWord("UNIQUE")    ? KeyModel::kUnique
                                               : KeyModel::kPrimary;
      ts.Next();
      RETURN_IF_ERROR(ts.ExpectWord("KEY"));
      RETURN_IF_ERROR(SetKey(ts, t, model, ct, key));
    } else if (t.IsWord("COMMENT")) {
      RETURN_IF_ERROR(once(comment, t));
      ts.Next();
      ts.AcceptSymbol("=");
      ASSIGN_OR_RETURN(ct->comment, ts.ExpectString("a comment string"));
    } else if (t.IsWord("PARTITION") && ts.PeekWord("BY", 1) && (ts.PeekWord("RANGE", 2) || ts.PeekWord("LIST", 2)) &&
               ts.PeekSymbol("(", 3) && ts.Peek(4).IsIdentifier() && (ts.PeekSymbol(")", 5) || ts.PeekSymbol(",", 5))) {
      // RANGE / LIST partitions on columns are enforced (catalog/table_partitions.h), so they are parsed, not just
      // kept. On a function (RANGE(str2date(dt, ...))) the clause is kept as text like the other forms.
      RETURN_IF_ERROR(once(partition, t));
      ts.Next();
      ts.Next();
      ASSIGN_OR_RETURN(ct->partitioning, ParsePartitionClause(ts));
      std::string_view text = ts.sql().substr(t.offset, ts.Peek().offset - t.offset);
      while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
      ct->partition_desc = std::string(text);
    } else if ((t.IsWord("PARTITION") || t.IsWord("PARTITIONED")) && ts.PeekWord("BY", 1)) {
      RETURN_IF_ERROR(once(partition, t));
      ASSIGN_OR_RETURN(ct->partition_desc, CapturePartition(ts));
    } else if (t.IsWord("DISTRIBUTED")) {
      RETURN_IF_ERROR(once(distribution, t));
      RETURN_IF_ERROR(ParseDistribution(ts, ct));
    } else if (t.IsWord("CLUSTERED")) {
      RETURN_IF_ERROR(once(distribution, t));
      RETURN_IF_ERROR(ParseClustering(ts, ct));
    } else if (t.IsWord("ORDER")) {
      // The sort key of a StarRocks primary-key table; DuckDB tables have none, so it is checked and dropped.
      RETURN_IF_ERROR(once(order, t));
      ts.Next();
      RETURN_IF_ERROR(ts.ExpectWord("BY"));
      if (auto cols = ts.ExpectNameList("a column name"); !cols.ok()) return cols.status();
    } else if (t.IsWord("PROPERTIES")) {
      RETURN_IF_ERROR(once(properties, t));
      RETURN_IF_ERROR(ParseProperties(ts, ct));
    } else {
      std::vector<std::string> expected;
      if (!engine.seen) expected.emplace_back("ENGINE");
      if (key->at == nullptr) {
        for (const char* k : {"DUPLICATE KEY", "AGGREGATE KEY", "UNIQUE KEY", "PRIMARY KEY"}) expected.emplace_back(k);
      }
      for (TableOption* o : {&comment, &partition, &distribution, &order, &properties}) {
        if (!o->seen) expected.emplace_back(o->name);
      }
      expected.emplace_back("end of statement");
      return ts.Error(ListAlternatives(expected));
    }
  }
  return Status::Ok();
}

// Lakehouse marks key columns inline (`id INT PRIMARY KEY`); they make the table a primary-key table.
Status ApplyInlinePrimaryKey(TokenStream& ts, CreateTable* ct, const KeyClause& key) {
  std::vector<std::string> inline_keys;
  for (const ColumnDef& c : ct->columns) {
    if (c.primary_key_inline) inline_keys.push_back(c.name);
  }
  if (inline_keys.empty()) return Status::Ok();
  if (key.at != nullptr) {
    return ts.Complain(*key.at, "the key is given both here and as PRIMARY KEY on column '" + inline_keys[0] +
                                    "'; give it once");
  }
  ct->key_model = KeyModel::kPrimary;
  ct->key_columns = std::move(inline_keys);
  return Status::Ok();
}

}  // namespace

Result<CreateTable> ParseCreateTable(TokenStream& ts) {
  const Token& create = ts.Next();  // CREATE
  RETURN_IF_ERROR(ts.ExpectWord("TABLE"));
  CreateTable ct;
  ct.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(ct.table, ts.ExpectTableName("a table name"));
  if (!ts.PeekSymbol("(")) return ts.ErrorExpecting({"'('", "AS", "LIKE"});
  KeyClause key;
  RETURN_IF_ERROR(ParseElements(ts, &ct, &key));
  RETURN_IF_ERROR(ParseTableOptions(ts, &ct, &key));
  RETURN_IF_ERROR(ApplyInlinePrimaryKey(ts, &ct, key));
  // The end token sits right after the statement's last token, so this is the statement without trailing ';'.
  std::string_view text = ts.sql().substr(create.offset);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  ct.source_text = std::string(text);
  return ct;
}

}  // namespace sluice::sql
