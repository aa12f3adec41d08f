#pragma once
// Compiles a load's COLUMNS mappings, WHERE and the target table's columns into ONE DuckDB SELECT over the
// decoded batch (`sluice_batch(<id>)`, storage/batch_table_function.h). The load task materializes its result,
// inserts the good rows and records the error rows (DESIGN.md decision 4). Semantics are StarRocks Routine Load's
// (shared/reference/routine-load.md: COLUMNS, WHERE, strict_mode, timezone).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace sluice::transform {

// Columns the SELECT yields besides the loaded ones.
inline constexpr const char* kRowColumn = "__sluice_row";            // BIGINT: the row's index in the batch
inline constexpr const char* kErrorColumn = "__sluice_error";        // VARCHAR: NULL = good row, else the reason
inline constexpr const char* kSelectedColumn = "__sluice_selected";  // BOOLEAN: the WHERE result (NULL -> false)
inline constexpr const char* kOpColumn = "__op";                     // TINYINT: 0 upsert, 1 delete (when has_op)
inline constexpr const char* kBatchPlaceholder = "{BATCH}";

struct TargetColumn {
  std::string name;
  // e.g. "BIGINT", "DECIMAL(10,2)", "VARCHAR", "VARCHAR(26)" (a byte limit), "TIMESTAMP", "JSON", "INTEGER[]"
  std::string duckdb_type;
  bool nullable = true;
};

// A value the load knows about each message besides its payload (INCLUDE METADATA): a batch column named `name`
// holding the value as text, which the transform reads as `duckdb_type`. A MAP travels as a JSON object's text.
// It can be read by COLUMNS expressions and WHERE, never loaded under its own name.
struct MetadataSource {
  std::string name;
  std::string duckdb_type;  // "VARCHAR", "INTEGER", "BIGINT", "MAP(VARCHAR, VARCHAR)"
};

// A condition on the loaded values that makes a row an error row after every column's own checks (a table's
// partitions, catalog/table_partitions.h). Both functions get, per name in `columns`, the SQL of that table
// column's loaded value (NULL when the load does not fill it) and return SQL: `fails` a BOOLEAN, true for an
// error row (never NULL); `reason` the VARCHAR reason.
struct RowCheck {
  std::vector<std::string> columns;
  std::function<std::string(const std::vector<std::string>&)> fails;
  std::function<std::string(const std::vector<std::string>&)> reason;
};

struct TransformSpec {
  // The batch's column names, in order: COLUMNS entries without `=`, or the table's columns when COLUMNS is absent.
  std::vector<std::string> source_columns;
  // COLUMNS `name = expr`, with the expression's source text.
  std::vector<std::pair<std::string, std::string>> derived;
  // INCLUDE METADATA columns, after the source columns in the batch. Their names must differ from the source
  // columns, the table's columns and reserved names.
  std::vector<MetadataSource> metadata;
  std::optional<std::string> where;  // WHERE source text
  std::vector<TargetColumn> table;   // the target table's columns
  std::string table_name;            // for error messages; may be empty
  bool strict_mode = false;
  std::string timezone;  // e.g. "Asia/Shanghai" or "+08:00"; empty = UTC
  // Pipes (`COPY INTO t FROM (SELECT exprs FROM READ_KAFKA(...) WHERE ...)`): the batch's columns are inputs that
  // expressions read but that are never loaded by name; only `derived` columns load, and WHERE sees the inputs
  // only. `source_types` gives an input's DuckDB type (its text is TRY_CAST to it); absent = VARCHAR.
  bool sources_are_inputs = false;
  std::vector<std::pair<std::string, std::string>> source_types;
  // Constant-path JSON reads of the same source column (`PARSE_JSON(value::STRING)['a']`, `['b']`, ...) share
  // one parse per row (transform/json_access.h); false compiles each read on its own (the same values, for
  // tests to compare against).
  bool share_json_parse = true;
  // A source column whose constant-path JSON reads the decoder extracts itself (format/json_field_reader.h):
  // the batch then has one more column per path, DecodedJsonColumn(k) after the metadata columns, holding the
  // value's text where the decoder is certain of it and NULL where DuckDB is to extract it (the SELECT falls back
  // per value). Empty: none. Applies with share_json_parse only.
  std::string decoded_json_source;
  std::vector<RowCheck> row_checks;  // in order; the first that fails gives the reason
};

struct CompiledTransform {
  // SELECT over sluice_batch({BATCH}); the first occurrence of "{BATCH}" is the batch id's place (later ones may
  // be user text, so use Bind()).
  std::string sql;
  // Target columns the SELECT produces, in output order (the INSERT column list). Columns of the table that are
  // not here are not loaded: DuckDB applies their defaults.
  std::vector<std::string> loaded_columns;
  // The SELECT also yields __op (COLUMNS named `__op`, for primary-key tables: 0 = upsert, 1 = delete).
  bool has_op = false;
  // TransformSpec::decoded_json_source: the JSON pointers the decoder is to extract, the k-th into batch column
  // DecodedJsonColumn(k). Empty when no expression reads one.
  std::vector<std::string> decoded_json_pointers;
  // TransformSpec::sources_are_inputs: per source column, whether an expression or WHERE reads it. A decoder may
  // leave the others NULL (a pipe's raw decoder skips READ_KAFKA columns the SELECT never names). Empty otherwise.
  std::vector<bool> reads_source;

  // The SQL for one batch: `batch_id` is a storage::BatchHandle's id.
  std::string Bind(int64_t batch_id) const;
};

// The batch column of the k-th decoded JSON value (CompiledTransform::decoded_json_pointers).
std::string DecodedJsonColumn(size_t k);

// InvalidArgument for anything the user wrote wrong: expression syntax (with its position), unknown columns or
// functions, a derived column that is not a table column, a bad time zone. Nothing here touches DuckDB.
Result<CompiledTransform> Compile(const TransformSpec& spec);

}  // namespace sluice::transform
