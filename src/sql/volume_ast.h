#pragma once
// Storage connections, external volumes and COPY INTO from a volume (Lakehouse grammar, see
// shared/reference/pipe.md). The parser keeps values as written; catalog/ validates them (required keys, location
// schemes, copy options) so the rules live next to what is stored.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::sql {

// Included by sql/ast.h after TypeSpec.

// CREATE STORAGE CONNECTION [IF NOT EXISTS] name TYPE S3 ENDPOINT = '...' ACCESS_ID = '...' ACCESS_KEY = '...'
//   [REGION = '...'] [COMMENT '...']   (settings in any order, '=' and ',' optional)
struct CreateStorageConnection {
  std::string name;
  bool if_not_exists = false;
  // Upper-case setting name -> value, in the order written: TYPE, ENDPOINT, ACCESS_ID, ACCESS_KEY, REGION, COMMENT.
  std::vector<std::pair<std::string, std::string>> settings;
};

// CREATE [EXTERNAL] VOLUME [IF NOT EXISTS] name LOCATION '...' [USING CONNECTION conn] [RECURSIVE = TRUE|FALSE]
//   [COMMENT '...']
struct CreateVolume {
  std::string name;
  bool if_not_exists = false;
  std::string location;
  std::string connection;            // empty when no USING CONNECTION
  std::optional<bool> recursive;
  std::string comment;
};

// Which kind of storage object SHOW / DESC / DROP name.
enum class StorageObjectKind { kConnection, kVolume };

// SHOW [STORAGE] CONNECTIONS [LIKE '...'] / SHOW [EXTERNAL] VOLUMES [LIKE '...']
struct ShowStorageObjects {
  StorageObjectKind kind = StorageObjectKind::kConnection;
  std::optional<std::string> like;
};
// DESC [STORAGE] CONNECTION name / DESC [EXTERNAL] VOLUME name
struct DescribeStorageObject {
  StorageObjectKind kind = StorageObjectKind::kConnection;
  std::string name;
};
// DROP [STORAGE] CONNECTION [IF EXISTS] name / DROP [EXTERNAL] VOLUME [IF EXISTS] name
struct DropStorageObject {
  StorageObjectKind kind = StorageObjectKind::kConnection;
  std::string name;
  bool if_exists = false;
};

// COPY INTO [db.]table FROM VOLUME vol [(col type, ...)] USING CSV|JSON|PARQUET [OPTIONS ('k' = 'v', ...)]
//   [FILES ('a.csv', ...) | REGEXP '...' | SUBDIRECTORY '...'] [ON_ERROR = CONTINUE|ABORT] [FORCE = TRUE|FALSE]
// or COPY INTO [db.]table FROM (SELECT ... FROM VOLUME vol ... [WHERE ...]) [ON_ERROR = ...] [FORCE = ...]
struct CopyIntoFromVolume {
  std::string catalog;              // an external (Iceberg) catalog: COPY INTO catalog.db.table; empty: Sluice's own
  std::string db;                   // empty: the session's database
  std::string table;
  std::string volume;
  std::vector<std::pair<std::string, TypeSpec>> file_columns;  // the files' schema; empty: the table's columns
  std::string format;               // "CSV", "JSON" or "PARQUET" (upper case)
  std::vector<std::pair<std::string, std::string>> options;       // as written
  std::vector<std::string> files;   // FILES (...)
  std::optional<std::string> regexp;
  std::optional<std::string> subdirectory;
  std::string on_error = "ABORT";   // "CONTINUE" or "ABORT"
  // The transform form COPY INTO t FROM (SELECT <select_list> FROM VOLUME ... [WHERE <where>]): source text as
  // written; both empty for the plain form.
  std::string select_list;
  std::string where;
  bool force = false;
};

}  // namespace sluice::sql
