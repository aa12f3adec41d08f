#pragma once
// Pipes, the Lakehouse dialect of continuous loading (shared/reference/pipe.md): CREATE / DROP / ALTER / SHOW /
// DESC PIPE. A Kafka pipe is `COPY INTO t FROM (SELECT ... FROM READ_KAFKA(...) [WHERE ...])`, a volume pipe
// `COPY INTO t FROM VOLUME vol ...`; Sluice runs both as routine load jobs of kind "pipe" (scheduler/), so the
// statements here only carry what was written.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::sql {

struct CopyIntoFromVolume;  // sql/volume_ast.h

// One item of the pipe's SELECT list: the expression's source text and its `AS alias`, if any.
struct PipeSelectItem {
  std::string expr;
  std::optional<std::string> alias;
};

struct CreatePipe {
  std::string db;  // from a qualified pipe name; empty = the session's
  std::string name;
  bool if_not_exists = false;
  // VIRTUAL_CLUSTER, BATCH_INTERVAL_IN_SECONDS, ... as written (names upper-cased), in order.
  std::vector<std::pair<std::string, std::string>> properties;
  std::optional<std::string> comment;
  // COPY INTO [[catalog.]db.]table. table_catalog: a table of an external (Iceberg) catalog, as in CREATE ROUTINE
  // LOAD ... ON catalog.db.table; empty (or default_catalog) for a table of the pipe's database.
  std::string table_catalog;
  std::string table_db;
  std::string table;
  std::vector<PipeSelectItem> select;
  // READ_KAFKA arguments 1-11 as text (strings unquoted, numbers as written) and argument 12, map(k, v, ...).
  std::vector<std::string> kafka_args;
  std::vector<std::pair<std::string, std::string>> kafka_settings;
  std::optional<std::string> where;  // source text
  // A volume pipe: `COPY INTO t FROM VOLUME vol ...` or `COPY INTO t FROM (SELECT ... FROM VOLUME vol ...)`, parsed
  // by the COPY INTO parser (FILES and FORCE are refused: a pipe loads every new file once). Null for Kafka pipes.
  std::shared_ptr<const CopyIntoFromVolume> volume_copy;
  std::string copy_text;             // `COPY INTO ...` as written
  std::string creator;               // not parsed: the session fills in its user
};

struct DropPipe {
  std::string db;
  std::string name;
  bool if_exists = false;
};

struct AlterPipe {
  std::string db;
  std::string name;
  bool execute = false;  // ALTER PIPE p EXECUTE
  std::string property;  // ALTER PIPE p SET PROPERTY = 'value' (upper-cased name)
  std::string value;
};

struct ShowPipes {
  std::string db;
  std::optional<std::string> like;
};

struct DescPipe {
  std::string db;
  std::string name;
  bool extended = false;
};

// Virtual clusters: named worker pools bounding how many tasks of their pipes run at once.
// `CREATE VCLUSTER [IF NOT EXISTS] name VCLUSTER_SIZE = n [NODES = ('n1', ...)]` (Lakehouse) or `... SIZE n`.
struct CreateVcluster {
  std::string name;
  bool if_not_exists = false;
  int64_t size = 1;
  // On a cluster: the only nodes that run its pipes (empty: every node).
  std::vector<std::string> nodes;
};

// `ALTER VCLUSTER [IF EXISTS] name SET [VCLUSTER_SIZE = n] [NODES = ('n1', ...) | NODES = ()]`: at least one.
struct AlterVcluster {
  std::string name;
  bool if_exists = false;
  std::optional<int64_t> size;
  // The nodes that run its pipes from now on; an empty list (NODES = ()): every node.
  std::optional<std::vector<std::string>> nodes;
};

struct DropVcluster {
  std::string name;
  bool if_exists = false;
};

struct ShowVclusters {
  std::optional<std::string> like;
};

}  // namespace sluice::sql
