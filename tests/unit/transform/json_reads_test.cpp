// Constant-path JSON reads share one parse per row (transform/json_access.h): which forms do, which compile on
// their own, and that both give the same values, row for row, on awkward JSON.
#include "transform/json_access.h"

#include "transform_harness.h"

namespace sluice::transform::testing {
namespace {

constexpr const char* kJ = "PARSE_JSON(value::STRING)";

class JsonReadsTest : public TransformHarness {
 protected:
  // A pipe-shaped spec: inputs `partition` and `value`, one derived column per (target, type, expression).
  static TransformSpec Spec(const std::vector<std::tuple<std::string, std::string, std::string>>& columns,
                            std::optional<std::string> where = std::nullopt) {
    TransformSpec spec;
    spec.source_columns = {"partition", "value"};
    spec.source_types = {{"partition", "INTEGER"}};
    spec.sources_are_inputs = true;
    for (const auto& [name, type, expr] : columns) {
      const bool not_null = name.rfind("nn_", 0) == 0;
      spec.table.push_back({name, type, !not_null});
      spec.derived.emplace_back(name, expr);
    }
    spec.where = std::move(where);
    return spec;
  }

  static bool Shared(const TransformSpec& spec) {
    auto compiled = Compile(spec);
    EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
    return compiled.ok() && compiled->sql.find("__sluice_json") != std::string::npos;
  }

  // Runs the spec with and without shared reads and expects the same output, cell for cell.
  void ExpectSameResults(TransformSpec spec, const std::vector<Cell>& values) {
    Rows rows;
    for (const Cell& v : values) rows.push_back({"0", v});
    ASSERT_TRUE(Shared(spec));
    auto shared = Run(spec, rows);
    ASSERT_TRUE(shared.ok()) << shared.status().ToString();
    spec.share_json_parse = false;
    ASSERT_FALSE(Shared(spec));
    auto alone = Run(spec, rows);
    ASSERT_TRUE(alone.ok()) << alone.status().ToString();
    ASSERT_EQ(shared->columns, alone->columns);
    ASSERT_EQ(shared->rows.size(), alone->rows.size());
    for (size_t r = 0; r < rows.size(); r++) {
      for (size_t c = 0; c < shared->columns.size(); c++) {
        EXPECT_EQ(shared->rows[r][c], alone->rows[r][c])
            << "column " << shared->columns[c] << ", value " << values[r].value_or("<NULL>");
      }
    }
  }
};

std::string J(const std::string& path) { return std::string(kJ) + path; }

TEST_F(JsonReadsTest, MatchesConstantPathChains) {
  auto pointer = [](const std::string& text) -> std::string {
    auto expr = ParseExpression(text);
    if (!expr.ok()) return "parse error";
    auto read = MatchJsonRead(**expr);
    return read ? read->pointer + " of " + read->base->text : "none";
  };
  EXPECT_EQ(pointer("PARSE_JSON(value::STRING)['a']"), "/a of value");
  EXPECT_EQ(pointer("parse_json(value)['a']['b'][0]"), "/a/b/0 of value");
  EXPECT_EQ(pointer("json_parse(CAST(value AS VARCHAR))['x']"), "/x of value");
  EXPECT_EQ(pointer("value['a/b']['~']"), "/a~1b/~0 of value");
  EXPECT_EQ(pointer("PARSE_JSON(value)['']"), "/ of value");
  EXPECT_EQ(pointer("PARSE_JSON(value)[k]"), "none");              // a computed key
  EXPECT_EQ(pointer("PARSE_JSON(value)[-1]"), "none");             // a negative index
  EXPECT_EQ(pointer("PARSE_JSON(value)[1 + 1]"), "none");
  EXPECT_EQ(pointer("PARSE_JSON(concat(value, ''))['a']"), "none");  // parses an expression
  EXPECT_EQ(pointer("PARSE_JSON(value::INT)['a']"), "none");
  EXPECT_EQ(pointer("PARSE_JSON(value)"), "none");
  EXPECT_EQ(pointer("get_json_string(value, '$.a')"), "none");
}

TEST_F(JsonReadsTest, WhichReadsShareTheParse) {
  EXPECT_TRUE(Shared(Spec({{"a", "VARCHAR", J("['a']::STRING")}})));
  EXPECT_TRUE(Shared(Spec({{"a", "VARCHAR", "value['a']"}})));
  EXPECT_TRUE(Shared(Spec({{"a", "VARCHAR", "'x'"}}, J("['level']::STRING") + " <> 'debug'")));
  EXPECT_FALSE(Shared(Spec({{"a", "VARCHAR", J("")}})));                        // the whole document
  EXPECT_FALSE(Shared(Spec({{"a", "VARCHAR", "PARSE_JSON(partition::STRING)['a']"}})));  // not a text column
  EXPECT_FALSE(Shared(Spec({{"a", "VARCHAR", "get_json_string(value, '$.a')"}})));
  EXPECT_FALSE(Shared(Spec({{"a", "VARCHAR", J("[-1]")}})));

  // Five reads of one column: one list of five paths, each path once however often it is read.
  TransformSpec spec = Spec({{"a", "VARCHAR", J("['a']::STRING")},
                             {"b", "BIGINT", J("['b']::BIGINT")},
                             {"c", "VARCHAR", "concat(" + J("['a']") + ", " + J("['c']['d']") + ")"}});
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_NE(compiled->sql.find("json_extract_string(TRY_CAST(__sluice_r1 AS JSON), ['/a', '/b', '/c/d'])"),
            std::string::npos)
      << compiled->sql;
  EXPECT_NE(compiled->sql.find("json_extract(TRY_CAST(__sluice_r1 AS JSON), ['/a', '/b', '/c/d'])"), std::string::npos);
  size_t lists = 0;
  for (size_t at = compiled->sql.find("'/a'"); at != std::string::npos; at = compiled->sql.find("'/a'", at + 1)) lists++;
  EXPECT_EQ(lists, 2u) << compiled->sql;  // one text list and one JSON list; DuckDB drops the unused one
}

TEST_F(JsonReadsTest, LogExample) {
  TransformSpec spec = Spec({{"log_time", "TIMESTAMP", "CAST(" + J("['time']") + " AS TIMESTAMP)"},
                             {"level", "VARCHAR", J("['level']::STRING")},
                             {"message", "VARCHAR", J("['message']::STRING")}},
                            J("['level']::STRING") + " <> 'debug'");
  auto out = Run(spec, {{"0", R"({"time":"2024-05-01 09:59:58","level":"info","message":"up \"1\""})"},
                        {"0", R"({"time":"2024-05-01T09:59:59Z","level":"debug","message":"x"})"},
                        {"0", "not json"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, "log_time"), "2024-05-01 09:59:58");
  EXPECT_EQ(out->Text(0, "level"), "info");
  EXPECT_EQ(out->Text(0, "message"), "up \"1\"");
  EXPECT_TRUE(out->Selected(0));
  EXPECT_EQ(out->Text(1, "log_time"), "2024-05-01 09:59:59");
  EXPECT_FALSE(out->Selected(1));
  EXPECT_EQ(out->Text(2, "level"), "<NULL>");
  EXPECT_FALSE(out->Selected(2));
  EXPECT_TRUE(out->Good(2));
}

TEST_F(JsonReadsTest, DecodedValuesWithFallbackPerValue) {
  TransformSpec spec = Spec({{"a", "VARCHAR", J("['a']::STRING")},
                             {"b", "BIGINT", J("['b']::BIGINT")},
                             {"c", "JSON", J("['a']")},
                             {"d", "VARCHAR", "get_json_string(value, '$.a')"}});
  spec.decoded_json_source = "value";
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ(compiled->decoded_json_pointers, (std::vector<std::string>{"/a", "/b"}));
  // The decoder's text wins where it has one (here a marker, to see which one is used); NULL asks DuckDB.
  auto out = RunCompiled(*compiled, {"partition", "value", DecodedJsonColumn(0), DecodedJsonColumn(1)},
                         {{"0", R"({"a":"x","b":2})", "from decoder", "7"},
                          {"0", R"({"a":{"k": 1.50},"b":2.0})", std::nullopt, std::nullopt},
                          {"0", "not json", std::nullopt, std::nullopt}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, "a"), "from decoder");
  EXPECT_EQ(out->Text(0, "b"), "7");
  EXPECT_EQ(out->Text(0, "c"), R"("x")");  // JSON values come from DuckDB
  EXPECT_EQ(out->Text(0, "d"), "x");
  EXPECT_EQ(out->Text(1, "a"), R"({"k":1.5})");
  EXPECT_EQ(out->Text(1, "b"), "2");
  EXPECT_EQ(out->Text(2, "a"), "<NULL>");
  EXPECT_EQ(out->Text(2, "b"), "<NULL>");
}

// Values of every JSON type, escapes, numbers DuckDB rewrites, nested values, missing keys, odd keys, documents
// that are not objects and text that is not JSON.
const std::vector<Cell> kAwkwardValues = {
    R"({"s":"plain","n":42,"t":"2024-05-01 10:00:00","o":{"k":{"x":1}, "y" : [1, 2.50]},"arr":[10,"x",null,{"z":1}],"b":true})",
    R"({"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00 tab\t end","n":-0,"t":"2024-05-01T10:00:00Z","b":false})",
    R"({"s":"日本語 ü","n":1e3,"b":"true","t":"20240501"})",
    R"({"n":12.50,"s":123,"t":1714557600,"b":1})",
    R"({"n":123456789012345678901234567890,"s":1.5e-7,"b":"yes"})",
    R"({"n":"17","s":null,"t":null})",
    R"({"s":null,"n":null,"o":null,"arr":null})",
    R"({"s":{"a":[1, 2]},"n":[1],"o":"str","arr":"abc"})",
    R"({"":"empty","a/b":"slash","~":"tilde","s":"dup1","s":"dup2","n":"12.5"})",
    R"( { "s" : "spaced" , "n" : 7 , "o" : { "k" : { "x" : "deep" } } } )",
    R"({"s":"","n":"","o":{},"arr":[]})",
    R"([1,2,3])",
    R"("just a string")",
    R"(42)",
    R"(null)",
    "not json",
    R"({"s":"unterminated)",
    R"({"s":"x",})",
    R"({"s":"x"} trailing)",
    "",
    std::nullopt,
};

TEST_F(JsonReadsTest, SameValuesAsReadingEachPathAlone) {
  ExpectSameResults(
      Spec({{"s_string", "VARCHAR", J("['s']::STRING")},
            {"s_bare", "VARCHAR", J("['s']")},
            {"s_short", "VARCHAR(4)", J("['s']")},
            {"s_json", "JSON", J("['s']")},
            {"n_bigint", "BIGINT", J("['n']::BIGINT")},
            {"n_bare_bigint", "BIGINT", J("['n']")},
            {"n_int_cast", "INTEGER", "CAST(" + J("['n']") + " AS INT)"},
            {"n_double", "DOUBLE", J("['n']::DOUBLE")},
            {"n_decimal", "DECIMAL(10,2)", J("['n']::DECIMAL(10,2)")},
            {"n_string", "VARCHAR", J("['n']::STRING")},
            {"n_plus", "DOUBLE", J("['n']") + " + 1"},
            {"t_ts", "TIMESTAMP", "CAST(" + J("['t']") + " AS TIMESTAMP)"},
            {"t_bare_ts", "TIMESTAMP", J("['t']")},
            {"t_date", "DATE", J("['t']::DATE")},
            {"b_bool", "BOOLEAN", J("['b']::BOOLEAN")},
            {"b_string", "VARCHAR", J("['b']::STRING")},
            {"o_json", "JSON", J("['o']")},
            {"o_string", "VARCHAR", J("['o']::STRING")},
            {"o_deep", "VARCHAR", J("['o']['k']['x']::STRING")},
            {"o_y1", "DOUBLE", J("['o']['y'][1]::DOUBLE")},
            {"o_map", "MAP(VARCHAR, VARCHAR)", J("['o']")},
            {"arr_0", "VARCHAR", J("['arr'][0]::STRING")},
            {"arr_1", "VARCHAR", J("['arr'][1]")},
            {"arr_2", "VARCHAR", J("['arr'][2]::STRING")},
            {"arr_3z", "BIGINT", J("['arr'][3]['z']::BIGINT")},
            {"arr_9", "VARCHAR", J("['arr'][9]::STRING")},
            {"arr_list", "BIGINT[]", J("['arr']")},
            {"root_0", "VARCHAR", J("[0]::STRING")},
            {"missing", "VARCHAR", J("['missing']::STRING")},
            {"missing_deep", "VARCHAR", J("['s']['missing']::STRING")},
            {"empty_key", "VARCHAR", J("['']::STRING")},
            {"slash_key", "VARCHAR", J("['a/b']::STRING")},
            {"tilde_key", "VARCHAR", J("['~']::STRING")},
            {"direct", "VARCHAR", "value['s']"},
            {"concat", "VARCHAR", "concat(" + J("['s']") + ", '|', " + J("['n']") + ", '|', " + J("['o']") + ")"},
            {"compare", "BOOLEAN", J("['n']") + " > 10"},
            {"compare_text", "BOOLEAN", J("['s']") + " = 'plain'"},
            {"coalesced", "VARCHAR", "coalesce(" + J("['missing']") + ", " + J("['s']") + ")"},
            {"upper", "VARCHAR", "upper(" + J("['s']") + ")"},
            {"length", "BIGINT", "length(" + J("['s']::STRING") + ")"},
            {"is_null", "BOOLEAN", J("['s']") + " IS NULL"},
            {"nested_fn", "VARCHAR", "get_json_string(" + J("['o']") + ", '$.k.x')"}},
           J("['n']::DOUBLE") + " > 10 OR " + J("['s']::STRING") + " = 'plain' OR " + J("['s']") + " IS NULL"),
      kAwkwardValues);
}

TEST_F(JsonReadsTest, SameErrorRows) {
  // NOT NULL targets: the reasons quote the value, so they show that the text each path gives is the same.
  ExpectSameResults(Spec({{"nn_s", "VARCHAR", J("['s']")},
                          {"nn_n", "BIGINT", J("['n']")},
                          {"nn_o", "VARCHAR(8)", J("['o']")},
                          {"nn_t", "TIMESTAMP", J("['t']::TIMESTAMP")}}),
                    kAwkwardValues);
}

}  // namespace
}  // namespace sluice::transform::testing
