// INCLUDE METADATA in the transform: metadata columns read in their own types by COLUMNS expressions and WHERE,
// headers as a map, and the names an alias may not take.
#include "transform_harness.h"

namespace sluice::transform::testing {
namespace {

class MetadataTest : public TransformHarness {
 protected:
  // orders_with_meta(order_id BIGINT, src_topic VARCHAR, src_partition INT, src_offset BIGINT,
  //                  msg_time TIMESTAMP, trace_id VARCHAR, msg_key VARCHAR)
  static TransformSpec Spec() {
    TransformSpec spec;
    spec.source_columns = {"order_id"};
    spec.metadata = {{"m_topic", "VARCHAR"},   {"m_partition", "INTEGER"}, {"m_offset", "BIGINT"},
                     {"m_timestamp", "BIGINT"}, {"m_key", "VARCHAR"},      {"m_headers", "MAP(VARCHAR, VARCHAR)"}};
    spec.derived = {{"src_topic", "m_topic"},
                    {"src_partition", "m_partition"},
                    {"src_offset", "m_offset + 0"},
                    {"msg_time", "from_unixtime(m_timestamp / 1000)"},
                    {"trace_id", "element_at(m_headers, 'trace-id')"},
                    {"msg_key", "m_key"}};
    spec.table = {{"order_id", "BIGINT", true},    {"src_topic", "VARCHAR", true}, {"src_partition", "INTEGER", true},
                  {"src_offset", "BIGINT", true},  {"msg_time", "TIMESTAMP", true}, {"trace_id", "VARCHAR", true},
                  {"msg_key", "VARCHAR", true}};
    spec.table_name = "orders_with_meta";
    return spec;
  }
  static std::vector<std::string> Names(const TransformSpec& spec) {
    std::vector<std::string> names = spec.source_columns;
    for (const auto& m : spec.metadata) names.push_back(m.name);
    return names;
  }
};

TEST_F(MetadataTest, MetadataFeedsColumnsExpressions) {
  TransformSpec spec = Spec();
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  Rows rows = {{"1", "orders", "0", "41", "1700000000123", "k1", R"({"trace-id":"abc","other":"x"})"},
               {"2", "orders", "3", "42", std::nullopt, std::nullopt, "{}"}};
  auto out = RunCompiled(*compiled, Names(spec), rows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, "src_topic"), "orders");
  EXPECT_EQ(out->Text(0, "src_partition"), "0");
  EXPECT_EQ(out->Text(0, "src_offset"), "41");
  EXPECT_EQ(out->Text(0, "msg_time"), "2023-11-14 22:13:20");
  EXPECT_EQ(out->Text(0, "trace_id"), "abc");
  EXPECT_EQ(out->Text(0, "msg_key"), "k1");
  EXPECT_TRUE(out->Good(0));
  // no timestamp, no key, no headers: NULLs, not errors
  EXPECT_EQ(out->Text(1, "src_partition"), "3");
  EXPECT_EQ(out->Text(1, "msg_time"), "<NULL>");
  EXPECT_EQ(out->Text(1, "trace_id"), "<NULL>");
  EXPECT_EQ(out->Text(1, "msg_key"), "<NULL>");
  EXPECT_TRUE(out->Good(1));
}

TEST_F(MetadataTest, WhereCanReadMetadata) {
  TransformSpec spec = Spec();
  spec.where = "m_partition = 3 AND element_at(m_headers, 'trace-id') IS NULL";
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  Rows rows = {{"1", "t", "0", "1", "1", "k", R"({"trace-id":"abc"})"}, {"2", "t", "3", "2", "1", "k", "{}"}};
  auto out = RunCompiled(*compiled, Names(spec), rows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_FALSE(out->Selected(0));
  EXPECT_TRUE(out->Selected(1));
}

TEST_F(MetadataTest, AliasesMayNotTakeNamesInUse) {
  TransformSpec spec = Spec();
  spec.metadata[0].name = "src_topic";
  EXPECT_EQ(Compile(spec).status().message(),
            "alias 'src_topic' in INCLUDE METADATA is also a column of table 'orders_with_meta'; metadata is loaded "
            "through COLUMNS (e.g. `src_topic_col = src_topic`), so give it another name with AS");
  spec = Spec();
  spec.metadata[1].name = "ORDER_ID";
  EXPECT_EQ(Compile(spec).status().message(),
            "alias 'ORDER_ID' in INCLUDE METADATA is also a field read from the message (a source column of the "
            "load); give it another name with AS");
  spec = Spec();
  spec.metadata[1].name = "__sluice_row";
  EXPECT_EQ(Compile(spec).status().message(),
            "alias '__sluice_row' in INCLUDE METADATA is a reserved name; give it another name with AS");
  spec = Spec();
  spec.metadata[1].name = "m_topic";
  EXPECT_EQ(Compile(spec).status().message(),
            "alias 'm_topic' in INCLUDE METADATA appears twice; give each key its own name with AS");
}

}  // namespace
}  // namespace sluice::transform::testing
