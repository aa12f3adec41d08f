// Sluice's Avro encoding and container files: byte-exact against hand-worked encodings from the Avro spec, and
// round trips of generic values and of Iceberg manifests and manifest lists.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "iceberg/avro_container.h"
#include "iceberg/avro_encoding.h"
#include "iceberg/manifest.h"
#include "iceberg/manifest_list.h"
#include "iceberg/table_builder.h"

namespace sluice::iceberg {
namespace {

std::string Hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

TEST(AvroEncodingTest, ZigZagVarintsAsTheSpecShowsThem) {
  // Avro spec, "Binary Encoding": 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03, 2 -> 04, -64 -> 7f, 64 -> 80 01.
  const std::pair<int64_t, std::string> cases[] = {{0, "00"}, {-1, "01"}, {1, "02"}, {-2, "03"}, {2, "04"},
                                                    {-64, "7f"}, {64, "8001"}, {8192, "808001"},
                                                    {INT64_MAX, "feffffffffffffffff01"},
                                                    {INT64_MIN, "ffffffffffffffffff01"}};
  for (const auto& [v, hex] : cases) {
    AvroEncoder e;
    e.WriteLong(v);
    EXPECT_EQ(Hex(e.buffer()), hex) << v;
    AvroDecoder d(e.buffer());
    auto back = d.ReadLong();
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, v);
  }
  AvroEncoder e;
  e.WriteBytes("foo");  // the spec's example: 06 66 6f 6f
  EXPECT_EQ(Hex(e.buffer()), "06666f6f");
}

TEST(AvroEncodingTest, TruncatedInputIsAnErrorNotACrash) {
  std::string bad = "\x80\x80";
  AvroDecoder d(bad);
  EXPECT_FALSE(d.ReadLong().ok());
  // An array of nulls that claims 2^62 items in 1 byte is refused, not allocated.
  auto nulls = ParseAvroSchema(R"({"type":"array","items":"null"})");
  ASSERT_TRUE(nulls.ok());
  std::string huge = "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01";
  AvroDecoder d3(huge);
  EXPECT_FALSE(DecodeAvro(**nulls, &d3).ok());
  std::string len = "\x0a" "ab";  // says 5 bytes, has 2
  AvroDecoder d2(len);
  EXPECT_FALSE(d2.ReadBytes().ok());
}

TEST(AvroContainerTest, ByteExactSmallFile) {
  AvroFile f;
  f.schema_json = R"({"type":"record","name":"r","fields":[{"name":"a","type":"long","field-id":1},)"
                  R"({"name":"b","type":["null","string"],"field-id":2}]})";
  f.metadata["k"] = "v";
  AvroValue r1 = AvroValue::Record();
  r1.Set("a", AvroValue::Long(1)).Set("b", AvroValue::String("x"));
  AvroValue r2 = AvroValue::Record();
  r2.Set("a", AvroValue::Long(-1));  // b missing: null
  f.records = {r1, r2};
  std::string sync(16, '\x11');
  auto bytes = WriteAvroContainer(f, sync);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::string expected = std::string("Obj\x01", 4);
  expected += "\x06";  // 3 metadata entries
  auto str = [](const std::string& s) {
    AvroEncoder e;
    e.WriteBytes(s);
    return e.buffer();
  };
  expected += str("avro.schema") + str(f.schema_json) + str("avro.codec") + str("null") + str("k") + str("v");
  expected += '\x00';
  expected += sync;
  // One block: 2 records, 6 bytes: a=1 (02), b=branch 1 (02) "x" (02 78); a=-1 (01), b=branch 0 (00).
  expected += std::string("\x04\x0c\x02\x02\x02\x78\x01\x00", 8);
  expected += sync;
  EXPECT_EQ(Hex(*bytes), Hex(expected));

  auto back = ReadAvroContainer(*bytes, "test");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->schema_json, f.schema_json);
  EXPECT_EQ(back->metadata.at("k"), "v");
  ASSERT_EQ(back->records.size(), 2u);
  EXPECT_EQ(back->records[0].Get("a")->l, 1);
  EXPECT_EQ(back->records[0].Get("b")->s, "x");
  EXPECT_TRUE(back->records[1].Get("b")->is_null());
}

TEST(AvroContainerTest, RoundTripOfNestedTypesAcrossBlocks) {
  AvroFile f;
  f.schema_json = R"({"type":"record","name":"r","fields":[)"
                  R"({"name":"m","type":{"type":"map","values":"double"}},)"
                  R"({"name":"arr","type":{"type":"array","items":{"type":"record","name":"kv","fields":[)"
                  R"({"name":"key","type":"int"},{"name":"value","type":"bytes"}]}}},)"
                  R"({"name":"fx","type":{"type":"fixed","name":"f4","size":4}},)"
                  R"({"name":"again","type":["null","kv"]},{"name":"flag","type":"boolean"},{"name":"f","type":"float"}]})";
  for (int i = 0; i < 25; i++) {
    AvroValue m = AvroValue::Map();
    m.Set("x", AvroValue::Double(i * 1.5));
    AvroValue kv = AvroValue::Record();
    kv.Set("key", AvroValue::Int(i)).Set("value", AvroValue::Bytes(std::string(static_cast<size_t>(i), '\0')));
    AvroValue arr = AvroValue::Array();
    arr.Append(kv);
    AvroValue rec = AvroValue::Record();
    rec.Set("m", m).Set("arr", arr).Set("fx", AvroValue::Bytes("abcd"));
    rec.Set("again", i % 2 ? kv : AvroValue::Null());
    rec.Set("flag", AvroValue::Bool(i % 3 == 0)).Set("f", AvroValue::Float(0.25f * static_cast<float>(i)));
    f.records.push_back(rec);
  }
  auto bytes = WriteAvroContainer(f, "", 7);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = ReadAvroContainer(*bytes, "test");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->records.size(), 25u);
  for (int i = 0; i < 25; i++) {
    const AvroValue& r = back->records[static_cast<size_t>(i)];
    EXPECT_DOUBLE_EQ(r.Get("m")->Get("x")->d, i * 1.5);
    EXPECT_EQ(r.Get("arr")->items[0].Get("key")->l, i);
    EXPECT_EQ(r.Get("arr")->items[0].Get("value")->s.size(), static_cast<size_t>(i));
    EXPECT_EQ(r.Get("fx")->s, "abcd");
    EXPECT_EQ(r.Get("again")->is_null(), i % 2 == 0);
    EXPECT_EQ(r.Get("flag")->b, i % 3 == 0);
    EXPECT_FLOAT_EQ(static_cast<float>(r.Get("f")->d), 0.25f * static_cast<float>(i));
  }
  // A flipped byte in the last sync marker is caught.
  std::string broken = *bytes;
  broken[broken.size() - 1] ^= 1;
  EXPECT_FALSE(ReadAvroContainer(broken, "test").ok());
  EXPECT_FALSE(ReadAvroContainer("not avro", "test").ok());
}

TEST(ManifestTest, ManifestRoundTripKeepsFieldIdsAndPartitionValues) {
  auto schema = SchemaFromColumns({{"id", "BIGINT", true}, {"name", "VARCHAR"}, {"ts", "TIMESTAMP"},
                                   {"amount", "DECIMAL(10,2)"}});
  ASSERT_TRUE(schema.ok());
  auto spec = PartitionSpecFromTerms(*schema, {"day(ts)", "bucket(8, id)", "amount"});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto schema_json = ManifestEntrySchemaJson(*schema, *spec);
  ASSERT_TRUE(schema_json.ok());
  EXPECT_NE(schema_json->find(R"("name":"ts_day","type":["null",{"type":"int","logicalType":"date"}],"default":null,"field-id":1000)"),
            std::string::npos) << *schema_json;
  EXPECT_NE(schema_json->find(R"("name":"k117_v118")"), std::string::npos);
  EXPECT_NE(schema_json->find(R"("field-id":134)"), std::string::npos);

  ManifestEntry e;
  e.data_file.file_path = "s3://b/t/data/x.parquet";
  e.data_file.record_count = 3;
  e.data_file.file_size_in_bytes = 1234;
  e.data_file.partition = {Value{MakeType(TypeId::kDate), int32_t{19844}}, Value{MakeType(TypeId::kInt), int32_t{5}},
                           Value{DecimalType(10, 2), Int128{-1234}}};
  e.data_file.value_counts = {{1, 3}, {2, 3}};
  e.data_file.null_value_counts = {{1, 0}, {2, 1}};
  e.data_file.lower_bounds = {{1, std::string("\x01\0\0\0\0\0\0\0", 8)}};
  e.data_file.upper_bounds = {{2, "zz"}};
  ManifestEntry e2 = e;
  e2.data_file.file_path = "s3://b/t/data/y.parquet";
  e2.data_file.partition[2] = Value::Null(DecimalType(10, 2));
  auto bytes = WriteManifest(*schema, *spec, {e, e2});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto file = ReadAvroContainer(*bytes, "m");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->metadata.at("format-version"), "2");
  EXPECT_EQ(file->metadata.at("content"), "data");
  EXPECT_NE(file->metadata.at("partition-spec").find("\"transform\":\"day\""), std::string::npos);
  auto back = ReadManifest(*bytes, *schema, *spec, "m");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  const DataFile& d = (*back)[0].data_file;
  EXPECT_EQ(d.file_path, e.data_file.file_path);
  EXPECT_EQ(d.file_format, "PARQUET");
  EXPECT_EQ(d.record_count, 3);
  EXPECT_EQ(d.file_size_in_bytes, 1234);
  EXPECT_EQ(d.value_counts, e.data_file.value_counts);
  EXPECT_EQ(d.null_value_counts, e.data_file.null_value_counts);
  EXPECT_EQ(d.lower_bounds, e.data_file.lower_bounds);
  EXPECT_EQ(d.upper_bounds, e.data_file.upper_bounds);
  ASSERT_EQ(d.partition.size(), 3u);
  EXPECT_EQ(std::get<int32_t>(d.partition[0].v), 19844);
  EXPECT_EQ(std::get<int32_t>(d.partition[1].v), 5);
  EXPECT_TRUE(std::get<Int128>(d.partition[2].v) == -1234);
  EXPECT_TRUE((*back)[1].data_file.partition[2].is_null());
  EXPECT_FALSE((*back)[0].sequence_number.has_value());  // inherited from the manifest list
}

TEST(ManifestListTest, RoundTrip) {
  ManifestFile m;
  m.manifest_path = "s3://b/t/metadata/a-m0.avro";
  m.manifest_length = 4000;
  m.sequence_number = 3;
  m.min_sequence_number = 2;
  m.added_snapshot_id = 77;
  m.added_files_count = 2;
  m.added_rows_count = 10;
  m.partitions = std::vector<PartitionFieldSummary>{{true, std::nullopt, std::string("\x01\0\0\0", 4), std::nullopt}};
  ManifestFile n = m;
  n.manifest_path = "s3://b/t/metadata/b-m0.avro";
  n.partitions.reset();
  auto bytes = WriteManifestList({m, n}, 77, std::nullopt, 3);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = ReadManifestList(*bytes, "list");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].manifest_path, m.manifest_path);
  EXPECT_EQ((*back)[0].sequence_number, 3);
  EXPECT_EQ((*back)[0].min_sequence_number, 2);
  EXPECT_EQ((*back)[0].added_rows_count, 10);
  ASSERT_TRUE((*back)[0].partitions.has_value());
  EXPECT_TRUE((*back)[0].partitions->at(0).contains_null);
  EXPECT_EQ((*back)[0].partitions->at(0).lower_bound, std::string("\x01\0\0\0", 4));
  EXPECT_FALSE((*back)[0].partitions->at(0).upper_bound.has_value());
  EXPECT_FALSE((*back)[1].partitions.has_value());
}

}  // namespace
}  // namespace sluice::iceberg
