#include "iceberg/manifest.h"

#include <fmt/format.h>

#include "iceberg/avro_container.h"
#include "iceberg/avro_iceberg_types.h"
#include "iceberg/metadata_json.h"

namespace sluice::iceberg {
namespace {

// An optional map<int, T> field as the spec's Avro mapping writes it: an array of k<id>_v<id> records.
std::string IntMapField(const char* name, int field_id, int key_id, int value_id, const char* value_type,
                        const char* doc) {
  return fmt::format(
      R"({{"name":"{}","type":["null",{{"type":"array","items":{{"type":"record","name":"k{}_v{}","fields":[)"
      R"({{"name":"key","type":"int","field-id":{}}},{{"name":"value","type":"{}","field-id":{}}}]}},)"
      R"("logicalType":"map"}}],"doc":"{}","default":null,"field-id":{}}})",
      name, key_id, value_id, key_id, value_type, value_id, doc, field_id);
}

template <typename T, typename F>
AvroValue IntMapValue(const std::map<int, T>& m, F to_avro) {
  if (m.empty()) return AvroValue::Null();
  AvroValue arr = AvroValue::Array();
  for (const auto& [k, v] : m) {
    AvroValue kv = AvroValue::Record();
    kv.Set("key", AvroValue::Int(k));
    kv.Set("value", to_avro(v));
    arr.Append(std::move(kv));
  }
  return arr;
}

template <typename T, typename F>
void ReadIntMap(const AvroValue* v, std::map<int, T>* out, F from_avro) {
  if (v == nullptr || v->is_null()) return;
  for (const auto& kv : v->items) {
    const AvroValue* k = kv.Get("key");
    const AvroValue* val = kv.Get("value");
    if (k && val) (*out)[static_cast<int>(k->l)] = from_avro(*val);
  }
}

std::optional<int64_t> OptionalLong(const AvroValue* v) {
  if (v == nullptr || v->is_null()) return std::nullopt;
  return v->l;
}

}  // namespace

Result<std::string> ManifestEntrySchemaJson(const Schema& schema, const PartitionSpec& spec) {
  ASSIGN_OR_RETURN(std::vector<Type> types, spec.ResultTypes(schema));
  std::string partition_fields;
  for (size_t i = 0; i < spec.fields.size(); i++) {
    const auto& pf = spec.fields[i];
    if (i > 0) partition_fields += ",";
    partition_fields += fmt::format(R"({{"name":"{}","type":["null",{}],"default":null,"field-id":{}}})",
                                    AvroCompatibleName(pf.name),
                                    AvroTypeJson(types[i], fmt::format("partition_{}", pf.field_id)), pf.field_id);
  }
  std::string data_file_fields =
      R"({"name":"content","type":"int","doc":"Contents of the file: 0=data, 1=position deletes, 2=equality deletes","field-id":134},)"
      R"({"name":"file_path","type":"string","doc":"Location URI with FS scheme","field-id":100},)"
      R"({"name":"file_format","type":"string","doc":"File format name: avro, orc, or parquet","field-id":101},)" +
      fmt::format(R"({{"name":"partition","type":{{"type":"record","name":"r102","fields":[{}]}},)"
                  R"("doc":"Partition data tuple, schema based on the partition spec","field-id":102}},)",
                  partition_fields) +
      R"({"name":"record_count","type":"long","doc":"Number of records in the file","field-id":103},)"
      R"({"name":"file_size_in_bytes","type":"long","doc":"Total file size in bytes","field-id":104},)" +
      IntMapField("column_sizes", 108, 117, 118, "long", "Map of column id to total size on disk") + "," +
      IntMapField("value_counts", 109, 119, 120, "long", "Map of column id to total count, including null and NaN") + "," +
      IntMapField("null_value_counts", 110, 121, 122, "long", "Map of column id to null value count") + "," +
      IntMapField("nan_value_counts", 137, 138, 139, "long", "Map of column id to number of NaN values in the column") + "," +
      IntMapField("lower_bounds", 125, 126, 127, "bytes", "Map of column id to lower bound") + "," +
      IntMapField("upper_bounds", 128, 129, 130, "bytes", "Map of column id to upper bound") + "," +
      R"({"name":"key_metadata","type":["null","bytes"],"doc":"Encryption key metadata blob","default":null,"field-id":131},)"
      R"({"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"doc":"Splittable offsets","default":null,"field-id":132},)"
      R"({"name":"equality_ids","type":["null",{"type":"array","items":"int","element-id":136}],"doc":"Equality comparison field IDs","default":null,"field-id":135},)"
      R"({"name":"sort_order_id","type":["null","int"],"doc":"Sort order ID","default":null,"field-id":140})";
  return std::string(R"({"type":"record","name":"manifest_entry","fields":[)"
                     R"({"name":"status","type":"int","field-id":0},)"
                     R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
                     R"({"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},)"
                     R"({"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},)"
                     R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)") +
         data_file_fields + R"(]},"field-id":2}]})";
}

Result<std::string> WriteManifest(const Schema& schema, const PartitionSpec& spec,
                                  const std::vector<ManifestEntry>& entries) {
  AvroFile file;
  ASSIGN_OR_RETURN(file.schema_json, ManifestEntrySchemaJson(schema, spec));
  file.metadata["schema"] = SchemaJson(schema);
  file.metadata["schema-id"] = std::to_string(schema.schema_id);
  file.metadata["partition-spec"] = PartitionSpecFieldsJson(spec);
  file.metadata["partition-spec-id"] = std::to_string(spec.spec_id);
  file.metadata["format-version"] = "2";
  file.metadata["content"] = "data";
  for (const auto& e : entries) {
    const DataFile& df = e.data_file;
    if (df.partition.size() != spec.fields.size()) {
      return Status::Internal(fmt::format("data file {} has {} partition values; the spec has {} fields",
                                          df.file_path, df.partition.size(), spec.fields.size()));
    }
    AvroValue partition = AvroValue::Record();
    for (size_t i = 0; i < spec.fields.size(); i++) {
      ASSIGN_OR_RETURN(AvroValue v, ValueToAvro(df.partition[i]));
      partition.Set(AvroCompatibleName(spec.fields[i].name), std::move(v));
    }
    auto longs = [](int64_t v) { return AvroValue::Long(v); };
    auto bytes = [](const std::string& v) { return AvroValue::Bytes(v); };
    AvroValue d = AvroValue::Record();
    d.Set("content", AvroValue::Int(df.content));
    d.Set("file_path", AvroValue::String(df.file_path));
    d.Set("file_format", AvroValue::String(df.file_format));
    d.Set("partition", std::move(partition));
    d.Set("record_count", AvroValue::Long(df.record_count));
    d.Set("file_size_in_bytes", AvroValue::Long(df.file_size_in_bytes));
    d.Set("column_sizes", IntMapValue(df.column_sizes, longs));
    d.Set("value_counts", IntMapValue(df.value_counts, longs));
    d.Set("null_value_counts", IntMapValue(df.null_value_counts, longs));
    d.Set("nan_value_counts", IntMapValue(df.nan_value_counts, longs));
    d.Set("lower_bounds", IntMapValue(df.lower_bounds, bytes));
    d.Set("upper_bounds", IntMapValue(df.upper_bounds, bytes));
    if (!df.split_offsets.empty()) {
      AvroValue offsets = AvroValue::Array();
      for (int64_t o : df.split_offsets) offsets.Append(AvroValue::Long(o));
      d.Set("split_offsets", std::move(offsets));
    }
    AvroValue entry = AvroValue::Record();
    entry.Set("status", AvroValue::Int(static_cast<int>(e.status)));
    entry.Set("snapshot_id", e.snapshot_id ? AvroValue::Long(*e.snapshot_id) : AvroValue::Null());
    entry.Set("sequence_number", e.sequence_number ? AvroValue::Long(*e.sequence_number) : AvroValue::Null());
    entry.Set("file_sequence_number",
              e.file_sequence_number ? AvroValue::Long(*e.file_sequence_number) : AvroValue::Null());
    entry.Set("data_file", std::move(d));
    file.records.push_back(std::move(entry));
  }
  return WriteAvroContainer(file);
}

Result<std::vector<ManifestEntry>> ReadManifest(const std::string& bytes, const Schema& schema,
                                                const PartitionSpec& spec, const std::string& what) {
  ASSIGN_OR_RETURN(AvroFile file, ReadAvroContainer(bytes, what));
  ASSIGN_OR_RETURN(std::vector<Type> types, spec.ResultTypes(schema));
  std::vector<ManifestEntry> out;
  for (const auto& rec : file.records) {
    ManifestEntry e;
    const AvroValue* status = rec.Get("status");
    const AvroValue* d = rec.Get("data_file");
    if (status == nullptr || d == nullptr) {
      return Status::InvalidArgument(fmt::format("{}: a manifest entry has no status or data_file", what));
    }
    e.status = static_cast<EntryStatus>(status->l);
    e.snapshot_id = OptionalLong(rec.Get("snapshot_id"));
    e.sequence_number = OptionalLong(rec.Get("sequence_number"));
    e.file_sequence_number = OptionalLong(rec.Get("file_sequence_number"));
    DataFile& df = e.data_file;
    if (const AvroValue* v = d->Get("content")) df.content = static_cast<int>(v->l);
    if (const AvroValue* v = d->Get("file_path")) df.file_path = v->s;
    if (const AvroValue* v = d->Get("file_format")) df.file_format = v->s;
    if (const AvroValue* v = d->Get("record_count")) df.record_count = v->l;
    if (const AvroValue* v = d->Get("file_size_in_bytes")) df.file_size_in_bytes = v->l;
    const AvroValue* partition = d->Get("partition");
    for (size_t i = 0; i < spec.fields.size(); i++) {
      // By position: the spec's field names may have been made Avro-compatible differently by another writer.
      const AvroValue* pv = partition && i < partition->items.size() ? &partition->items[i] : nullptr;
      if (pv == nullptr) {
        df.partition.push_back(Value::Null(types[i]));
        continue;
      }
      ASSIGN_OR_RETURN(Value v, AvroToValue(types[i], *pv));
      df.partition.push_back(std::move(v));
    }
    auto longs = [](const AvroValue& v) { return v.l; };
    auto raw = [](const AvroValue& v) { return v.s; };
    ReadIntMap(d->Get("column_sizes"), &df.column_sizes, longs);
    ReadIntMap(d->Get("value_counts"), &df.value_counts, longs);
    ReadIntMap(d->Get("null_value_counts"), &df.null_value_counts, longs);
    ReadIntMap(d->Get("nan_value_counts"), &df.nan_value_counts, longs);
    ReadIntMap(d->Get("lower_bounds"), &df.lower_bounds, raw);
    ReadIntMap(d->Get("upper_bounds"), &df.upper_bounds, raw);
    if (const AvroValue* v = d->Get("split_offsets"); v && !v->is_null()) {
      for (const auto& o : v->items) df.split_offsets.push_back(o.l);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace sluice::iceberg
