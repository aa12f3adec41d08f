// Transforms whose batch columns are inputs only (TransformSpec::sources_are_inputs), the shape a Lakehouse
// `SELECT <exprs> FROM READ_KAFKA(...) WHERE ...` compiles to: inputs are typed, never loaded by name, and the
// same name may be a target column computed from an expression.
#include "transform_harness.h"

namespace sluice::transform::testing {
namespace {

class InputColumnsTest : public TransformHarness {
 protected:
  TransformSpec LogSpec() {
    TransformSpec spec;
    spec.source_columns = {"partition", "offset", "timestamp", "value"};
    spec.source_types = {{"partition", "INTEGER"}, {"offset", "BIGINT"}, {"timestamp", "TIMESTAMP"}};
    spec.sources_are_inputs = true;
    spec.table = {{"log_time", "TIMESTAMP", true}, {"level", "VARCHAR", true}, {"message", "VARCHAR", true},
                  {"offset", "BIGINT", true}, {"value", "VARCHAR", true}};
    spec.derived = {{"log_time", "CAST(PARSE_JSON(value::STRING)['time'] AS TIMESTAMP)"},
                    {"level", "PARSE_JSON(value::STRING)['level']::STRING"},
                    {"message", "PARSE_JSON(value::STRING)['message']::STRING"},
                    {"offset", "offset + 1000"}};
    return spec;
  }
};

TEST_F(InputColumnsTest, JsonLogExpressions) {
  TransformSpec spec = LogSpec();
  spec.where = "PARSE_JSON(value::STRING)['level']::STRING <> 'debug' AND partition = 0";
  auto out = Run(spec, {{"0", "5", "2024-05-01 10:00:00.123", R"({"time":"2024-05-01 09:59:58","level":"info","message":"up"})"},
                        {"0", "6", "2024-05-01 10:00:01", R"({"time":"2024-05-01 09:59:59","level":"debug","message":"x"})"},
                        {"1", "7", "2024-05-01 10:00:02", R"({"time":"2024-05-01 10:00:00","level":"warn","message":"y"})"},
                        {"0", "8", "2024-05-01 10:00:03", "not json"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->columns.size(), 4 + 3u);  // log_time, level, message, offset + row, error, selected
  EXPECT_EQ(out->Text(0, "log_time"), "2024-05-01 09:59:58");
  EXPECT_EQ(out->Text(0, "level"), "info");
  EXPECT_EQ(out->Text(0, "message"), "up");
  EXPECT_EQ(out->Text(0, "offset"), "1005");  // the input offset is a BIGINT, so + is integer arithmetic
  EXPECT_TRUE(out->Good(0));
  EXPECT_TRUE(out->Selected(0));
  EXPECT_FALSE(out->Selected(1));  // debug
  EXPECT_FALSE(out->Selected(2));  // partition 1
  EXPECT_EQ(out->Text(3, "level"), "<NULL>");  // not JSON: NULLs, not a failed batch
  EXPECT_FALSE(out->Selected(3));
}

TEST_F(InputColumnsTest, InputsAreNotLoadedByName) {
  TransformSpec spec = LogSpec();
  // `value` is a table column too, but an input is never loaded into it; only what the SELECT list computes is.
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ(compiled->loaded_columns, (std::vector<std::string>{"log_time", "level", "message", "offset"}));
}

TEST_F(InputColumnsTest, WhereSeesInputsOnly) {
  TransformSpec spec = LogSpec();
  spec.where = "level = 'info'";  // a target column, not an input
  auto compiled = Compile(spec);
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.status().message().find("unknown column 'level'"), std::string::npos)
      << compiled.status().message();
}

TEST_F(InputColumnsTest, TypedInputs) {
  TransformSpec spec;
  spec.source_columns = {"partition", "timestamp"};
  spec.source_types = {{"partition", "INTEGER"}, {"timestamp", "TIMESTAMP"}};
  spec.sources_are_inputs = true;
  spec.table = {{"day", "DATE", true}, {"p", "INTEGER", true}};
  spec.derived = {{"day", "timestamp::date"}, {"p", "partition * 10"}};
  auto out = Run(spec, {{"3", "2024-05-01 23:59:59.999"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, "day"), "2024-05-01");
  EXPECT_EQ(out->Text(0, "p"), "30");
}

}  // namespace
}  // namespace sluice::transform::testing
