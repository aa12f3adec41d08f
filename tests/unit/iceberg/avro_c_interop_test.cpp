// A manifest and a manifest list written by Sluice's Avro writer, read by Apache avro-c: the container framing,
// the schema JSON (with Iceberg's field-id attributes) and the binary encoding are valid Avro to another
// implementation, not only to Sluice's own reader.
#include <avro.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "iceberg/avro_container.h"
#include "iceberg/manifest.h"
#include "iceberg/manifest_list.h"
#include "iceberg/table_builder.h"

namespace sluice::iceberg {
namespace {

std::string WriteTemp(const std::string& bytes) {
  std::string path = (std::filesystem::temp_directory_path() / ("sluice-avro-" + std::to_string(::getpid()) + "-" +
                                                                std::to_string(std::rand()) + ".avro")).string();
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Reads every record with avro-c; returns the string field `field` of each (nested one level in `record` if given).
std::vector<std::string> ReadStrings(const std::string& path, const char* record, const char* field,
                                     std::vector<int64_t>* longs = nullptr, const char* long_field = nullptr) {
  avro_file_reader_t reader;
  EXPECT_EQ(avro_file_reader(path.c_str(), &reader), 0) << avro_strerror();
  avro_schema_t schema = avro_file_reader_get_writer_schema(reader);
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  avro_value_t value;
  avro_generic_value_new(iface, &value);
  std::vector<std::string> out;
  int rc;
  while ((rc = avro_file_reader_read_value(reader, &value)) == 0) {
    avro_value_t container = value, f;
    if (record != nullptr) {
      EXPECT_EQ(avro_value_get_by_name(&value, record, &container, nullptr), 0);
    }
    EXPECT_EQ(avro_value_get_by_name(&container, field, &f, nullptr), 0);
    const char* s = nullptr;
    size_t n = 0;
    EXPECT_EQ(avro_value_get_string(&f, &s, &n), 0);
    out.emplace_back(s, n > 0 ? n - 1 : 0);  // avro-c counts the terminating NUL
    if (longs != nullptr) {
      avro_value_t l;
      EXPECT_EQ(avro_value_get_by_name(&container, long_field, &l, nullptr), 0);
      int64_t v = 0;
      EXPECT_EQ(avro_value_get_long(&l, &v), 0);
      longs->push_back(v);
    }
  }
  EXPECT_EQ(rc, EOF) << avro_strerror();
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);
  avro_file_reader_close(reader);
  return out;
}

TEST(AvroCInteropTest, AvroCReadsSluicesManifests) {
  auto schema = *SchemaFromColumns({{"id", "BIGINT"}, {"name", "VARCHAR"}, {"ts", "TIMESTAMP"},
                                    {"amount", "DECIMAL(10,2)"}});
  auto spec = *PartitionSpecFromTerms(schema, {"day(ts)", "amount"});
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 3; i++) {
    ManifestEntry e;
    e.data_file.file_path = "s3://b/t/data/f" + std::to_string(i) + ".parquet";
    e.data_file.record_count = 10 + i;
    e.data_file.file_size_in_bytes = 1000;
    e.data_file.partition = {Value{MakeType(TypeId::kDate), int32_t{19844 + i}}, Value{DecimalType(10, 2), Int128{i}}};
    e.data_file.value_counts = {{1, 10}, {2, 10}};
    e.data_file.lower_bounds = {{2, "a"}};
    e.data_file.split_offsets = {4};
    entries.push_back(e);
  }
  auto manifest = WriteManifest(schema, spec, entries);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  std::string path = WriteTemp(*manifest);
  std::vector<int64_t> counts;
  auto paths = ReadStrings(path, "data_file", "file_path", &counts, "record_count");
  std::remove(path.c_str());
  EXPECT_EQ(paths, (std::vector<std::string>{"s3://b/t/data/f0.parquet", "s3://b/t/data/f1.parquet",
                                             "s3://b/t/data/f2.parquet"}));
  EXPECT_EQ(counts, (std::vector<int64_t>{10, 11, 12}));

  ManifestFile m;
  m.manifest_path = "s3://b/t/metadata/m0.avro";
  m.partitions = std::vector<PartitionFieldSummary>{{false, std::nullopt, "x", "y"}};
  auto list = WriteManifestList({m, m}, 1, std::nullopt, 1);
  ASSERT_TRUE(list.ok());
  path = WriteTemp(*list);
  auto manifests = ReadStrings(path, nullptr, "manifest_path");
  std::remove(path.c_str());
  EXPECT_EQ(manifests.size(), 2u);
  EXPECT_EQ(manifests[0], "s3://b/t/metadata/m0.avro");
}

// The other way: avro-c writes a deflate-compressed file (the codec Iceberg's Java writers use by default), with
// blocks of several records, and Sluice's reader decodes it.
TEST(AvroCInteropTest, SluiceReadsADeflateFileAvroCWrote) {
  const char* json = R"({"type":"record","name":"r","fields":[{"name":"id","type":"long","field-id":1},)"
                     R"({"name":"s","type":["null","string"],"field-id":2}]})";
  avro_schema_t schema;
  ASSERT_EQ(avro_schema_from_json_length(json, std::strlen(json), &schema), 0) << avro_strerror();
  std::string path = WriteTemp("");
  std::remove(path.c_str());
  avro_file_writer_t writer;
  ASSERT_EQ(avro_file_writer_create_with_codec(path.c_str(), schema, &writer, "deflate", 0), 0) << avro_strerror();
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  avro_value_t value;
  avro_generic_value_new(iface, &value);
  for (int i = 0; i < 500; i++) {
    avro_value_reset(&value);
    avro_value_t f, branch;
    avro_value_get_by_name(&value, "id", &f, nullptr);
    avro_value_set_long(&f, i * 1000003LL);
    avro_value_get_by_name(&value, "s", &f, nullptr);
    if (i % 3 == 0) {
      avro_value_set_branch(&f, 0, &branch);
      avro_value_set_null(&branch);
    } else {
      avro_value_set_branch(&f, 1, &branch);
      std::string text = "row " + std::to_string(i);
      avro_value_set_string(&branch, text.c_str());
    }
    ASSERT_EQ(avro_file_writer_append_value(writer, &value), 0) << avro_strerror();
    if (i % 100 == 99) avro_file_writer_flush(writer);  // several blocks
  }
  avro_file_writer_close(writer);
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);

  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  EXPECT_NE(bytes.find("deflate"), std::string::npos) << "avro-c wrote the deflate codec";
  auto file = ReadAvroContainer(bytes, path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ(file->records.size(), 500u);
  for (int i = 0; i < 500; i++) {
    const AvroValue& r = file->records[static_cast<size_t>(i)];
    EXPECT_EQ(r.Get("id")->l, i * 1000003LL);
    if (i % 3 == 0) {
      EXPECT_TRUE(r.Get("s")->is_null());
    } else {
      EXPECT_EQ(r.Get("s")->s, "row " + std::to_string(i));
    }
  }
}

}  // namespace
}  // namespace sluice::iceberg
