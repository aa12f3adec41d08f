#include "executor/partition_update.h"

#include <optional>
#include <vector>

#include "common/ascii.h"
#include "sql/lexer.h"
#include "sql/qualified_name.h"

namespace sluice {

namespace {

struct UpdateTarget {
  std::string db, table;
  std::vector<std::string> set_columns;
};

// UPDATE [db.]t [[AS] alias] SET c = expr [, c = expr ...] [FROM ...] [WHERE ...] [RETURNING ...]
std::optional<UpdateTarget> ParseUpdate(std::string_view sql) {
  sql::TokenReader reader(sql);
  if (!reader.Next().IsWord("UPDATE")) return std::nullopt;
  UpdateTarget out;
  sql::Token t;
  auto name = sql::ReadQualifiedName(reader, t);
  if (!name) return std::nullopt;
  out.db = name->db;
  out.table = name->name;
  while (t.kind != sql::TokenKind::kEnd && !t.IsWord("SET")) t = reader.Next();  // an alias
  if (!t.IsWord("SET")) return std::nullopt;
  while (true) {
    t = reader.Next();
    if (!t.IsIdentifier()) return out;
    std::string column = t.text;
    t = reader.Next();
    if (t.IsSymbol(".")) {  // alias.column
      t = reader.Next();
      column = t.text;
      t = reader.Next();
    }
    if (!t.IsSymbol("=")) return out;
    out.set_columns.push_back(column);
    // The value: up to a ',' or a clause word outside brackets.
    int depth = 0;
    for (t = reader.Next(); t.kind != sql::TokenKind::kEnd && t.kind != sql::TokenKind::kInvalid; t = reader.Next()) {
      if (t.IsSymbol("(") || t.IsSymbol("[")) depth++;
      if (t.IsSymbol(")") || t.IsSymbol("]")) depth--;
      if (depth == 0 && (t.IsSymbol(",") || t.IsWord("WHERE") || t.IsWord("FROM") || t.IsWord("RETURNING"))) break;
    }
    if (!t.IsSymbol(",")) return out;
  }
}

}  // namespace

Status CheckPartitionUpdate(catalog::Catalog& catalog, const std::string& current_db, std::string_view sql) {
  std::optional<UpdateTarget> update = ParseUpdate(sql);
  if (!update || update->set_columns.empty()) return Status::Ok();
  const std::string db = update->db.empty() ? current_db : update->db;
  if (db.empty()) return Status::Ok();
  auto meta = catalog.StoredMeta(db, update->table);
  if (!meta.ok() || !*meta || !(*meta)->partitioning.partitioned()) return Status::Ok();
  for (const auto& set : update->set_columns)
    for (const auto& column : (*meta)->partitioning.columns)
      if (AsciiLower(set) == AsciiLower(column))
        return Status::NotSupported("column '" + column + "' is a partition column of table '" + update->table +
                                    "': UPDATE cannot change it; DELETE the rows and INSERT them with the new value");
  return Status::Ok();
}

}  // namespace sluice
