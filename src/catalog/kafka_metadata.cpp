#include "catalog/kafka_metadata.h"

#include <cctype>

#include "common/ascii.h"
#include "sql/lexer.h"

namespace sluice::catalog {

const std::vector<KafkaMetadataSpec>& KafkaMetadataKeys() {
  static const std::vector<KafkaMetadataSpec> kKeys = {
      {KafkaMetadata::kTopic, "TOPIC", "VARCHAR"},
      {KafkaMetadata::kPartition, "PARTITION", "INTEGER"},
      {KafkaMetadata::kOffset, "OFFSET", "BIGINT"},
      {KafkaMetadata::kTimestampMs, "TIMESTAMP_MS", "BIGINT"},
      {KafkaMetadata::kKey, "KEY", "VARCHAR"},
      {KafkaMetadata::kHeaders, "HEADERS", "MAP(VARCHAR, VARCHAR)"},
  };
  return kKeys;
}

const KafkaMetadataSpec* FindKafkaMetadataKey(const std::string& key) {
  for (const auto& k : KafkaMetadataKeys())
    if (sql::EqualsIgnoreCase(k.key, key)) return &k;
  return nullptr;
}

namespace {

std::string SupportedKeys() {
  std::string out;
  for (const auto& k : KafkaMetadataKeys()) out += (out.empty() ? "" : ", ") + std::string(k.key);
  return out;
}

}  // namespace

Result<std::vector<MetadataColumn>> ResolveIncludeMetadata(const std::vector<sql::MetadataKey>& keys,
                                                           const std::string& format) {
  if (format == "csv")
    return Status::InvalidArgument(
        "INCLUDE METADATA needs format json or avro: a CSV message can hold several rows, and its fields are "
        "matched by position, so there is no record a message's metadata could be attached to by name; set "
        "PROPERTIES (\"format\" = \"json\")");
  std::vector<MetadataColumn> out;
  for (const auto& k : keys) {
    const KafkaMetadataSpec* spec = FindKafkaMetadataKey(k.key);
    if (!spec)
      return Status::InvalidArgument("unknown key '" + k.key + "' in INCLUDE METADATA; a Kafka source supports " +
                                     SupportedKeys());
    MetadataColumn c{spec, k.alias ? *k.alias : AsciiLower(spec->key)};
    if (c.alias.empty()) return Status::InvalidArgument("an alias in INCLUDE METADATA is empty");
    std::string lower = AsciiLower(c.alias);
    if (lower == "__op" || lower.rfind("__sluice", 0) == 0)
      return Status::InvalidArgument("alias '" + c.alias + "' in INCLUDE METADATA is a reserved name (__op and "
                                     "names starting with __sluice are Sluice's own); choose another with AS");
    for (const auto& prev : out)
      if (sql::EqualsIgnoreCase(prev.alias, c.alias))
        return Status::InvalidArgument("alias '" + c.alias + "' appears twice in INCLUDE METADATA; give each key "
                                       "its own name with AS");
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace sluice::catalog
