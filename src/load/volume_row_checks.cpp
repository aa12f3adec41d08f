#include "load/volume_row_checks.h"

#include "catalog/table_partitions.h"
#include "catalog/type_mapping.h"
#include "common/ascii.h"
#include "sql/parser.h"

namespace sluice::load {

VolumeRowChecks VolumeRowChecksFor(const catalog::TableMeta& table) {
  VolumeRowChecks out;
  for (const auto& c : table.columns) {
    const std::string col = sql::QuoteIdentifier(c.name);
    out.stage_columns_sql += (out.stage_columns_sql.empty() ? "" : ", ") + col + " " + c.duckdb_type;
    if (c.default_sql) out.stage_columns_sql += " DEFAULT " + *c.default_sql;
    if (!c.nullable)
      out.checks.push_back({c.name, col + " IS NULL",
                            sql::QuoteLiteral("column '" + c.name + "' is NOT NULL, but the row has no value for it")});
    // DuckDB keeps no VARCHAR length; the table's CHECK (catalog/table_definition.cpp) counts bytes, as StarRocks.
    if (auto limit = catalog::VarcharByteLimit(c.type_text); limit && AsciiUpper(c.duckdb_type) == "VARCHAR") {
      const std::string n = std::to_string(*limit);
      out.checks.push_back({c.name, "strlen(" + col + ") > " + n,
                            sql::QuoteLiteral("Data too long for column '" + c.name + "': the value is ") +
                                " || CAST(strlen(" + col + ") AS VARCHAR) || " +
                                sql::QuoteLiteral(" bytes long, more than its " + n + " bytes")});
    }
  }
  const catalog::PartitionScheme& scheme = table.partitioning;
  if (scheme.partitioned()) {
    std::vector<std::string> values;
    for (const auto& name : scheme.columns) values.push_back(sql::QuoteIdentifier(name));
    out.checks.push_back({"", "NOT " + catalog::PartitionMembershipSql(scheme, values),
                          sql::QuoteLiteral("no partition for this row: ") + " || " +
                              catalog::PartitionValuesReasonSql(scheme, values) + " || " +
                              sql::QuoteLiteral(" is in no partition of table '" + table.name + "'")});
  }
  return out;
}

}  // namespace sluice::load
