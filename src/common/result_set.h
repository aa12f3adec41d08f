#pragma once
// A result a statement hands back to the front door: named, typed columns and rows of text values
// (the MySQL text protocol sends text anyway). nullopt is SQL NULL.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

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
  // kVarchar: the declared VARCHAR(n) / CHAR(n) length when Sluice knows it (executor/declared_lengths.h); 0 for
  // unbounded text.
  uint32_t char_length = 0;
};

using Row = std::vector<std::optional<std::string>>;

struct ResultSet {
  std::vector<ColumnInfo> columns;
  std::vector<Row> rows;

  void AddColumn(std::string name, ValueType type = ValueType::kVarchar) {
    columns.push_back(ColumnInfo{std::move(name), type, 0, 0});
  }
};

// Rows handed over a chunk at a time, for results too big to hold (a SELECT over a large table): the front door
// sends each chunk before asking for the next, so memory stays bounded by a chunk and the write buffer.
class ResultRowStream {
 public:
  virtual ~ResultRowStream() = default;
  // Replaces `*rows` with the next rows: false when none are left. An error (the query was interrupted, or failed
  // mid-way) ends the stream.
  virtual Result<bool> Next(std::vector<Row>* rows) = 0;
};

// What one statement produced: a result set, or an OK with counts.
struct StatementResult {
  // With `stream` set, result_set has the columns and the rows come from the stream (after result_set->rows).
  std::optional<ResultSet> result_set;
  std::shared_ptr<ResultRowStream> stream;
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t warnings = 0;
  std::string info;  // shown by clients after OK, e.g. "Rows matched: 1"
};

}  // namespace sluice
