#include "iceberg/manifest_list.h"

#include <fmt/format.h>

#include "iceberg/avro_container.h"

namespace sluice::iceberg {
namespace {

AvroValue OptBytes(const std::optional<std::string>& v) { return v ? AvroValue::Bytes(*v) : AvroValue::Null(); }

int64_t LongOr(const AvroValue& rec, const char* name, int64_t fallback) {
  const AvroValue* v = rec.Get(name);
  return v && !v->is_null() ? v->l : fallback;
}

}  // namespace

const std::string& ManifestFileSchemaJson() {
  static const std::string kSchema =
      R"({"type":"record","name":"manifest_file","fields":[)"
      R"({"name":"manifest_path","type":"string","doc":"Location URI with FS scheme","field-id":500},)"
      R"({"name":"manifest_length","type":"long","doc":"Total file size in bytes","field-id":501},)"
      R"({"name":"partition_spec_id","type":"int","doc":"Spec ID used to write","field-id":502},)"
      R"({"name":"content","type":"int","doc":"Contents of the manifest: 0=data, 1=deletes","field-id":517},)"
      R"({"name":"sequence_number","type":"long","doc":"Sequence number when the manifest was added","field-id":515},)"
      R"({"name":"min_sequence_number","type":"long","doc":"Lowest sequence number in the manifest","field-id":516},)"
      R"({"name":"added_snapshot_id","type":"long","doc":"Snapshot ID that added the manifest","field-id":503},)"
      R"({"name":"added_files_count","type":"int","doc":"Added entry count","field-id":504},)"
      R"({"name":"existing_files_count","type":"int","doc":"Existing entry count","field-id":505},)"
      R"({"name":"deleted_files_count","type":"int","doc":"Deleted entry count","field-id":506},)"
      R"({"name":"added_rows_count","type":"long","doc":"Added rows count","field-id":512},)"
      R"({"name":"existing_rows_count","type":"long","doc":"Existing rows count","field-id":513},)"
      R"({"name":"deleted_rows_count","type":"long","doc":"Deleted rows count","field-id":514},)"
      R"({"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508","fields":[)"
      R"({"name":"contains_null","type":"boolean","doc":"True if any file has a null partition value","field-id":509},)"
      R"({"name":"contains_nan","type":["null","boolean"],"doc":"True if any file has a nan partition value","default":null,"field-id":518},)"
      R"({"name":"lower_bound","type":["null","bytes"],"doc":"Partition lower bound for all files","default":null,"field-id":510},)"
      R"({"name":"upper_bound","type":["null","bytes"],"doc":"Partition upper bound for all files","default":null,"field-id":511}]},)"
      R"("element-id":508}],"doc":"Summary for each partition","default":null,"field-id":507},)"
      R"({"name":"key_metadata","type":["null","bytes"],"doc":"Encryption key metadata blob","default":null,"field-id":519}]})";
  return kSchema;
}

Result<std::string> WriteManifestList(const std::vector<ManifestFile>& manifests, int64_t snapshot_id,
                                      std::optional<int64_t> parent_snapshot_id, int64_t sequence_number) {
  AvroFile file;
  file.schema_json = ManifestFileSchemaJson();
  file.metadata["snapshot-id"] = std::to_string(snapshot_id);
  file.metadata["parent-snapshot-id"] = parent_snapshot_id ? std::to_string(*parent_snapshot_id) : "null";
  file.metadata["sequence-number"] = std::to_string(sequence_number);
  file.metadata["format-version"] = "2";
  for (const auto& m : manifests) {
    AvroValue r = AvroValue::Record();
    r.Set("manifest_path", AvroValue::String(m.manifest_path));
    r.Set("manifest_length", AvroValue::Long(m.manifest_length));
    r.Set("partition_spec_id", AvroValue::Int(m.partition_spec_id));
    r.Set("content", AvroValue::Int(m.content));
    r.Set("sequence_number", AvroValue::Long(m.sequence_number));
    r.Set("min_sequence_number", AvroValue::Long(m.min_sequence_number));
    r.Set("added_snapshot_id", AvroValue::Long(m.added_snapshot_id));
    r.Set("added_files_count", AvroValue::Int(m.added_files_count));
    r.Set("existing_files_count", AvroValue::Int(m.existing_files_count));
    r.Set("deleted_files_count", AvroValue::Int(m.deleted_files_count));
    r.Set("added_rows_count", AvroValue::Long(m.added_rows_count));
    r.Set("existing_rows_count", AvroValue::Long(m.existing_rows_count));
    r.Set("deleted_rows_count", AvroValue::Long(m.deleted_rows_count));
    if (m.partitions) {
      AvroValue parts = AvroValue::Array();
      for (const auto& p : *m.partitions) {
        AvroValue s = AvroValue::Record();
        s.Set("contains_null", AvroValue::Bool(p.contains_null));
        s.Set("contains_nan", p.contains_nan ? AvroValue::Bool(*p.contains_nan) : AvroValue::Null());
        s.Set("lower_bound", OptBytes(p.lower_bound));
        s.Set("upper_bound", OptBytes(p.upper_bound));
        parts.Append(std::move(s));
      }
      r.Set("partitions", std::move(parts));
    }
    file.records.push_back(std::move(r));
  }
  return WriteAvroContainer(file);
}

Result<std::vector<ManifestFile>> ReadManifestList(const std::string& bytes, const std::string& what) {
  ASSIGN_OR_RETURN(AvroFile file, ReadAvroContainer(bytes, what));
  std::vector<ManifestFile> out;
  for (const auto& r : file.records) {
    ManifestFile m;
    const AvroValue* path = r.Get("manifest_path");
    if (path == nullptr) return Status::InvalidArgument(fmt::format("{}: an entry has no manifest_path", what));
    m.manifest_path = path->s;
    m.manifest_length = LongOr(r, "manifest_length", 0);
    m.partition_spec_id = static_cast<int>(LongOr(r, "partition_spec_id", 0));
    m.content = static_cast<int>(LongOr(r, "content", 0));
    m.sequence_number = LongOr(r, "sequence_number", 0);
    m.min_sequence_number = LongOr(r, "min_sequence_number", 0);
    m.added_snapshot_id = LongOr(r, "added_snapshot_id", 0);
    // v1 lists name the counts added_data_files_count etc.
    m.added_files_count = static_cast<int>(LongOr(r, "added_files_count", LongOr(r, "added_data_files_count", 0)));
    m.existing_files_count =
        static_cast<int>(LongOr(r, "existing_files_count", LongOr(r, "existing_data_files_count", 0)));
    m.deleted_files_count =
        static_cast<int>(LongOr(r, "deleted_files_count", LongOr(r, "deleted_data_files_count", 0)));
    m.added_rows_count = LongOr(r, "added_rows_count", 0);
    m.existing_rows_count = LongOr(r, "existing_rows_count", 0);
    m.deleted_rows_count = LongOr(r, "deleted_rows_count", 0);
    if (const AvroValue* parts = r.Get("partitions"); parts && !parts->is_null()) {
      std::vector<PartitionFieldSummary> summaries;
      for (const auto& p : parts->items) {
        PartitionFieldSummary s;
        if (const AvroValue* v = p.Get("contains_null")) s.contains_null = v->b;
        if (const AvroValue* v = p.Get("contains_nan"); v && !v->is_null()) s.contains_nan = v->b;
        if (const AvroValue* v = p.Get("lower_bound"); v && !v->is_null()) s.lower_bound = v->s;
        if (const AvroValue* v = p.Get("upper_bound"); v && !v->is_null()) s.upper_bound = v->s;
        summaries.push_back(std::move(s));
      }
      m.partitions = std::move(summaries);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace sluice::iceberg
