#pragma once
// SELECT over Iceberg tables. The front door finds every catalog.db.table of an external catalog in the statement
// (FindLakeReferences), and Sluice itself replaces each by a relation over local copies of the table's data files:
// a snapshot's live files (iceberg/snapshot_files.h) -- the current one, or the one FOR VERSION AS OF <id> /
// FOR TIMESTAMP AS OF '<time>' names -- less the files the WHERE clause rules out (pruning, below), fetched over
// the catalog's S3 client into a bounded cache inside the engine's scratch folder (the only place DuckDB may
// read), read with read_parquet and cast to the table's column types. The user's SQL never names a file: only
// Sluice's rewrite does, after the statement was checked.
//
// Pruning: the statement, with a placeholder table where each reference stood, is parsed by DuckDB
// (json_serialize_sql, lake_predicates.h); the simple predicates of the WHERE of the SELECT that reads the table
// rule out files by partition value and column bounds (iceberg/scan_filter.h). Each reference leaves a note
// (SHOW WARNINGS) saying how many of the snapshot's files were read and how many were pruned.
//
// Metadata tables: catalog.db.table$snapshots, $history and $files are relations built from the metadata itself.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "lakehouse/lake_catalogs.h"
#include "storage/database.h"

namespace sluice::lakehouse {

struct LakeReference {
  size_t begin = 0;  // byte range of catalog.db.table [FOR ... AS OF ...] in the statement
  size_t end = 0;
  LakeTableRef ref;
  bool has_alias = false;  // followed by AS x or an alias name
  // FOR VERSION AS OF <snapshot id> / FOR TIMESTAMP AS OF '<time>' (Trino's and StarRocks' time travel).
  std::optional<int64_t> version;
  std::optional<std::string> as_of_time;
  std::string bad_period;  // a FOR ... clause that names neither: what was wrong
};

// Chains of exactly three names (not called, not part of a longer chain) whose first name is an external catalog.
std::vector<LakeReference> FindLakeReferences(std::string_view sql,
                                              const std::function<bool(const std::string&)>& is_external);

// What a rewrite did, for the statement's notes: one line per reference.
struct LakeReadNotes {
  std::vector<std::string> lines;
};

// `sql` with every reference replaced by `(SELECT CAST(col AS type) AS col, ... FROM read_parquet([...])) AS t`.
// `con` parses the statement for pruning (nothing runs on it).
Result<std::string> RewriteLakeReads(LakeCatalogs& lakes, storage::Connection& con, std::string_view sql,
                                     const std::vector<LakeReference>& refs, LakeReadNotes* notes = nullptr);

// The metadata table a table name asks for ("t$snapshots" -> "snapshots"; "" for a plain table name).
std::string MetadataTableOf(const std::string& table, std::string* base_table);

}  // namespace sluice::lakehouse
