#pragma once
// The Iceberg table model Sluice reads and writes (table spec v2): schemas whose fields carry ids, partition specs,
// snapshots with their summary, and the table metadata that ties them together. Plain data; metadata_json.* turns
// it into metadata.json and back, fast_append.* makes the next version of it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "iceberg/partition_transform.h"
#include "iceberg/types.h"

namespace sluice::iceberg {

struct Field {
  int id = 0;
  std::string name;
  bool required = false;
  Type type;
  std::string doc;
};

struct Schema {
  int schema_id = 0;
  std::vector<Field> fields;
  std::vector<int> identifier_field_ids;

  const Field* FindById(int id) const;
  const Field* FindByName(const std::string& name) const;
  int HighestFieldId() const;
};

struct PartitionField {
  int source_id = 0;
  int field_id = 0;  // 1000 and up
  std::string name;
  Transform transform;
};

struct PartitionSpec {
  int spec_id = 0;
  std::vector<PartitionField> fields;

  bool unpartitioned() const { return fields.empty(); }
  // The type of each partition value, from the source column's type and the transform.
  Result<std::vector<Type>> ResultTypes(const Schema& schema) const;
};

// A snapshot summary: "operation" plus counters, plus what writers add (Sluice: "sluice.offsets.<job>").
using Summary = std::map<std::string, std::string>;

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;  // full location, "s3://bucket/table/metadata/snap-....avro"
  Summary summary;             // includes "operation"
  std::optional<int> schema_id;
};

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
};

struct SortOrder {
  int order_id = 0;
  // Sluice writes unsorted tables; other engines' sort orders are kept as their JSON text.
  std::string fields_json = "[]";
};

struct SnapshotRef {
  int64_t snapshot_id = 0;
  std::string type = "branch";
  // Retention settings of other engines' refs, kept as JSON text ("" when none).
  std::string extra_json;
};

struct TableMetadata {
  int format_version = 2;
  std::string table_uuid;
  std::string location;  // "s3://bucket/warehouse/db/t", no trailing '/'
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int last_column_id = 0;
  std::vector<Schema> schemas;
  int current_schema_id = 0;
  std::vector<PartitionSpec> partition_specs;
  int default_spec_id = 0;
  int last_partition_id = 999;  // the spec's value for "no partition field yet"
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;  // written as -1 when none, as Java does
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrder> sort_orders{SortOrder{}};
  int default_sort_order_id = 0;
  std::map<std::string, SnapshotRef> refs;
  // Top-level keys this model does not know (another engine's "statistics", ...), kept verbatim as JSON text so
  // a commit by Sluice does not drop them.
  std::map<std::string, std::string> unknown_json;

  const Schema* CurrentSchema() const;
  const PartitionSpec* DefaultSpec() const;
  const Snapshot* CurrentSnapshot() const;
  const Snapshot* FindSnapshot(int64_t id) const;
  // A table property that holds a number (history.expire.*, write.metadata.previous-versions-max), or `fallback`
  // when it is not set or not a number, as Iceberg's readers take it.
  int64_t IntProperty(const std::string& key, int64_t fallback) const;
};

// A snapshot's numeric summary counter (total-records, total-data-files, ...): `fallback` when it is missing or not
// a number (another writer may leave the optional counters out), 0 when there is no snapshot.
int64_t SummaryLong(const Snapshot* s, const char* key, int64_t fallback);

// The newest value of every summary key starting with `prefix` on the current snapshot's ancestry: what a commit
// that must not lose writers' bookkeeping carries forward (every append carries the jobs' offsets, a replace
// every sluice.* key).
Summary CarriedSummaryKeys(const TableMetadata& metadata, const std::string& prefix);

}  // namespace sluice::iceberg
