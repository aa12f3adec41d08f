#include "executor/declared_lengths.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "catalog/type_mapping.h"
#include "common/ascii.h"

namespace sluice {

namespace {

// A query with more names that may be tables than this is left without lengths: each is a small catalog query.
constexpr size_t kMaxNamesRead = 8;

}  // namespace

void AddDeclaredLengths(catalog::Catalog& catalog, const std::string& current_db, const sql::StatementScan& scan,
                        std::vector<ColumnInfo>* columns) {
  const bool any_text = std::any_of(columns->begin(), columns->end(),
                                    [](const ColumnInfo& c) { return c.type == ValueType::kVarchar; });
  if (!any_text) return;
  // Every chain that may name a table: t (in the current database) or db.t. Column names (s, t.s) are among them
  // and are simply not tables.
  std::set<std::pair<std::string, std::string>> tables;
  for (const sql::NameChain& chain : scan.names) {
    if (chain.called) continue;
    if (chain.parts.size() == 1 && !current_db.empty()) tables.emplace(current_db, chain.parts[0]);
    if (chain.parts.size() == 2) tables.emplace(chain.parts[0], chain.parts[1]);
  }
  // Lower-cased column name -> its length in every table that has it (0: a column of unbounded text there).
  std::map<std::string, std::set<int64_t>> lengths;
  // What Sluice keeps about each (one small query on the catalog's own connection: the session's may be streaming
  // this statement's rows), not DuckDB's live columns, which would cost a catalog scan per query.
  if (tables.size() > kMaxNamesRead) return;
  for (const auto& [db, table] : tables) {
    Result<std::optional<catalog::TableMeta>> meta = catalog.StoredMeta(db, table);
    if (!meta.ok() || !meta->has_value()) continue;
    for (const catalog::ColumnMeta& c : (*meta)->columns)
      lengths[AsciiLower(c.name)].insert(catalog::VarcharByteLimit(c.type_text).value_or(0));
  }
  for (ColumnInfo& c : *columns) {
    if (c.type != ValueType::kVarchar) continue;
    auto it = lengths.find(AsciiLower(c.name));
    // Two tables with a column of this name and different lengths: which one the result has is not known here.
    if (it == lengths.end() || it->second.size() != 1 || *it->second.begin() <= 0) continue;
    c.char_length = static_cast<uint32_t>(std::min<int64_t>(*it->second.begin(), 1 << 20));
  }
}

}  // namespace sluice
