// StarRocks RANGE and LIST partitions: PARTITION BY RANGE/LIST (cols) (...) in CREATE TABLE, ALTER TABLE ... ADD /
// DROP PARTITION and SHOW PARTITIONS. Values are kept as written; the catalog checks them against the columns.
#include <string>
#include <vector>

#include "common/ascii.h"
#include "sql/parser.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

// "2024-01-01", '2024-01-01', 100, -5, NULL, MAXVALUE.
Result<PartitionValue> ParseValue(TokenStream& ts, bool allow_null, bool allow_max) {
  const Token& t = ts.Peek();
  PartitionValue v;
  if (t.IsString()) {
    v.text = ts.Next().text;
    return v;
  }
  if (t.kind == TokenKind::kNumber) {
    v.text = std::string(ts.Next().raw);
    return v;
  }
  if ((t.IsSymbol("-") || t.IsSymbol("+")) && ts.Peek(1).kind == TokenKind::kNumber) {
    ts.Next();
    v.text = (t.IsSymbol("-") ? "-" : "") + std::string(ts.Next().raw);
    return v;
  }
  if (allow_null && t.IsWord("NULL")) {
    ts.Next();
    v.is_null = true;
    return v;
  }
  if (allow_max && t.IsWord("MAXVALUE")) {
    ts.Next();
    v.is_max = true;
    return v;
  }
  return ts.Error(allow_null  ? "a partition value in quotes, like \"Beijing\", or NULL"
                  : allow_max ? "a partition bound in quotes, like \"2024-01-01\", or MAXVALUE"
                              : "a partition bound in quotes, like \"2024-01-01\"");
}

// ( v [, v ...] )
Result<std::vector<PartitionValue>> ParseTuple(TokenStream& ts, bool allow_null, bool allow_max) {
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  std::vector<PartitionValue> out;
  do {
    ASSIGN_OR_RETURN(PartitionValue v, ParseValue(ts, allow_null, allow_max));
    out.push_back(std::move(v));
  } while (ts.AcceptSymbol(","));
  if (!ts.AcceptSymbol(")")) return ts.ErrorExpecting({"','", "')'"});
  return out;
}

Status ParseItemProperties(TokenStream& ts, PartitionItem* item) {
  // PARTITION p VALUES ... ("replication_num" = "1"): StarRocks' per-partition storage settings.
  if (!ts.PeekSymbol("(")) return Status::Ok();
  ts.Next();
  do {
    const Token& k = ts.Peek();
    if (!k.IsString() && !k.IsIdentifier()) return ts.Error("a property name in quotes, like \"replication_num\"");
    ts.Next();
    RETURN_IF_ERROR(ts.ExpectSymbol("="));
    const Token& v = ts.Peek();
    if (!v.IsString() && v.kind != TokenKind::kNumber && v.kind != TokenKind::kWord)
      return ts.Error("a property value in quotes, like \"1\"");
    ts.Next();
    item->properties.emplace_back(k.text, v.kind == TokenKind::kNumber ? std::string(v.raw) : v.text);
  } while (ts.AcceptSymbol(","));
  if (!ts.AcceptSymbol(")")) return ts.ErrorExpecting({"','", "')'"});
  return Status::Ok();
}

// START ("2024-01-01") END ("2024-02-01") EVERY (INTERVAL 1 DAY) | EVERY (10): StarRocks' batch of equal ranges.
Result<PartitionItem> ParseBatch(TokenStream& ts) {
  PartitionItem item;
  item.kind = PartitionItem::Kind::kBatch;
  ts.Next();  // START
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  ASSIGN_OR_RETURN(item.start, ParseValue(ts, false, false));
  RETURN_IF_ERROR(ts.ExpectSymbol(")"));
  RETURN_IF_ERROR(ts.ExpectWord("END"));
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  ASSIGN_OR_RETURN(item.end, ParseValue(ts, false, false));
  RETURN_IF_ERROR(ts.ExpectSymbol(")"));
  RETURN_IF_ERROR(ts.ExpectWord("EVERY"));
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  const bool interval = ts.AcceptWord("INTERVAL");
  const Token& n = ts.Peek();
  ASSIGN_OR_RETURN(item.every, ts.ExpectInteger("a step, like INTERVAL 1 DAY or 10"));
  if (item.every < 1) return ts.ErrorAt(n, "a step of at least 1");
  if (interval) {
    const Token& unit = ts.Peek();
    ASSIGN_OR_RETURN(std::string u, ts.ExpectIdentifier("a time unit: DAY, WEEK, MONTH, YEAR or HOUR"));
    item.every_unit = AsciiUpper(u);
    if (item.every_unit != "DAY" && item.every_unit != "WEEK" && item.every_unit != "MONTH" &&
        item.every_unit != "YEAR" && item.every_unit != "HOUR")
      return ts.ErrorAt(unit, "a time unit: DAY, WEEK, MONTH, YEAR or HOUR");
  }
  RETURN_IF_ERROR(ts.ExpectSymbol(")"));
  return item;
}

}  // namespace

Result<PartitionItem> ParsePartitionItem(TokenStream& ts, bool list) {
  PartitionItem item;
  ASSIGN_OR_RETURN(item.name, ts.ExpectIdentifier("a partition name"));
  RETURN_IF_ERROR(ts.ExpectWord("VALUES"));
  if (list) {
    const Token& in = ts.Peek();
    if (in.IsWord("LESS") || in.IsSymbol("["))
      return ts.Complain(in, "a LIST partition lists its values: VALUES IN (\"a\", \"b\"); VALUES LESS THAN and "
                             "VALUES [...) are for RANGE partitions");
    RETURN_IF_ERROR(ts.ExpectWord("IN"));
    item.kind = PartitionItem::Kind::kIn;
    RETURN_IF_ERROR(ts.ExpectSymbol("("));
    do {
      if (ts.PeekSymbol("(")) {  // a multi-column value: ("a", "b")
        ASSIGN_OR_RETURN(auto tuple, ParseTuple(ts, true, false));
        item.in.push_back(std::move(tuple));
      } else {
        ASSIGN_OR_RETURN(PartitionValue v, ParseValue(ts, true, false));
        item.in.push_back({std::move(v)});
      }
    } while (ts.AcceptSymbol(","));
    if (!ts.AcceptSymbol(")")) return ts.ErrorExpecting({"','", "')'"});
  } else if (ts.AcceptWord("LESS")) {
    RETURN_IF_ERROR(ts.ExpectWord("THAN"));
    item.kind = PartitionItem::Kind::kLessThan;
    if (ts.AcceptWord("MAXVALUE")) {
      item.less_than.push_back(PartitionValue{"", false, true});
    } else {
      ASSIGN_OR_RETURN(item.less_than, ParseTuple(ts, false, true));
    }
  } else if (ts.AcceptSymbol("[")) {
    item.kind = PartitionItem::Kind::kFixedRange;
    ASSIGN_OR_RETURN(item.lower, ParseTuple(ts, false, false));
    RETURN_IF_ERROR(ts.ExpectSymbol(","));
    ASSIGN_OR_RETURN(item.upper, ParseTuple(ts, false, true));
    RETURN_IF_ERROR(ts.ExpectSymbol(")"));
  } else {
    if (ts.PeekWord("IN"))
      return ts.Complain(ts.Peek(), "a RANGE partition gives bounds: VALUES LESS THAN (\"v\") or VALUES [(\"a\"), "
                                    "(\"b\")); VALUES IN (...) is for LIST partitions");
    return ts.ErrorExpecting({"LESS THAN", "'['"});
  }
  RETURN_IF_ERROR(ParseItemProperties(ts, &item));
  return item;
}

// At RANGE or LIST, after PARTITION BY.
Result<PartitionClause> ParsePartitionClause(TokenStream& ts) {
  PartitionClause clause;
  clause.list = ts.Next().IsWord("LIST");
  ASSIGN_OR_RETURN(clause.columns, ts.ExpectNameList("a partition column name"));
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  if (ts.PeekSymbol(")")) {
    ts.Next();
    return clause;  // no partitions yet: ALTER TABLE ... ADD PARTITION gives them
  }
  do {
    const Token& t = ts.Peek();
    if (t.IsWord("START") && !clause.list) {
      ASSIGN_OR_RETURN(PartitionItem item, ParseBatch(ts));
      clause.items.push_back(std::move(item));
      continue;
    }
    if (!t.IsWord("PARTITION")) return ts.ErrorExpecting({"PARTITION", "START"});
    ts.Next();
    ASSIGN_OR_RETURN(PartitionItem item, ParsePartitionItem(ts, clause.list));
    clause.items.push_back(std::move(item));
  } while (ts.AcceptSymbol(","));
  if (!ts.AcceptSymbol(")")) return ts.ErrorExpecting({"','", "')'"});
  return clause;
}

bool IsAlterTablePartition(const TokenStream& ts) {
  if (!ts.PeekWord("ALTER") || !ts.PeekWord("TABLE", 1) || !ts.Peek(2).IsIdentifier()) return false;
  size_t at = ts.PeekSymbol(".", 3) ? 5 : 3;
  if (!ts.PeekWord("ADD", at) && !ts.PeekWord("DROP", at)) return false;
  if (ts.PeekWord("TEMPORARY", at + 1)) at++;
  return ts.PeekWord("PARTITION", at + 1) || (ts.PeekWord("ADD", at) && ts.PeekWord("PARTITIONS", at + 1));
}

Result<Statement> ParseAlterTablePartition(TokenStream& ts) {
  ts.Next();  // ALTER
  ts.Next();  // TABLE
  AlterTablePartition alter;
  ASSIGN_OR_RETURN(alter.table, ts.ExpectQualifiedName("a table name"));
  alter.add = ts.Next().IsWord("ADD");
  alter.temporary = ts.AcceptWord("TEMPORARY");
  const Token& partition = ts.Next();
  if (partition.IsWord("PARTITIONS")) {
    if (!alter.add || !ts.PeekWord("START")) return ts.ErrorExpecting({"START"});
    ASSIGN_OR_RETURN(alter.item, ParseBatch(ts));  // ADD PARTITIONS START (...) END (...) EVERY (...)
  } else if (alter.add) {
    alter.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
    // The kind (RANGE or LIST) is the table's; the values say which one was meant.
    size_t values_at = ts.Peek(1).IsWord("VALUES") ? 2 : 0;
    bool list = values_at && ts.PeekWord("IN", values_at);
    ASSIGN_OR_RETURN(alter.item, ParsePartitionItem(ts, list));
  } else {
    alter.if_exists = ts.AcceptWords({"IF", "EXISTS"});
    ASSIGN_OR_RETURN(alter.item.name, ts.ExpectIdentifier("a partition name"));
    ts.AcceptWord("FORCE");  // StarRocks: skip the recycle bin; Sluice keeps no dropped partitions anyway
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(alter)};
}

bool IsShowPartitions(const TokenStream& ts) {
  return ts.PeekWord("SHOW") &&
         (ts.PeekWord("PARTITIONS", 1) || (ts.PeekWord("TEMPORARY", 1) && ts.PeekWord("PARTITIONS", 2)));
}

Result<Statement> ParseShowPartitions(TokenStream& ts) {
  ts.Next();  // SHOW
  ShowPartitions show;
  show.temporary = ts.AcceptWord("TEMPORARY");
  ts.Next();  // PARTITIONS
  if (!ts.AcceptWord("FROM") && !ts.AcceptWord("IN")) return ts.ErrorExpecting({"FROM"});
  ASSIGN_OR_RETURN(show.table, ts.ExpectQualifiedName("a table name"));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(show)};
}

}  // namespace sluice::sql
