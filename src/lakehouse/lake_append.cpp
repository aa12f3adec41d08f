#include "lakehouse/lake_append.h"

#include <filesystem>
#include <map>
#include <optional>

#include "common/ascii.h"
#include "common/log.h"
#include "iceberg/column_stats.h"
#include "iceberg/ids.h"
#include "iceberg/parquet_write_sql.h"
#include "iceberg/types.h"
#include "lakehouse/lake_bucket_function.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::lakehouse {

namespace fs = std::filesystem;

namespace {

// The DuckDB expression that groups rows exactly as (or finer than) the partition transform does, so each group's
// file lies in one partition. For bucket it is the bucket number itself (the file's partition value: its column
// ranges cannot tell it).
Result<std::string> GroupKey(const iceberg::PartitionField& p, const iceberg::Field& source) {
  const std::string col = sql::QuoteIdentifier(source.name);
  const bool tz = source.type.id == iceberg::TypeId::kTimestampTz;
  const std::string utc = tz ? "timezone('UTC', " + col + ")" : col;  // Iceberg's day of a timestamptz is UTC's
  switch (p.transform.kind) {
    case iceberg::TransformKind::kIdentity: return col;
    case iceberg::TransformKind::kYear: return "year(" + utc + ")";
    case iceberg::TransformKind::kMonth: return "(year(" + utc + ") * 12 + month(" + utc + "))";
    case iceberg::TransformKind::kDay: return "CAST(" + utc + " AS DATE)";
    case iceberg::TransformKind::kHour: return "date_trunc('hour', " + utc + ")";
    case iceberg::TransformKind::kTruncate: {
      const std::string w = std::to_string(p.transform.param);
      if (source.type.id == iceberg::TypeId::kString) return "left(" + col + ", " + w + ")";
      if (source.type.id == iceberg::TypeId::kInt || source.type.id == iceberg::TypeId::kLong)
        return "(" + col + " - (((" + col + " % " + w + ") + " + w + ") % " + w + "))";
      break;
    }
    case iceberg::TransformKind::kBucket: return BucketExpressionSql(col, source.type, p.transform.param);
    default:
      break;
  }
  return Status::NotSupported("INSERT into a table partitioned by " + p.transform.ToString() + "(" + source.name +
                              ") is not supported yet");
}

struct Cleanup {
  storage::Connection& con;
  std::string temp_table;
  std::string dir;
  ~Cleanup() {
    if (!temp_table.empty()) (void)con.Execute("DROP TABLE IF EXISTS " + temp_table);
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

int64_t Int(const std::optional<std::string>& v) { return v ? std::stoll(*v) : 0; }

// Per row group of `temp`: the bucket number of each bucket partition field (by index), the same for every row of
// the group since the bucket expression is one of the group's keys.
Result<std::map<int64_t, std::map<size_t, iceberg::Value>>> BucketValuesOfGroups(
    storage::Connection& con, const std::string& temp, const iceberg::Schema& schema,
    const iceberg::PartitionSpec& spec, const std::map<size_t, std::string>& bucket_keys) {
  std::map<int64_t, std::map<size_t, iceberg::Value>> out;
  if (bucket_keys.empty()) return out;
  std::string select;
  for (const auto& [index, key] : bucket_keys) select += ", any_value(" + key + ")";
  ASSIGN_OR_RETURN(auto rows, con.Query("SELECT __sluice_group" + select + " FROM " + temp + " GROUP BY 1"));
  for (const auto& row : rows.result_set->rows) {
    auto& values = out[Int(row.at(0))];
    size_t column = 1;
    for (const auto& [index, key] : bucket_keys) {
      const auto& cell = row.at(column++);
      const iceberg::Field* source = schema.FindById(spec.fields[index].source_id);
      ASSIGN_OR_RETURN(iceberg::Type type, spec.fields[index].transform.ResultType(source->type));
      if (!cell) {
        values[index] = iceberg::Value::Null(type);
      } else {
        values[index] = iceberg::Value{type, static_cast<int32_t>(std::stol(*cell))};
      }
    }
  }
  return out;
}

}  // namespace

Status CheckAppendable(const iceberg::TableMetadata& m, const std::string& name) {
  const iceberg::Schema* schema = m.CurrentSchema();
  const iceberg::PartitionSpec* spec = m.DefaultSpec();
  if (!schema || !spec) return Status::Internal("Iceberg table " + name + " has no current schema or spec");
  if (m.format_version != 2)
    return Status::NotSupported("Iceberg table " + name + " is format v" + std::to_string(m.format_version) +
                                "; Sluice appends to v2 tables only");
  for (const auto& p : spec->fields) {
    const iceberg::Field* src = schema->FindById(p.source_id);
    if (!src) return Status::Internal("partition field " + p.name + " of " + name + " has no source column");
    RETURN_IF_ERROR(GroupKey(p, *src).status());
  }
  return Status::Ok();
}

Result<iceberg::LoadedTable> LoadLakeTable(LakeConnection& conn, const LakeTableRef& target) {
  const std::string name = target.ToString();
  auto loaded = conn.ops->Load(target.Ident());
  if (!loaded.ok()) {
    if (loaded.status().code() == StatusCode::kUnknownTable) return Status::UnknownTable("Unknown table '" + name + "'");
    return loaded.status();
  }
  RETURN_IF_ERROR(CheckAppendable(loaded->metadata, name));
  return std::move(loaded).value();
}

catalog::TableMeta LakeTableMeta(const LakeTableRef& target, const iceberg::Schema& schema) {
  catalog::TableMeta table;
  table.db = target.catalog + "." + target.db;
  table.name = target.table;
  for (const auto& f : schema.fields) {
    catalog::ColumnMeta c;
    c.name = f.name;
    c.duckdb_type = iceberg::DuckDbTypeName(f.type);
    c.type_text = AsciiLower(c.duckdb_type);
    c.nullable = !f.required;
    table.columns.push_back(std::move(c));
  }
  return table;
}

Result<iceberg::FileToAppend> DescribeParquetFile(storage::Connection& con, const iceberg::Schema& schema,
                                                 const iceberg::PartitionSpec& spec, const std::string& path,
                                                 const std::map<size_t, iceberg::Value>& given) {
  ASSIGN_OR_RETURN(auto meta, con.Query("SELECT * REPLACE (CAST(min_is_exact AS VARCHAR) AS min_is_exact, "
                                        "CAST(max_is_exact AS VARCHAR) AS max_is_exact) FROM (" +
                                        iceberg::ParquetMetadataQuery(path) + ")"));
  std::vector<iceberg::ParquetChunkStats> chunks;
  for (const auto& r : meta.result_set->rows) {
    iceberg::ParquetChunkStats c;
    c.row_group_id = Int(r[0]);
    c.row_group_num_rows = Int(r[1]);
    c.path_in_schema = r[2].value_or("");
    c.num_values = Int(r[3]);
    if (r[4]) c.null_count = std::stoll(*r[4]);
    c.min_text = r[5];
    c.max_text = r[6];
    c.min_is_exact = r[7].value_or("true") == "true";
    c.max_is_exact = r[8].value_or("true") == "true";
    c.total_compressed_size = Int(r[9]);
    chunks.push_back(std::move(c));
  }
  iceberg::FileToAppend f;
  f.local_path = path;
  f.data_file.file_path = path;
  ASSIGN_OR_RETURN(iceberg::ColumnRanges ranges, iceberg::FillColumnMetrics(schema, chunks, &f.data_file));
  ASSIGN_OR_RETURN(f.data_file.partition, iceberg::PartitionFromRanges(schema, spec, ranges, f.data_file, given));
  return f;
}

Result<AppendOutcome> AppendRows(LakeConnection& conn, const LakeTableRef& target, storage::Connection& con,
                                 const AppendRequest& request, const std::string& work_dir) {
  const std::string name = target.ToString();
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(conn, target));
  const iceberg::Schema* schema = table.metadata.CurrentSchema();
  const iceberg::PartitionSpec* spec = table.metadata.DefaultSpec();
  const std::string& query = request.query;

  // Which query column feeds which table column.
  std::vector<std::string> targets = request.columns;
  if (targets.empty())
    for (const auto& f : schema->fields) targets.push_back(f.name);
  for (const auto& c : targets)
    if (!schema->FindByName(c)) return Status::UnknownColumn("Unknown column '" + c + "' in table '" + name + "'");
  ASSIGN_OR_RETURN(auto probe, con.Query("SELECT * FROM (" + query + ") LIMIT 0"));
  const size_t given = probe.result_set ? probe.result_set->columns.size() : 0;
  if (given != targets.size())
    return Status::InvalidArgument("INSERT INTO " + name + ": the query gives " + std::to_string(given) +
                                   " column(s) for " + std::to_string(targets.size()) + " target column(s)");
  std::string aliases;
  for (const auto& c : targets) aliases += (aliases.empty() ? "" : ", ") + sql::QuoteIdentifier(c);

  std::string projection, keys;
  std::map<size_t, std::string> bucket_keys;  // partition field index -> its bucket expression
  for (const auto& f : schema->fields) {
    const std::string col = sql::QuoteIdentifier(f.name);
    const std::string type = iceberg::DuckDbTypeName(f.type);
    bool present = false;
    for (const auto& c : targets) present = present || AsciiLower(c) == AsciiLower(f.name);
    std::string value = present ? "CAST(__sluice_q." + col + " AS " + type + ")" : "CAST(NULL AS " + type + ")";
    if (f.required) {
      if (!present)
        return Status::InvalidArgument("INSERT INTO " + name + ": column " + f.name +
                                       " is NOT NULL and the statement gives it no value");
      value = "CASE WHEN " + value + " IS NULL THEN error(" +
              sql::QuoteLiteral("column " + f.name + " of " + name + " is NOT NULL and a row gives it NULL") +
              ") ELSE " + value + " END";
    }
    projection += (projection.empty() ? "" : ", ") + value + " AS " + col;
  }
  for (const auto& p : spec->fields) {
    const iceberg::Field* src = schema->FindById(p.source_id);
    if (!src) return Status::Internal("partition field " + p.name + " of " + name + " has no source column");
    ASSIGN_OR_RETURN(std::string key, GroupKey(p, *src));
    keys += (keys.empty() ? "" : ", ") + key + " NULLS FIRST";
    if (!p.transform.monotonic()) bucket_keys[static_cast<size_t>(&p - spec->fields.data())] = key;
  }
  const std::string id = iceberg::NewUuid();
  std::string temp = "__sluice_lake_insert_";
  for (char c : id)
    if (c != '-') temp += c;
  Cleanup cleanup{con, "", (fs::path(work_dir) / ("append-" + id)).string()};
  std::error_code ec;
  fs::create_directories(cleanup.dir, ec);
  if (ec) return Status::IoError("cannot create " + cleanup.dir + ": " + ec.message());
  const std::string group = keys.empty() ? "1" : "dense_rank() OVER (ORDER BY " + keys + ")";
  RETURN_IF_ERROR(con.Execute("CREATE TEMP TABLE " + temp + " AS SELECT *, " + group +
                              " AS __sluice_group FROM (SELECT " + projection + " FROM (" + query +
                              ") AS __sluice_q(" + aliases + "))"));
  cleanup.temp_table = temp;
  ASSIGN_OR_RETURN(auto counts, con.Query("SELECT count(*), coalesce(max(__sluice_group), 0) FROM " + temp));
  const int64_t rows = Int(counts.result_set->rows.at(0).at(0));
  const int64_t groups = Int(counts.result_set->rows.at(0).at(1));
  AppendOutcome outcome;
  outcome.rows = static_cast<uint64_t>(rows);
  if (rows == 0 && !request.commit_when_empty) return outcome;  // nothing to commit: no empty snapshot

  ASSIGN_OR_RETURN(auto group_buckets, BucketValuesOfGroups(con, temp, *schema, *spec, bucket_keys));
  std::vector<iceberg::FileToAppend> files;
  for (int64_t g = 1; g <= groups; g++) {
    const std::string path = (fs::path(cleanup.dir) / ("part-" + std::to_string(g) + ".parquet")).string();
    RETURN_IF_ERROR(con.Execute(iceberg::ParquetCopySql(
        *schema, "SELECT * FROM " + temp + " WHERE __sluice_group = " + std::to_string(g), path)));
    ASSIGN_OR_RETURN(iceberg::FileToAppend f, DescribeParquetFile(con, *schema, *spec, path, group_buckets[g]));
    files.push_back(std::move(f));
  }
  ASSIGN_OR_RETURN(iceberg::StagedAppend staged, conn.ops->StageFiles(table, std::move(files)));
  // From here on the uploaded files are referenced by nothing until a commit lists them: every way out that does
  // not commit deletes them (a crash leaves them for remove_orphan_files).
  auto give_up = [&](Status st) -> Status {
    if (Status d = conn.ops->DiscardStaged(staged); !d.ok())
      log::Warn("lakehouse", "{}: could not delete the files of an abandoned commit: {}", name, d.message());
    return st;
  };
  if (request.after_stage)
    if (Status st = request.after_stage(); !st.ok()) return give_up(st);
  iceberg::LoadedTable base = std::move(table);
  // Another writer committed first: an append conflicts with nothing it added, so the same files go on top.
  constexpr int kAttempts = 11;
  std::optional<bool> runs_guards;  // asked of the catalog once per append, at the first attempt with guards
  for (int attempt = 1; attempt <= kAttempts; attempt++) {
    FencedCommit prepared;
    if (request.prepare) {
      auto p = request.prepare(base);
      if (!p.ok()) return give_up(p.status());
      prepared = std::move(p).value();
    }
    std::vector<CommitGuard> guards;
    if (!prepared.guards.empty() && prepared.witness) {
      if (!runs_guards) {
        auto runs = conn.catalog->RunsGuards(*prepared.witness);
        if (!runs.ok()) return give_up(runs.status());  // before the swap: nothing was committed
        runs_guards = *runs;
      }
      if (*runs_guards) guards = std::move(prepared.guards);
    }
    // An error here leaves the outcome unknown (the catalog may have swapped): nothing is deleted, and a load
    // reads its offsets back from the table before trying again.
    ASSIGN_OR_RETURN(iceberg::AppendResult result, conn.ops->CommitStaged(base, staged, prepared.summary, guards));
    if (result.outcome == iceberg::CommitOutcome::kRefused) {
      log::Warn("lakehouse", "{}: the catalog's swap refused the commit (a guard no longer held): {}", name,
                result.refused);
      return give_up(Status::Conflict(result.refused));
    }
    if (result.outcome == iceberg::CommitOutcome::kCommitted) {
      outcome.committed = true;
      outcome.snapshot_id = result.snapshot_id;
      outcome.metadata_location = result.table.metadata_location;
      return outcome;
    }
    base = std::move(result.table);
  }
  return give_up(Status::Conflict("INSERT INTO " + name + ": other writers kept committing first; nothing was "
                                  "written, run the statement again"));
}

}  // namespace sluice::lakehouse
