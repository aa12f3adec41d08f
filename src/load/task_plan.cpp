#include "load/task_plan.h"

#include <algorithm>

#include "common/ascii.h"
#include "catalog/pipe_definition.h"
#include "load/message_decoder.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::load {

namespace {

// DuckDB keeps no VARCHAR length, so the limit comes from the type as the table was created ("varchar(26)",
// "char(4)"), which Sluice remembers for every table it created, before this check existed too. The transform
// reads "VARCHAR(26)" as a byte limit (transform::SqlType::max_length).
std::string LoadType(const catalog::ColumnMeta& c) {
  if (AsciiUpper(c.duckdb_type) != "VARCHAR") return c.duckdb_type;
  const std::string t = AsciiUpper(c.type_text);
  if ((t.rfind("VARCHAR(", 0) == 0 || t.rfind("CHAR(", 0) == 0) && t.back() == ')') return t;
  return c.duckdb_type;
}

// StarRocks' table sink finds every row's partition; a row in none of the table's partitions, or in none of those
// the load's PARTITION (...) names, is a filtered row, an error row that counts toward max_error_number
// ("The row is out of partition ranges", in StarRocks' words). Both are checks inside the load's SELECT, comparisons
// against the partitions' bounds (adjacent ranges merged), never a per-row call.
Status AddPartitionChecks(const catalog::RoutineLoadDefinition& def, const catalog::TableMeta& table,
                          transform::TransformSpec* spec) {
  const catalog::PartitionScheme& scheme = table.partitioning;
  if (!scheme.partitioned()) {
    if (def.load.partitions)
      return Status::InvalidArgument("PARTITION (...) names partitions, but table '" + def.table +
                                     "' has no RANGE or LIST partitions; remove the clause");
    return Status::Ok();
  }
  const std::string table_name = table.name;
  spec->row_checks.push_back(
      {scheme.columns, [scheme](const std::vector<std::string>& v) { return "NOT " + catalog::PartitionMembershipSql(scheme, v); },
       [scheme, table_name](const std::vector<std::string>& v) {
         return sql::QuoteLiteral("no partition for this row: ") + " || " + catalog::PartitionValuesReasonSql(scheme, v) +
                " || " + sql::QuoteLiteral(" is in no partition of table '" + table_name + "'");
       }});
  if (!def.load.partitions) return Status::Ok();
  std::vector<std::string> names = *def.load.partitions;
  std::string listed;
  for (const auto& n : names) {
    if (!scheme.Find(n)) {
      std::string have;
      for (const auto& p : scheme.partitions) have += (have.empty() ? "" : ", ") + p.name;
      return Status::InvalidArgument("Unknown partition '" + n + "' in PARTITION (...): table '" + def.table +
                                     "' has " + (have.empty() ? "no partitions" : "partitions " + have));
    }
    listed += (listed.empty() ? "" : ", ") + n;
  }
  spec->row_checks.push_back(
      {scheme.columns,
       [scheme, names](const std::vector<std::string>& v) { return "NOT " + catalog::PartitionMembershipSql(scheme, v, names); },
       [scheme, listed](const std::vector<std::string>& v) {
         return sql::QuoteLiteral("no partition for this row among the load's PARTITION (" + listed + "): ") + " || " +
                catalog::PartitionValuesReasonSql(scheme, v) + " || " +
                sql::QuoteLiteral(" belongs to another partition of the table");
       }});
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const TaskPlan>> MakeTaskPlan(int64_t job_id, const catalog::RoutineLoadDefinition& def,
                                                     const catalog::TableMeta& table,
                                                     std::shared_ptr<CommitSink> sink) {
  auto plan = std::make_shared<TaskPlan>();
  plan->job_id = job_id;
  plan->def = def;
  plan->sink = sink ? std::move(sink) : std::make_shared<DuckDbSink>();
  plan->target_table_sql = sql::QuoteIdentifier(def.db) + "." + sql::QuoteIdentifier(def.table);

  transform::TransformSpec spec;
  for (const auto& c : table.columns) spec.table.push_back({c.name, LoadType(c), c.nullable});
  if (def.pipe) {
    // A pipe: SELECT <exprs> FROM READ_KAFKA(...) [WHERE ...] over the raw decoder's columns.
    for (const auto& [name, type] : catalog::ReadKafkaColumns()) {
      spec.source_columns.push_back(name);
      spec.source_types.emplace_back(name, type);
    }
    spec.sources_are_inputs = true;
    spec.derived = def.pipe->select;
    // The raw decoder reads the values of PARSE_JSON(value::STRING)[...] with simdjson, once per message.
    if (def.pipe->value_format == "raw") spec.decoded_json_source = "value";
  } else if (def.load.columns) {
    for (const auto& m : *def.load.columns) {
      if (m.expr) spec.derived.emplace_back(m.name, *m.expr);
      else spec.source_columns.push_back(m.name);
    }
  } else {
    for (const auto& c : table.columns) spec.source_columns.push_back(c.name);
  }
  if (spec.source_columns.empty())
    return Status::InvalidArgument("COLUMNS must name at least one source column (a column without `= expr`)");
  // A NOT NULL column without a default that the load never fills would fail every INSERT; say so now.
  for (const auto& c : table.columns) {
    if (c.nullable || c.default_sql) continue;
    bool filled = std::find(spec.source_columns.begin(), spec.source_columns.end(), c.name) != spec.source_columns.end() ||
                  std::any_of(spec.derived.begin(), spec.derived.end(), [&](const auto& d) { return d.first == c.name; });
    if (!filled)
      return Status::InvalidArgument("column '" + c.name + "' of table '" + def.table +
                                     "' is NOT NULL and has no default, but the load does not fill it; add it to " +
                                     (def.pipe ? "the SELECT list" : "COLUMNS"));
  }
  if (def.load.include_metadata) {
    ASSIGN_OR_RETURN(plan->metadata, catalog::ResolveIncludeMetadata(*def.load.include_metadata, def.Property("format")));
    for (const auto& m : plan->metadata) spec.metadata.push_back({m.alias, m.spec->duckdb_type});
  }
  spec.where = def.load.where;
  RETURN_IF_ERROR(AddPartitionChecks(def, table, &spec));
  if (def.pipe) spec.table_name = def.table;
  spec.strict_mode = def.BoolProperty("strict_mode");
  spec.timezone = def.Property("timezone");
  plan->source_columns = spec.source_columns;
  for (const auto& name : spec.source_columns) {
    auto it = std::find_if(table.columns.begin(), table.columns.end(),
                           [&](const catalog::ColumnMeta& c) { return sql::EqualsIgnoreCase(c.name, name); });
    plan->json_text_columns.push_back(it != table.columns.end() && AsciiUpper(it->duckdb_type) == "JSON");
  }
  plan->batch_columns = spec.source_columns;
  for (const auto& m : plan->metadata) plan->batch_columns.push_back(m.alias);
  ASSIGN_OR_RETURN(plan->transform, transform::Compile(spec));
  for (size_t k = 0; k < plan->transform.decoded_json_pointers.size(); k++)
    plan->batch_columns.push_back(transform::DecodedJsonColumn(k));
  ASSIGN_OR_RETURN(plan->write, PlanTableWrite(def, table, plan->target_table_sql, plan->transform.loaded_columns,
                                               plan->transform.has_op));
  // Building a decoder once validates the format options against the columns (e.g. jsonpaths count).
  ASSIGN_OR_RETURN(auto decoder, MakeDecoder(def, plan->source_columns, plan->transform.decoded_json_pointers,
                                               plan->json_text_columns, plan->transform.reads_source));
  (void)decoder;
  return std::shared_ptr<const TaskPlan>(std::move(plan));
}

}  // namespace sluice::load
