#pragma once
// metadata.json, format version 2 (Iceberg table spec, "Table Metadata Fields"), written and read by Sluice. The
// writer emits every field the spec requires of v2 plus snapshot-log, metadata-log, sort-orders and refs; the reader
// takes any v2 (and v1 files' field names where they differ: "schema", "partition-spec") and keeps top-level keys
// it does not model, so a commit by Sluice carries them on.
#include <string>

#include "common/status.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

std::string WriteMetadataJson(const TableMetadata& metadata);
// `what` names the file in messages (its location).
Result<TableMetadata> ParseMetadataJson(const std::string& text, const std::string& what);

// The schema and partition spec as the JSON text manifests carry in their Avro metadata ("schema",
// "partition-spec").
std::string SchemaJson(const Schema& schema);
std::string PartitionSpecFieldsJson(const PartitionSpec& spec);
// One snapshot and one ref as metadata.json spells them (a REST commit's add-snapshot / set-snapshot-ref carry
// the same objects).
std::string SnapshotJson(const Snapshot& snapshot);
std::string SnapshotRefJson(const SnapshotRef& ref);

}  // namespace sluice::iceberg
