#pragma once
// Avro object container files (Avro specification, "Object Container Files"): the magic "Obj\x01", a metadata map
// (avro.schema holds the schema JSON text byte for byte, avro.codec, and whatever the writer adds: Iceberg puts the
// table schema, partition spec, format version and content there), a 16-byte sync marker, then blocks of
// (count, size, data, sync). Sluice writes them itself because Iceberg's schemas carry "field-id" attributes that
// avro-c does not keep. Written files use the null codec; reading also takes deflate, Iceberg Java's default.
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/avro_value.h"

namespace sluice::iceberg {

struct AvroFile {
  std::string schema_json;
  std::map<std::string, std::string> metadata;  // without avro.schema and avro.codec
  std::vector<AvroValue> records;
};

// `sync` must be 16 bytes; empty picks random ones. Records are written in blocks of up to `block_records`.
Result<std::string> WriteAvroContainer(const AvroFile& file, std::string sync = "", size_t block_records = 1000);
// `what` names the file in messages ("manifest s3://b/t/metadata/x.avro").
Result<AvroFile> ReadAvroContainer(const std::string& bytes, const std::string& what);

}  // namespace sluice::iceberg
