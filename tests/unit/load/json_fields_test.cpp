// A pipe's PARSE_JSON(value::STRING)[...] reads: the raw decoder extracts the values with simdjson
// (format/json_field_reader.h) and the transform falls back to DuckDB per value where the decoder is not certain.
// The loaded values must be exactly those of reading each path in DuckDB alone.
#include <gtest/gtest.h>

#include "catalog/pipe_definition.h"
#include "format/json_field_reader.h"
#include "load/raw_decoder.h"
#include "storage/batch_table_function.h"
#include "storage/database.h"
#include "transform/compiler.h"

namespace sluice::load {
namespace {

using Cell = std::optional<std::string>;

const std::vector<Cell> kAwkwardValues = {
    R"({"s":"plain","n":42,"t":"2024-05-01 10:00:00","o":{"k":{"x":1}, "y" : [1, 2.50]},"arr":[10,"x",null,{"z":1}],"b":true})",
    R"({"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00 tab\t end","n":-0,"t":"2024-05-01T10:00:00Z","b":false})",
    R"({"s":"-0","n":-0.0,"b":true,"arr":[-0]})",
    R"({"s":"日本語 ü","n":1e3,"b":"true","t":"20240501"})",
    R"({"n":12.50,"s":123,"t":1714557600,"b":1})",
    R"({"n":-9223372036854775808,"s":18446744073709551615,"b":0})",
    R"({"n":123456789012345678901234567890,"s":1.5e-7,"b":"yes"})",
    R"({"n":"17","s":null,"t":null})",
    R"({"s":null,"n":null,"o":null,"arr":null})",
    R"({"s":{"a":[1, 2]},"n":[1],"o":"str","arr":"abc"})",
    R"({"":"empty","a/b":"slash","~":"tilde","s":"dup1","s":"dup2","n":"12.5"})",
    R"({"s":"nul \u0000 inside","n":"\ud800","o":{"k":{"x":"\u0041"}}})",
    R"( { "s" : "spaced" , "n" : 7 , "o" : { "k" : { "x" : "deep" } } } )",
    R"({"s":"","n":"","o":{},"arr":[]})",
    R"({"arr":{"0":"object key zero","1":"one"},"s":"x"})",
    R"([1,2,3])",
    R"("just a string")",
    R"(42)",
    R"(null)",
    "not json",
    R"({"s":"unterminated)",
    R"({"s":"x",})",
    R"({"s":"x"} trailing)",
    R"({"s":"x"}{"s":"y"})",
    R"({"s":NaN,"n":Infinity})",
    "",
};

std::vector<std::pair<std::string, std::string>> Expressions() {
  const std::string j = "PARSE_JSON(value::STRING)";
  return {{"s_string", j + "['s']::STRING"},
          {"s_bare", j + "['s']"},
          {"n_bigint", j + "['n']::BIGINT"},
          {"n_bare", j + "['n']"},
          {"n_double", j + "['n']::DOUBLE"},
          {"n_string", j + "['n']::STRING"},
          {"t_ts", "CAST(" + j + "['t'] AS TIMESTAMP)"},
          {"b_bool", j + "['b']::BOOLEAN"},
          {"b_string", j + "['b']::STRING"},
          {"o_json", j + "['o']"},
          {"o_string", j + "['o']::STRING"},
          {"o_deep", j + "['o']['k']['x']::STRING"},
          {"o_y1", j + "['o']['y'][1]::DOUBLE"},
          {"arr_0", j + "['arr'][0]::STRING"},
          {"arr_1", j + "['arr'][1]"},
          {"arr_0_key", j + "['arr']['0']::STRING"},
          {"arr_3z", j + "['arr'][3]['z']::BIGINT"},
          {"root_0", j + "[0]::STRING"},
          {"missing", j + "['missing']::STRING"},
          {"empty_key", j + "['']::STRING"},
          {"slash_key", j + "['a/b']::STRING"},
          {"tilde_key", j + "['~']::STRING"},
          {"direct", "value['s']"},
          {"concat", "concat(" + j + "['s'], '|', " + j + "['n'])"},
          {"offset_plus", "offset + 1"}};
}

transform::TransformSpec PipeSpec(bool shared) {
  transform::TransformSpec spec;
  for (const auto& [name, type] : catalog::ReadKafkaColumns()) {
    spec.source_columns.push_back(name);
    spec.source_types.emplace_back(name, type);
  }
  spec.sources_are_inputs = true;
  spec.share_json_parse = shared;
  spec.decoded_json_source = "value";
  for (const auto& [name, expr] : Expressions()) {
    std::string type = name == "o_json" ? "JSON" : name.find("bigint") != std::string::npos || name == "arr_3z" ||
                                                           name == "offset_plus"
                                                       ? "BIGINT"
                                                   : name.find("double") != std::string::npos || name == "o_y1"
                                                       ? "DOUBLE"
                                                   : name == "t_ts"   ? "TIMESTAMP"
                                                   : name == "b_bool" ? "BOOLEAN"
                                                                      : "VARCHAR";
    spec.table.push_back({name, type, true});
    spec.derived.emplace_back(name, expr);
  }
  spec.where = "PARSE_JSON(value::STRING)['s']::STRING <> 'x' OR PARSE_JSON(value::STRING)['n'] > 10";
  return spec;
}

class JsonFieldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = storage::Database::Open("");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    auto con = db_->Connect();
    ASSERT_TRUE(con.ok());
    con_ = std::move(*con);
    ASSERT_TRUE(storage::RegisterBatchTableFunction(*con_).ok());
  }

  // Decodes the messages as a pipe task does and runs the compiled SELECT; every value as DuckDB's text.
  std::vector<std::vector<Cell>> Load(bool shared, size_t* decoded_values) {
    auto compiled = transform::Compile(PipeSpec(shared));
    EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
    if (!compiled.ok()) return {};
    std::vector<std::string> columns;
    for (const auto& [name, type] : catalog::ReadKafkaColumns()) columns.push_back(name);
    for (size_t k = 0; k < compiled->decoded_json_pointers.size(); k++)
      columns.push_back(transform::DecodedJsonColumn(k));
    auto decoder = MakeRawDecoder("t", compiled->decoded_json_pointers);
    EXPECT_TRUE(decoder.ok());
    TextBatch batch(columns);
    for (size_t i = 0; i < kAwkwardValues.size(); i++) {
      source::KafkaMessage m;
      m.offset = static_cast<int64_t>(i);
      m.payload = *kAwkwardValues[i];
      EXPECT_TRUE((*decoder)->DecodeMessage(m, batch).ok());
    }
    *decoded_values = 0;
    for (size_t c = 8; c < batch.num_columns(); c++)
      for (size_t r = 0; r < batch.num_rows(); r++) *decoded_values += batch.IsNull(c, r) ? 0 : 1;
    storage::BatchHandle handle(batch);
    auto res = con_->Query("SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (" + compiled->Bind(handle.id()) +
                           ") ORDER BY CAST(__sluice_row AS BIGINT)");
    EXPECT_TRUE(res.ok()) << res.status().ToString() << "\n" << compiled->sql;
    if (!res.ok()) return {};
    return res->result_set->rows;
  }

  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Connection> con_;
};

TEST_F(JsonFieldsTest, DecodedValuesEqualDuckDBs) {
  size_t decoded = 0, none = 0;
  auto fast = Load(true, &decoded);
  auto alone = Load(false, &none);
  EXPECT_GT(decoded, 30u);  // the decoder answered for most values of the well-formed messages
  EXPECT_EQ(none, 0u);
  ASSERT_EQ(fast.size(), kAwkwardValues.size());
  ASSERT_EQ(alone.size(), kAwkwardValues.size());
  const auto names = Expressions();
  for (size_t r = 0; r < fast.size(); r++) {
    ASSERT_EQ(fast[r].size(), alone[r].size());
    for (size_t c = 0; c < fast[r].size(); c++) {
      EXPECT_EQ(fast[r][c], alone[r][c]) << "message " << *kAwkwardValues[r] << ", output column " << c
                                         << (c < names.size() ? " (" + names[c].first + ")" : "");
    }
  }
}

TEST(JsonFieldReaderTest, AnswersOnlyWhenCertain) {
  auto reader = format::JsonFieldReader::Create({"/s", "/n", "/b", "/o", "/a/1", "/a/01", "/x~1y", "/nul", "/d"});
  ASSERT_TRUE(reader.ok());
  std::vector<std::optional<std::string_view>> out;
  reader->Read(R"({"s":"t\"x","n":-12,"b":false,"o":{"k":1},"a":[0,"one"],"x/y":"slash","nul":null,"d":2.5})", out);
  ASSERT_EQ(out.size(), 9u);
  EXPECT_EQ(out[0], std::optional<std::string_view>("t\"x"));
  EXPECT_EQ(out[1], std::optional<std::string_view>("-12"));
  EXPECT_EQ(out[2], std::optional<std::string_view>("false"));
  EXPECT_EQ(out[3], std::nullopt);  // an object: DuckDB writes its text
  EXPECT_EQ(out[4], std::optional<std::string_view>("one"));
  EXPECT_EQ(out[5], std::nullopt);  // "01" is no canonical index
  EXPECT_EQ(out[6], std::optional<std::string_view>("slash"));
  EXPECT_EQ(out[7], std::nullopt);  // null
  EXPECT_EQ(out[8], std::nullopt);  // DuckDB prints doubles its own way
  reader->Read(R"({"s":"x",})", out);
  for (const auto& v : out) EXPECT_EQ(v, std::nullopt);
  reader->Read(R"({"s":"a","s":"b","n":1})", out);
  EXPECT_EQ(out[0], std::nullopt);  // a repeated key
  EXPECT_EQ(out[1], std::optional<std::string_view>("1"));
  EXPECT_FALSE(format::JsonFieldReader::Create({"a"}).ok());
  EXPECT_FALSE(format::JsonFieldReader::Create({"/a~2"}).ok());
}

}  // namespace
}  // namespace sluice::load
