// icebergtool: the Iceberg layer (src/iceberg) from the command line, for tests and for trying it by hand, with a
// DuckDB of its own to write the Parquet files (the server's SQL never reaches the file system). Until loads are
// wired to Iceberg tables, this is how a table gets rows from Sluice's code.
//
//   icebergtool create  --catalog-uri URI --table db.t --warehouse s3://bucket/wh --columns "id BIGINT NOT NULL, ..."
//                       [--partition-by "day(ts)"]... [S3 flags]
//   icebergtool append  --catalog-uri URI --table db.t --sql "SELECT ..." [--sql ...] [--summary key=value]...
//                       [--hold-before-commit PATH] [--rebase-on-conflict true] [S3 flags]
//   icebergtool summary --catalog-uri URI --table db.t --key KEY
//   icebergtool show    --catalog-uri URI --table db.t
//   icebergtool files   --catalog-uri URI --table db.t [--snapshot ID]   (the live data files, read by Sluice)
// S3 flags: --s3-endpoint http://127.0.0.1:PORT --access-id ID --access-key KEY [--region R]
// Each --sql becomes one Parquet file, written with the table's field ids; a partitioned table needs each file to
// lie in one partition. append prints {"outcome": "committed"|"conflict", ...} and exits 0 / 3.
// --hold-before-commit: after staging, create PATH.ready and wait for PATH to exist (lets a test line two writers
// up on the same table version).
#include <duckdb.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "iceberg/column_stats.h"
#include "iceberg/ids.h"
#include "iceberg/jdbc_catalog.h"
#include "iceberg/metadata_json.h"
#include "iceberg/parquet_write_sql.h"
#include "iceberg/snapshot_files.h"
#include "iceberg/table_builder.h"
#include "iceberg/table_operations.h"

using namespace sluice;
using namespace sluice::iceberg;

namespace {

struct Args {
  std::string command;
  std::multimap<std::string, std::string> flags;
  std::string Get(const std::string& k, const std::string& fallback = "") const {
    auto it = flags.find(k);
    return it == flags.end() ? fallback : it->second;
  }
  std::vector<std::string> All(const std::string& k) const {
    std::vector<std::string> out;
    for (auto [it, end] = flags.equal_range(k); it != end; ++it) out.push_back(it->second);
    return out;
  }
};

int Fail(const Status& st) {
  std::fprintf(stderr, "icebergtool: %s\n", st.ToString().c_str());
  return 1;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// "id BIGINT NOT NULL, amount DECIMAL(10,2)" -> columns (commas inside parentheses do not split).
std::vector<ColumnDef> ParseColumns(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  std::vector<ColumnDef> out;
  for (auto p : parts) {
    while (!p.empty() && p.front() == ' ') p.erase(p.begin());
    size_t space = p.find(' ');
    ColumnDef c;
    c.name = p.substr(0, space);
    std::string type = space == std::string::npos ? "VARCHAR" : p.substr(space + 1);
    size_t nn = type.find(" NOT NULL");
    if (nn != std::string::npos) {
      c.not_null = true;
      type = type.substr(0, nn);
    }
    c.duckdb_type = type;
    out.push_back(c);
  }
  return out;
}

class DuckDb {
 public:
  DuckDb() {
    duckdb_open(nullptr, &db_);
    duckdb_connect(db_, &con_);
  }
  ~DuckDb() {
    duckdb_disconnect(&con_);
    duckdb_close(&db_);
  }
  // Rows as text (nullopt for NULL).
  Result<std::vector<std::vector<std::optional<std::string>>>> Query(const std::string& sql) {
    duckdb_result r;
    if (duckdb_query(con_, sql.c_str(), &r) != DuckDBSuccess) {
      std::string msg = duckdb_result_error(&r);
      duckdb_destroy_result(&r);
      return Status::InvalidArgument(fmt::format("DuckDB: {} in: {}", msg, sql));
    }
    std::vector<std::vector<std::optional<std::string>>> rows;
    idx_t n = duckdb_row_count(&r), cols = duckdb_column_count(&r);
    for (idx_t i = 0; i < n; i++) {
      std::vector<std::optional<std::string>> row;
      for (idx_t c = 0; c < cols; c++) {
        if (duckdb_value_is_null(&r, c, i)) {
          row.emplace_back(std::nullopt);
        } else {
          char* v = duckdb_value_varchar(&r, c, i);
          row.emplace_back(std::string(v));
          duckdb_free(v);
        }
      }
      rows.push_back(std::move(row));
    }
    duckdb_destroy_result(&r);
    return rows;
  }

 private:
  duckdb_database db_;
  duckdb_connection con_;
};

// Writes one Parquet file of `sql`'s rows, cast to the table's column types and tagged with its field ids, then
// gathers its metrics and partition tuple.
Result<FileToAppend> WriteDataFile(DuckDb& duck, const TableMetadata& m, const std::string& sql,
                                   const std::string& path) {
  const Schema& schema = *m.CurrentSchema();
  ASSIGN_OR_RETURN(auto ignored, duck.Query(ParquetCopySql(schema, sql, path)));
  (void)ignored;
  ASSIGN_OR_RETURN(auto rows, duck.Query(ParquetMetadataQuery(path)));
  std::vector<ParquetChunkStats> chunks;
  for (const auto& r : rows) {
    ParquetChunkStats c;
    c.row_group_id = std::stoll(*r[0]);
    c.row_group_num_rows = std::stoll(*r[1]);
    c.path_in_schema = r[2].value_or("");
    c.num_values = r[3] ? std::stoll(*r[3]) : 0;
    if (r[4]) c.null_count = std::stoll(*r[4]);
    c.min_text = r[5];
    c.max_text = r[6];
    c.min_is_exact = r[7].value_or("true") == "true";
    c.max_is_exact = r[8].value_or("true") == "true";
    c.total_compressed_size = r[9] ? std::stoll(*r[9]) : 0;
    chunks.push_back(std::move(c));
  }
  FileToAppend out;
  out.local_path = path;
  out.data_file.file_path = path;
  ASSIGN_OR_RETURN(ColumnRanges ranges, FillColumnMetrics(schema, chunks, &out.data_file));
  ASSIGN_OR_RETURN(out.data_file.partition, PartitionFromRanges(schema, *m.DefaultSpec(), ranges, out.data_file));
  return out;
}

int Run(const Args& a) {
  auto ident = TableIdent::Parse(a.Get("--table"));
  if (!ident.ok()) return Fail(ident.status());
  auto catalog = JdbcCatalog::Connect(a.Get("--catalog-uri"), a.Get("--catalog-name", "sluice"));
  if (!catalog.ok()) return Fail(catalog.status());
  std::unique_ptr<ObjectStore> store;
  if (!a.Get("--s3-endpoint").empty()) {
    source::S3Credentials creds;
    creds.endpoint = a.Get("--s3-endpoint");
    creds.region = a.Get("--region", "us-east-1");
    creds.access_id = a.Get("--access-id");
    creds.access_key = a.Get("--access-key");
    store = std::make_unique<S3ObjectStore>(creds);
  } else {
    store = std::make_unique<LocalObjectStore>();
  }
  TableOperations ops(catalog->get(), store.get());

  if (a.command == "create") {
    auto schema = SchemaFromColumns(ParseColumns(a.Get("--columns")));
    if (!schema.ok()) return Fail(schema.status());
    auto spec = PartitionSpecFromTerms(*schema, a.All("--partition-by"));
    if (!spec.ok()) return Fail(spec.status());
    auto exists = (*catalog)->NamespaceExists(ident->ns);
    if (!exists.ok()) return Fail(exists.status());
    if (!*exists) {
      Status st = (*catalog)->CreateNamespace(ident->ns);
      if (!st.ok() && st.code() != StatusCode::kDatabaseExists) return Fail(st);
    }
    auto t = ops.Create(*ident, *schema, *spec, DefaultTableLocation(a.Get("--warehouse"), ident->ns, ident->name),
                        {});
    if (!t.ok()) return Fail(t.status());
    std::printf("{\"metadata_location\": %s, \"location\": %s}\n", JsonString(t->metadata_location).c_str(),
                JsonString(t->metadata.location).c_str());
    return 0;
  }
  auto table = ops.Load(*ident);
  if (!table.ok()) return Fail(table.status());
  if (a.command == "show") {
    std::string ids;
    for (const auto& s : table->metadata.snapshots) ids += (ids.empty() ? "" : ", ") + std::to_string(s.snapshot_id);
    std::printf("{\"metadata_location\": %s, \"snapshots\": %zu, \"snapshot_ids\": [%s]}\n",
                JsonString(table->metadata_location).c_str(), table->metadata.snapshots.size(), ids.c_str());
    return 0;
  }
  if (a.command == "files") {
    std::optional<int64_t> snapshot;
    if (!a.Get("--snapshot").empty()) snapshot = std::stoll(a.Get("--snapshot"));
    auto files = ListLiveDataFiles(store.get(), table->metadata, snapshot);
    if (!files.ok()) return Fail(files.status());
    std::string out = "[";
    for (const auto& f : *files) {
      std::string partition;
      for (const auto& v : f.file.partition) partition += (partition.empty() ? "" : ", ") + JsonString(ValueToText(v));
      out += fmt::format("{}{{\"path\": {}, \"records\": {}, \"size\": {}, \"sequence_number\": {}, "
                         "\"snapshot_id\": {}, \"partition\": [{}]}}",
                         out.size() > 1 ? ", " : "", JsonString(f.file.file_path), f.file.record_count,
                         f.file.file_size_in_bytes, f.sequence_number, f.snapshot_id, partition);
    }
    std::printf("%s]\n", out.c_str());
    return 0;
  }
  if (a.command == "summary") {
    auto v = ReadSummaryChain(table->metadata, a.Get("--key"));
    if (!v) {
      std::printf("null\n");
    } else {
      std::printf("{\"value\": %s, \"snapshot_id\": %lld}\n", JsonString(v->value).c_str(),
                  static_cast<long long>(v->snapshot_id));
    }
    return 0;
  }
  if (a.command == "append") {
    DuckDb duck;
    (void)duck.Query("SET TimeZone = 'UTC'");  // TIMESTAMPTZ statistics rendered in UTC
    std::string dir = (std::filesystem::temp_directory_path() / ("icebergtool-" + NewUuid())).string();
    std::filesystem::create_directories(dir);
    std::vector<FileToAppend> files;
    int n = 0;
    for (const auto& sql : a.All("--sql")) {
      auto f = WriteDataFile(duck, table->metadata, sql, fmt::format("{}/f{}.parquet", dir, n++));
      if (!f.ok()) return Fail(f.status());
      files.push_back(std::move(*f));
    }
    Summary summary;
    for (const auto& kv : a.All("--summary")) {
      size_t eq = kv.find('=');
      summary[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
    }
    auto staged = ops.StageFiles(*table, std::move(files));
    if (!staged.ok()) return Fail(staged.status());
    if (std::string hold = a.Get("--hold-before-commit"); !hold.empty()) {
      std::ofstream(hold + ".ready").put('1');
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (!std::filesystem::exists(hold) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    auto result = ops.CommitStaged(*table, *staged, summary);
    // --rebase-on-conflict: what a writer whose own progress did not move does: commit the same staged files on
    // top of the version that won (a few times at most).
    for (int retry = 0; a.Get("--rebase-on-conflict") == "true" && retry < 5 && result.ok() &&
                        result->outcome == CommitOutcome::kConflict;
         retry++) {
      LoadedTable current = result->table;
      result = ops.CommitStaged(current, *staged, summary);
    }
    std::filesystem::remove_all(dir);
    if (!result.ok()) return Fail(result.status());
    std::printf("{\"outcome\": \"%s\", \"snapshot_id\": %lld, \"metadata_location\": %s}\n",
                CommitOutcomeName(result->outcome), static_cast<long long>(result->snapshot_id),
                JsonString(result->table.metadata_location).c_str());
    return result->outcome == CommitOutcome::kCommitted ? 0 : 3;
  }
  return Fail(Status::InvalidArgument("unknown command: use create, append, summary or show"));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: icebergtool create|append|summary|show --catalog-uri URI --table db.t ...\n");
    return 2;
  }
  Args a;
  a.command = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) a.flags.emplace(argv[i], argv[i + 1]);
  return Run(a);
}
