#pragma once
// A result a statement hands back to the front door: named, typed columns and rows of text values
// (the MySQL text protocol sends text anyway). nullopt is SQL NULL.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

// Engine-neutral column types; the front door maps them to MySQL column types.
enum class ValueType {
  kBoolean, kTinyInt, kSmallInt, kInteger, kBigInt, kHugeInt,
  kUTinyInt, kUSmallInt, kUInteger, kUBigInt,
  kFloat, kDouble, kDecimal,
  kVarchar, kBlob, kJson,
  kDate, kTime, kTimestamp, kTimestampTz, kInterval,
  kOther,  // lists, maps, structs, UUID ...: sent as text
};

struct ColumnInfo {
  std::string name;
  ValueType type = ValueType::kVarchar;
  uint8_t decimal_width = 0;  // only for kDecimal
  uint8_t decimal_scale = 0;
};

using Row = std::vector<std::optional<std::string>>;

struct ResultSet {
  std::vector<ColumnInfo> columns;
  std::vector<Row> rows;

  void AddColumn(std::string name, ValueType type = ValueType::kVarchar) {
    columns.push_back(ColumnInfo{std::move(name), type, 0, 0});
  }
};

// What one statement produced: a result set, or an OK with counts.
struct StatementResult {
  std::optional<ResultSet> result_set;
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t warnings = 0;
  std::string info;  // shown by clients after OK, e.g. "Rows matched: 1"
};

}  // namespace sluice
