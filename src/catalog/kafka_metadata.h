#pragma once
// INCLUDE METADATA for Kafka sources (shared/reference/routine-load.md "INCLUDE METADATA"): which message
// properties a load can read besides the payload, the SQL type each has, and the checks that do not need the
// target table (the load's plan checks aliases against the payload fields and table columns).
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "sql/routine_load_ast.h"

namespace sluice::catalog {

enum class KafkaMetadata { kTopic, kPartition, kOffset, kTimestampMs, kKey, kHeaders };

struct KafkaMetadataSpec {
  KafkaMetadata which;
  const char* key;          // as written in INCLUDE METADATA (upper case)
  const char* duckdb_type;  // the column's type in COLUMNS expressions and WHERE
};

// TOPIC VARCHAR, PARTITION INTEGER, OFFSET BIGINT, TIMESTAMP_MS BIGINT, KEY VARCHAR, HEADERS MAP(VARCHAR, VARCHAR).
const std::vector<KafkaMetadataSpec>& KafkaMetadataKeys();
const KafkaMetadataSpec* FindKafkaMetadataKey(const std::string& key);  // case-insensitive; nullptr if unknown

// One INCLUDE METADATA entry, resolved: the key's spec and the column name it is read under.
struct MetadataColumn {
  const KafkaMetadataSpec* spec = nullptr;
  std::string alias;  // AS alias, or the key in lower case (`partition`, `timestamp_ms`)
};

// Checks the clause on its own (known keys, unique aliases, reserved names) and for the job's format: only json
// and avro messages carry one record each, which their metadata can describe.
Result<std::vector<MetadataColumn>> ResolveIncludeMetadata(const std::vector<sql::MetadataKey>& keys,
                                                           const std::string& format);

}  // namespace sluice::catalog
