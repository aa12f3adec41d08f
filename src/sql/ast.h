#pragma once
// The statements Sluice parses itself. Everything else is a PassThrough: DuckDB runs it after the front door
// translated its MySQL-isms (backticks, LIMIT a, b, @@variables, DATABASE()).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sql/account_ast.h"
#include "sql/pipe_ast.h"
#include "sql/routine_load_ast.h"

namespace sluice::sql {

// `db.name` or `name`; db empty when not written. `catalog.db.name` (ExpectTableName) names a table of an
// external catalog (CREATE EXTERNAL CATALOG); catalog is empty otherwise.
struct QualifiedName {
  std::string db;
  std::string name;
  std::string catalog;
  std::string ToString() const {
    std::string out = db.empty() ? name : db + "." + name;
    return catalog.empty() ? out : catalog + "." + out;
  }
};

// A column type as written, normalized to upper case: name "VARCHAR" with params {26};
// "DECIMAL" {10, 2}; "ARRAY" with one child; "MAP" with two; "STRUCT" with named children.
struct TypeSpec {
  std::string name;
  std::vector<int64_t> params;
  std::vector<TypeSpec> children;
  std::vector<std::string> field_names;  // STRUCT only, parallel to children
};

enum class AggregateFunction { kNone, kSum, kMax, kMin, kReplace, kReplaceIfNotNull };
// As written in CREATE TABLE: SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL; "" for kNone.
const char* AggregateFunctionName(AggregateFunction f);
enum class KeyModel { kNone, kDuplicate, kAggregate, kUnique, kPrimary };

struct ColumnDef {
  std::string name;
  TypeSpec type;
  std::optional<bool> nullable;            // NULL / NOT NULL as written; unset when not written
  AggregateFunction aggregate = AggregateFunction::kNone;
  std::optional<std::string> default_sql;  // the default expression's source text, e.g. "'abc'" or "CURRENT_TIMESTAMP"
  bool auto_increment = false;
  std::string comment;
  bool primary_key_inline = false;         // Lakehouse `col INT PRIMARY KEY`
};

// A partition bound or list value as written: a string or number's text, NULL (LIST only) or MAXVALUE (a RANGE
// upper bound only). The catalog checks it against the column's type.
struct PartitionValue {
  std::string text;
  bool is_null = false;
  bool is_max = false;
};

// One partition of PARTITION BY RANGE/LIST (...) or ALTER TABLE ... ADD PARTITION.
struct PartitionItem {
  enum class Kind { kLessThan, kFixedRange, kIn, kBatch };
  std::string name;
  Kind kind = Kind::kLessThan;
  std::vector<PartitionValue> less_than;          // kLessThan, one value per column (MAXVALUE: one is_max value)
  std::vector<PartitionValue> lower, upper;       // kFixedRange: [lower, upper)
  std::vector<std::vector<PartitionValue>> in;    // kIn: one tuple per listed value
  // kBatch: START ("a") END ("b") EVERY (INTERVAL n unit) / EVERY (n); `name` is empty, the catalog names them.
  PartitionValue start, end;
  int64_t every = 0;
  std::string every_unit;                         // DAY, WEEK, MONTH, YEAR, HOUR; empty for integer steps
  std::vector<std::pair<std::string, std::string>> properties;  // ("replication_num" = "1"): accepted, not kept
};

// PARTITION BY RANGE (cols) (...) / PARTITION BY LIST (cols) (...).
struct PartitionClause {
  bool list = false;
  std::vector<std::string> columns;
  std::vector<PartitionItem> items;
};

struct CreateTable {
  QualifiedName table;
  bool if_not_exists = false;
  std::vector<ColumnDef> columns;
  std::string engine;                      // "OLAP" or empty
  KeyModel key_model = KeyModel::kNone;
  std::vector<std::string> key_columns;
  std::string partition_desc;              // the PARTITION BY clause's source text, kept for SHOW CREATE TABLE
  std::optional<PartitionClause> partitioning;  // RANGE / LIST partitions, which Sluice enforces
  std::vector<std::string> distribution_columns;  // DISTRIBUTED BY HASH(...)
  bool distributed_random = false;         // DISTRIBUTED BY RANDOM
  std::optional<int64_t> buckets;
  std::vector<std::pair<std::string, std::string>> properties;  // in the order written
  std::string comment;                     // table COMMENT
  std::string source_text;                 // the whole statement as the user wrote it
};

// `catalog` is set for CREATE DATABASE catalog.db / DROP DATABASE catalog.db / SHOW DATABASES FROM catalog /
// SHOW TABLES FROM catalog.db (an external catalog's namespace); empty otherwise.
struct CreateDatabase { std::string name; bool if_not_exists = false; std::string catalog; };
struct DropDatabase { std::string name; bool if_exists = false; bool force = false; std::string catalog; };
struct UseDatabase { std::string name; };
struct ShowDatabases { std::optional<std::string> like; std::string catalog; };
struct ShowTables {
  std::string catalog;
  std::string db;                          // FROM/IN db; empty = current
  bool full = false;
  bool history = false;                    // SHOW TABLES HISTORY: dropped tables still restorable
  std::optional<std::string> like;
};
struct DescribeTable {
  QualifiedName table;
  bool full = false;  // SHOW FULL COLUMNS: also Collation, Privileges and Comment, as MySQL shows them
};
// SHOW INDEX|INDEXES|KEYS FROM t [FROM db], SHOW TABLE STATUS [FROM db] [LIKE 'p'], SHOW CREATE DATABASE d:
// answered from information_schema's rows (executor/show_catalog.cpp).
struct ShowCatalog {
  enum class What { kIndex, kTableStatus, kCreateDatabase } what = What::kIndex;
  QualifiedName table;  // kIndex
  std::string db;       // kTableStatus (empty: current), kCreateDatabase
  std::optional<std::string> like;
};
struct ShowCreateTable { QualifiedName table; };
// ALTER TABLE t ADD [TEMPORARY] PARTITION [IF NOT EXISTS] p VALUES ... / DROP [TEMPORARY] PARTITION [IF EXISTS] p
// [FORCE].
struct AlterTablePartition {
  QualifiedName table;
  bool add = true;
  bool temporary = false;
  bool if_exists = false;        // DROP ... IF EXISTS
  bool if_not_exists = false;    // ADD ... IF NOT EXISTS
  PartitionItem item;            // ADD: the partition; DROP: item.name only
};
// One clause of ALTER TABLE t <clause> [, <clause> ...] that changes columns or the table's own attributes
// (MySQL's and StarRocks' forms, and DuckDB's ALTER COLUMN ... TYPE). The catalog applies them in order.
struct AlterTableClause {
  enum class Kind {
    kAddColumns,     // ADD [COLUMN] c type ... [FIRST | AFTER x] / ADD [COLUMN] (c1 type, c2 type)
    kDropColumn,     // DROP [COLUMN] [IF EXISTS] c
    kModifyColumn,   // MODIFY [COLUMN] c type ... [FIRST | AFTER x]; CHANGE [COLUMN] old new type ...
    kAlterType,      // ALTER [COLUMN] c [SET DATA] TYPE type: the type only, the rest of the column kept
    kColumnComment,  // MODIFY COLUMN c COMMENT '...'
    kSetDefault,     // ALTER [COLUMN] c SET DEFAULT v / DROP DEFAULT (default_sql unset)
    kSetNullable,    // ALTER [COLUMN] c SET NOT NULL / DROP NOT NULL
    kRenameColumn,   // RENAME COLUMN a TO b
    kTableComment,   // COMMENT [=] '...' / MODIFY COMMENT '...'
    kRenameTable,    // RENAME [TO | AS] new
  };
  Kind kind = Kind::kAddColumns;
  std::string column;                      // the column the clause acts on (CHANGE: the old name)
  std::vector<ColumnDef> columns;          // ADD: the new columns; MODIFY / CHANGE: the new definition
  std::string new_name;                    // RENAME COLUMN / RENAME / CHANGE
  bool first = false;                      // FIRST
  std::string after;                       // AFTER x
  bool if_exists = false;                  // DROP COLUMN IF EXISTS / ADD COLUMN IF NOT EXISTS
  bool nullable = true;                    // kSetNullable
  std::optional<std::string> default_sql;  // kSetDefault
  std::string comment;                     // kColumnComment, kTableComment
  TypeSpec type;                           // kAlterType
};
struct AlterTable {
  QualifiedName table;
  std::vector<AlterTableClause> clauses;
};
// SHOW [TEMPORARY] PARTITIONS FROM [db.]t
struct ShowPartitions { QualifiedName table; bool temporary = false; };
struct DropTable { QualifiedName table; bool if_exists = false; bool force = false; };
struct UndropTable { QualifiedName table; };

// SET [SESSION|GLOBAL|@@...] name = value [, ...]; SET NAMES x [COLLATE y]; SET CHARACTER SET x.
struct SetVariables {
  struct Assignment {
    std::string name;                      // lower case, without @@ / scope prefix
    std::string value;                     // literal value as text (quotes removed), or the identifier
    bool global = false;
    bool user = false;        // @name: a user variable of the session
    bool expression = false;  // value is an expression's source text, evaluated by the session
    bool string_literal = false;  // value came from a quoted string (a user variable keeps it as a string)
  };
  std::vector<Assignment> assignments;
};
// SHOW [GLOBAL|SESSION] VARIABLES [LIKE 'x' | WHERE ...]; SHOW [..] STATUS; SHOW WARNINGS/ERRORS; SHOW ENGINES;
// SHOW COLLATION; SHOW CHARACTER SET / CHARSET; SHOW PROCESSLIST.
struct ShowSystem {
  enum class What { kVariables, kStatus, kWarnings, kErrors, kEngines, kCollation, kCharset, kProcesslist, kPlugins };
  What what = What::kVariables;
  bool global = false;
  bool full = false;                       // SHOW FULL PROCESSLIST: the whole statement text
  std::optional<std::string> like;
};

// KILL [CONNECTION | QUERY] id: QUERY stops the statement the connection runs; CONNECTION (the default) also
// closes the connection.
struct Kill {
  uint32_t connection_id = 0;
  bool connection = true;
};

// SHOW NODES: the nodes of the cluster (or the one local node), with their state and leases.
struct ShowNodes {};
// ALTER SYSTEM DECOMMISSION NODE 'name' / CANCEL DECOMMISSION NODE 'name' (StarRocks' ... BACKEND "host:port"), and
// ALTER SYSTEM DROP NODE 'name' (`drop`; StarRocks' DROP BACKEND): forget a node that left or is dead.
struct DecommissionNode {
  std::string name;
  bool cancel = false;
  bool drop = false;
};

struct PassThrough { std::string sql; };  // already translated for DuckDB

// LOCK TABLES / UNLOCK TABLES / FLUSH ... (what dump tools send): accepted, nothing done (dump_statement_parser.cpp).
struct NoOpStatement {
  std::string verb;  // "LOCK TABLES", for the log
  std::string note;  // why nothing needs doing
};

}  // namespace sluice::sql

#include "sql/volume_ast.h"  // needs TypeSpec

namespace sluice::sql {

// CREATE EXTERNAL CATALOG [IF NOT EXISTS] name [COMMENT '...'] PROPERTIES ("k" = "v", ...) (StarRocks' grammar);
// the properties are kept as written, catalog/ validates them.
struct CreateExternalCatalog {
  std::string name;
  bool if_not_exists = false;
  std::string comment;
  std::vector<std::pair<std::string, std::string>> properties;
};
// SHOW CATALOGS, SHOW CREATE CATALOG name, DROP CATALOG [IF EXISTS] name.
struct ShowExternalCatalogs {};
struct ShowCreateCatalog { std::string name; };
struct DropExternalCatalog { std::string name; bool if_exists = false; };

using Statement = std::variant<PassThrough, CreateDatabase, DropDatabase, UseDatabase, ShowDatabases, ShowTables,
                               DescribeTable, ShowCreateTable, CreateTable, DropTable, UndropTable, SetVariables,
                               ShowSystem, CreateRoutineLoad, AlterRoutineLoad, ControlRoutineLoad, ShowRoutineLoad,
                               ShowRoutineLoadTask, ShowCreateRoutineLoad, CreateStorageConnection, CreateVolume,
                               ShowStorageObjects, DescribeStorageObject, DropStorageObject, CopyIntoFromVolume,
                               CreatePipe, DropPipe, AlterPipe, ShowPipes, DescPipe, CreateVcluster, AlterVcluster,
                               DropVcluster, ShowVclusters, AccountStatement, Kill, AlterTablePartition, ShowPartitions,
                               NoOpStatement, AlterTable, ShowCatalog, CreateExternalCatalog,
                               ShowExternalCatalogs, ShowCreateCatalog, DropExternalCatalog, ShowNodes,
                               DecommissionNode>;

}  // namespace sluice::sql
