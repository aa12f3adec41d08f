// Load semantics of the compiled SELECT: conversions, strict_mode, NOT NULL, WHERE, __op, and how a load task
// uses the result (materialize, insert the good rows, read the error rows).
#include "transform_harness.h"

namespace sluice::transform::testing {
namespace {

class CompilerTest : public TransformHarness {
 protected:
  // orders(order_id BIGINT NOT NULL, pay_dt DATE NOT NULL, customer_name VARCHAR(26), price DOUBLE)
  // from COLUMNS (order_id, pay_dt, customer_name, temp_gender, price).
  static TransformSpec Orders(bool strict) {
    TransformSpec spec;
    spec.source_columns = {"order_id", "pay_dt", "customer_name", "temp_gender", "price"};
    spec.table = {{"order_id", "BIGINT", false},
                  {"pay_dt", "DATE", false},
                  {"customer_name", "VARCHAR(26)", true},
                  {"price", "DOUBLE", true}};
    spec.table_name = "orders";
    spec.strict_mode = strict;
    return spec;
  }
};

TEST_F(CompilerTest, AgreesWithTheBatchTableFunction) {
  EXPECT_STREQ(kRowColumn, storage::kBatchRowColumn);
  auto compiled = Compile(Orders(false));
  ASSERT_TRUE(compiled.ok());
  EXPECT_NE(compiled->sql.find(std::string(storage::kBatchFunctionName) + "(" + kBatchPlaceholder + ")"),
            std::string::npos);
}

TEST_F(CompilerTest, NonStrictModeTurnsBadValuesIntoNull) {
  Rows rows = {{"1", "2020-05-08", "Ann", "f", "abc"},                            // bad price -> NULL
               {"x", "2020-05-08", "Bob", "m", "1"},                              // bad NOT NULL order_id
               {"3", std::nullopt, "Cid", "m", "1"},                              // NULL into NOT NULL pay_dt
               {"4", "2020-05-08", "a name that is much too long", "m", "2.5"},  // too long: an error row
               {"5", "20200508", std::nullopt, "m", std::nullopt},                // compact date; NULLs stay NULL
               {"6.0", "2020-05-08 10:11:12", "Eve", "f", " 7 "}};                // 6.0 is 6; datetime text -> date
  auto out = Run(Orders(false), rows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->Good(0));
  EXPECT_EQ(out->Get(0, "price"), std::nullopt);
  EXPECT_EQ(out->Text(1, kErrorColumn),
            "column 'order_id' is NOT NULL but the value 'x' could not be converted to BIGINT");
  EXPECT_EQ(out->Text(2, kErrorColumn), "column 'pay_dt' is NOT NULL but the value is NULL");
  // Longer than VARCHAR(26): an error row whatever strict_mode says, as StarRocks' table sink does.
  EXPECT_EQ(out->Text(3, kErrorColumn),
            "column 'customer_name': the value 'a name that is much too long' is 28 bytes long, more than the 26 "
            "bytes of VARCHAR(26)");
  EXPECT_TRUE(out->Good(4));
  EXPECT_EQ(out->Text(4, "pay_dt"), "2020-05-08");
  EXPECT_EQ(out->Get(4, "customer_name"), std::nullopt);
  EXPECT_TRUE(out->Good(5)) << out->Text(5, kErrorColumn);
  EXPECT_EQ(out->Text(5, "order_id"), "6");
  EXPECT_EQ(out->Text(5, "pay_dt"), "2020-05-08");
  EXPECT_EQ(out->Text(5, "price"), "7.0");
}

TEST_F(CompilerTest, StrictModeMakesFailedConversionsErrorRows) {
  Rows rows = {{"1", "2020-05-08", "Ann", "f", "abc"},
               {"2", "2020-05-08", "Bob", "m", std::nullopt},  // NULL is no failed conversion
               {"3", "2020-02-30", "Cid", "m", "1"},           // no such day
               {"4", "2020-05-08", "a name that is much too long", "m", "2.5"},
               {"5.5", "2020-05-08", "Eve", "f", "1"},         // DuckDB alone would round to 6
               {"9223372036854775808", "2020-05-08", "Fay", "f", "1"},
               {"7", "2020-05-08", "Gus", "m", "1e3"}};
  auto out = Run(Orders(true), rows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, kErrorColumn),
            "column 'price': the value 'abc' could not be converted to DOUBLE (strict_mode)");
  EXPECT_TRUE(out->Good(1));
  EXPECT_EQ(out->Get(1, "price"), std::nullopt);
  EXPECT_EQ(out->Text(2, kErrorColumn),
            "column 'pay_dt': the value '2020-02-30' could not be converted to DATE (strict_mode)");
  EXPECT_EQ(out->Text(3, kErrorColumn),
            "column 'customer_name': the value 'a name that is much too long' is 28 bytes long, more than the 26 "
            "bytes of VARCHAR(26)");
  EXPECT_EQ(out->Text(4, kErrorColumn),
            "column 'order_id': the value '5.5' could not be converted to BIGINT (strict_mode)");
  EXPECT_EQ(out->Text(5, kErrorColumn),
            "column 'order_id': the value '9223372036854775808' could not be converted to BIGINT (strict_mode)");
  EXPECT_TRUE(out->Good(6));
  EXPECT_EQ(out->Text(6, "price"), "1000.0");
}

TEST_F(CompilerTest, ErrorReasonNamesTheFirstFailingColumnAndTruncatesTheValue) {
  std::string huge(500, 'z');
  auto out = Run(Orders(true), {{"bad", "bad", "Ann", "f", huge}, {"1", "2020-05-08", "Ann", "f", huge}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, kErrorColumn),
            "column 'order_id': the value 'bad' could not be converted to BIGINT (strict_mode)");
  EXPECT_EQ(out->Text(1, kErrorColumn),
            "column 'price': the value '" + std::string(100, 'z') + "' could not be converted to DOUBLE (strict_mode)");
}

TEST_F(CompilerTest, DerivedColumnsIntoNotNullColumns) {
  TransformSpec spec;
  spec.source_columns = {"id", "ts"};
  spec.derived = {{"day", "from_unixtime(ts, '%Y%m%d')"}, {"label", "concat('#', id)"}};
  spec.table = {
      {"id", "INTEGER", false}, {"ts", "BIGINT", true}, {"day", "DATE", false}, {"label", "VARCHAR(3)", true}};
  spec.strict_mode = true;  // expression results are not subject to strict_mode
  auto out = Run(spec, {{"1", "1589191487"}, {"2", "not a time"}, {"3", "-99999999999999"}, {"1234", "0"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->Good(0));
  EXPECT_EQ(out->Text(0, "day"), "2020-05-11");
  EXPECT_EQ(out->Text(0, "label"), "#1");
  // 'not a time' is a strict_mode error of ts before the expression is looked at.
  EXPECT_EQ(out->Text(1, kErrorColumn),
            "column 'ts': the value 'not a time' could not be converted to BIGINT (strict_mode)");
  EXPECT_EQ(out->Text(2, kErrorColumn),
            "column 'day' is NOT NULL but its expression from_unixtime(ts, '%Y%m%d') gave NULL");
  // '#1234' is longer than 3 bytes: an error row, also in a nullable column
  EXPECT_EQ(out->Text(3, kErrorColumn),
            "column 'label': the value '#1234' of its expression is 5 bytes long, more than the 3 bytes of VARCHAR(3)");

  spec.derived = {{"day", "concat('day ', ts)"}, {"label", "'x'"}};
  out = Run(spec, {{"1", "5"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, kErrorColumn),
            "column 'day' is NOT NULL but the value 'day 5' of its expression could not be converted to DATE");
}

TEST_F(CompilerTest, WhereSelectsRowsOnConvertedValues) {
  TransformSpec spec = Orders(false);
  spec.where = "price > 100 AND temp_gender = 'male' AND pay_dt >= '2020-05-09'";
  Rows rows = {{"1", "2020-05-09", "Ann", "male", "150"},   // selected
               {"2", "2020-05-09", "Bob", "female", "150"}, // placeholder text does not match
               {"3", "2020-05-08", "Cid", "male", "150"},   // date compared as a date
               {"4", "2020-05-09", "Dan", "male", "abc"},   // NULL price: not selected, not an error
               {"5", "2020-05-09", "Eve", "male", "99.5"},
               {"x", "2020-05-09", "Fay", "male", "150"}};  // an error row
  auto out = Run(spec, rows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->Selected(0));
  for (size_t r : {1, 2, 3, 4}) {
    EXPECT_FALSE(out->Selected(r)) << r;
    EXPECT_TRUE(out->Good(r)) << r;
  }
  EXPECT_FALSE(out->Good(5));
}

TEST_F(CompilerTest, WhereSeesDerivedColumnsAndNeverFailsTheBatch) {
  TransformSpec spec;
  spec.source_columns = {"id", "raw"};
  spec.derived = {{"v", "100 DIV id"}};
  spec.table = {{"id", "INTEGER", true}, {"v", "INTEGER", true}};
  spec.where = "v > 10 AND cast(raw AS int) + 2147483647 > 0";
  auto out = Run(spec, {{"5", "1"}, {"20", "1"}, {"0", "1"}, {"1", "oops"}, {"1", "2147483647"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->Selected(0));   // v = 20
  EXPECT_FALSE(out->Selected(1));  // v = 5
  EXPECT_FALSE(out->Selected(2));  // division by zero: v is NULL
  EXPECT_FALSE(out->Selected(3));  // cast fails: NULL
  EXPECT_TRUE(out->Selected(4));   // BIGINT arithmetic, no overflow
  for (size_t r = 0; r < 5; r++) EXPECT_TRUE(out->Good(r));
}

TEST_F(CompilerTest, WhereThatIsNotBooleanIsReadAsACondition) {
  TransformSpec spec;
  spec.source_columns = {"flag"};
  spec.table = {{"flag", "INTEGER", true}};
  spec.where = "flag";
  auto out = Run(spec, {{"1"}, {"0"}, {std::nullopt}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->Selected(0));
  EXPECT_FALSE(out->Selected(1));
  EXPECT_FALSE(out->Selected(2));
}

TEST_F(CompilerTest, OpColumnForPrimaryKeyTables) {
  TransformSpec spec;
  spec.source_columns = {"id", "__op"};
  spec.table = {{"id", "INTEGER", false}};
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_TRUE(compiled->has_op);
  EXPECT_EQ(compiled->loaded_columns, std::vector<std::string>{"id"});
  auto out = RunCompiled(*compiled, spec.source_columns,
                         {{"1", "0"}, {"2", "DELETE"}, {"3", "upsert"}, {"4", "1"}, {"5", std::nullopt}, {"6", "x"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, kOpColumn), "0");
  EXPECT_EQ(out->Text(1, kOpColumn), "1");
  EXPECT_EQ(out->Text(2, kOpColumn), "0");
  EXPECT_EQ(out->Text(3, kOpColumn), "1");
  EXPECT_EQ(out->Text(4, kOpColumn), "0");
  EXPECT_EQ(out->Text(5, kErrorColumn), "__op must be 0 or 'upsert', 1 or 'delete', not 'x'");

  spec.source_columns = {"id", "flag"};
  spec.derived = {{"__op", "if(flag = 'd', 'delete', 'upsert')"}};
  out = Run(spec, {{"1", "d"}, {"2", "u"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, kOpColumn), "1");
  EXPECT_EQ(out->Text(1, kOpColumn), "0");
}

TEST_F(CompilerTest, NestedJsonAndZonedColumns) {
  TransformSpec spec;
  spec.source_columns = {"tags", "attrs", "doc", "seen_at", "point"};
  spec.table = {{"tags", "INTEGER[]", true},
                {"attrs", "MAP(VARCHAR, VARCHAR)", true},
                {"doc", "JSON", true},
                {"seen_at", "TIMESTAMPTZ", true},
                {"point", "STRUCT(x INTEGER, y INTEGER)", true}};
  spec.timezone = "Asia/Shanghai";
  spec.strict_mode = true;
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  const Cell null;
  TextBatch batch = MakeBatch(spec.source_columns, {{"[1, 2, 3]", R"({"a": "x, y"})", R"({"k": [1]})",
                                                     "2020-05-11 18:04:47", R"({"x": 1, "y": 2})"},
                                                    {"[1, oops]", null, null, null, null},
                                                    {null, null, "{not json", null, null}});
  storage::BatchHandle handle(batch);
  auto res = con_->Query(
      "SELECT len(tags), attrs['a'], doc->>'$.k[0]', CAST(epoch(seen_at) AS BIGINT), point.y, __sluice_error FROM (" +
      compiled->Bind(handle.id()) + ") ORDER BY __sluice_row");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  const auto& rows = res->result_set->rows;
  EXPECT_EQ(rows[0][0], Cell("3"));
  EXPECT_EQ(rows[0][1], Cell("x, y"));
  EXPECT_EQ(rows[0][2], Cell("1"));
  EXPECT_EQ(rows[0][3], Cell("1589191487"));
  EXPECT_EQ(rows[0][4], Cell("2"));
  EXPECT_EQ(rows[0][5], std::nullopt);
  EXPECT_EQ(rows[1][5], Cell("column 'tags': the value '[1, oops]' could not be converted to INTEGER[] (strict_mode)"));
  EXPECT_EQ(rows[2][5], Cell("column 'doc': the value '{not json' could not be converted to JSON (strict_mode)"));
}

TEST_F(CompilerTest, OtherColumnTypes) {
  TransformSpec spec;
  spec.source_columns = {"bin", "id", "at", "f", "tiny", "huge", "ms", "flag", "label"};
  spec.table = {{"bin", "BLOB", true},       {"id", "UUID", true},      {"at", "TIME", true},
                {"f", "FLOAT", true},        {"tiny", "TINYINT", true}, {"huge", "HUGEINT", true},
                {"ms", "TIMESTAMP_MS", true}, {"flag", "BOOLEAN", true}, {"label", "CHAR(2)", true}};
  spec.derived = {};
  spec.strict_mode = true;
  auto out = Run(spec, {{"a\\x01", "8d5b4d1e-4c9c-4a7e-9a53-0c4b7c0f3a11", "10:11:12", "1.5", "-128",
                         "170141183460469231731687303715884105727", "2020-05-08 10:11:12.345", "t", "ab"},
                        {"", "not-a-uuid", "25:00:00", "x", "128", "1.5", "bad", "maybe", "abc"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->Good(0)) << out->Text(0, kErrorColumn);
  EXPECT_EQ(out->Text(0, "bin"), "a\\x5Cx01");  // the bytes as they came (DuckDB shows a backslash as x5C)
  EXPECT_EQ(out->Text(0, "id"), "8d5b4d1e-4c9c-4a7e-9a53-0c4b7c0f3a11");
  EXPECT_EQ(out->Text(0, "at"), "10:11:12");
  EXPECT_EQ(out->Text(0, "f"), "1.5");
  EXPECT_EQ(out->Text(0, "tiny"), "-128");
  EXPECT_EQ(out->Text(0, "huge"), "170141183460469231731687303715884105727");
  EXPECT_EQ(out->Text(0, "ms"), "2020-05-08 10:11:12.345");
  EXPECT_EQ(out->Text(0, "flag"), "true");
  EXPECT_EQ(out->Text(0, "label"), "ab");
  EXPECT_EQ(out->Text(1, kErrorColumn),
            "column 'id': the value 'not-a-uuid' could not be converted to UUID (strict_mode)");
  spec.strict_mode = false;
  out = Run(spec, {{"", "not-a-uuid", "25:00:00", "x", "128", "1.5", "bad", "maybe", "ab"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->Good(0));
  for (const char* c : {"id", "at", "f", "tiny", "huge", "ms", "flag"}) EXPECT_EQ(out->Get(0, c), std::nullopt) << c;
  EXPECT_EQ(out->Text(0, "label"), "ab");
  EXPECT_EQ(out->Text(0, "bin"), "");
}

// What a load task does with the SELECT: materialize it in the commit transaction, insert the good selected
// rows (unmapped columns get their defaults), and read the error rows with their row index.
TEST_F(CompilerTest, LoadTaskPipeline) {
  ASSERT_TRUE(con_->Execute("CREATE TABLE orders (order_id BIGINT NOT NULL, pay_dt DATE NOT NULL, "
                            "customer_name VARCHAR, price DOUBLE, source VARCHAR DEFAULT 'kafka')")
                  .ok());
  TransformSpec spec = Orders(false);
  spec.table.push_back({"source", "VARCHAR", true});
  spec.where = "price >= 10";
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ(compiled->loaded_columns, (std::vector<std::string>{"order_id", "pay_dt", "customer_name", "price"}));

  Rows rows;
  for (int i = 0; i < 5000; i++) {  // more than one DuckDB vector
    Cell id = i % 1000 == 999 ? Cell("bad") : Cell(std::to_string(i));
    rows.push_back({id, "2020-05-08", "c" + std::to_string(i % 7), "m", std::to_string(i % 20)});
  }
  TextBatch batch = MakeBatch(spec.source_columns, rows);
  storage::BatchHandle handle(batch);
  std::string columns;
  for (const auto& c : compiled->loaded_columns) columns += (columns.empty() ? "" : ", ") + c;
  Status st = storage::InTransaction(*con_, [&]() -> Status {
    RETURN_IF_ERROR(con_->Execute("CREATE TEMP TABLE t AS " + compiled->Bind(handle.id())));
    RETURN_IF_ERROR(con_->Execute("INSERT INTO orders (" + columns + ") SELECT " + columns +
                                  " FROM t WHERE __sluice_error IS NULL AND __sluice_selected"));
    return con_->Execute("DROP TABLE t");
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto res =
      con_->Query("SELECT count(*), CAST(min(price) AS INTEGER), count(DISTINCT source), min(source) FROM orders");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  // 5 ids are bad; of the other 4995, those with i % 20 >= 10 are selected: half of them minus the bad ones
  // (999, 1999, ... all have i % 20 = 19).
  EXPECT_EQ(res->result_set->rows[0][0], Cell("2495"));
  EXPECT_EQ(res->result_set->rows[0][1], Cell("10"));
  EXPECT_EQ(res->result_set->rows[0][3], Cell("kafka"));

  auto errors = con_->Query("SELECT __sluice_row, __sluice_error FROM (" + compiled->Bind(handle.id()) +
                            ") WHERE __sluice_error IS NOT NULL ORDER BY 1");
  ASSERT_TRUE(errors.ok()) << errors.status().ToString();
  ASSERT_EQ(errors->result_set->rows.size(), 5u);
  EXPECT_EQ(errors->result_set->rows[0][0], Cell("999"));
  EXPECT_EQ(batch.origin(999).offset, 999);
}

TEST_F(CompilerTest, NamesAreMatchedIgnoringCaseAndQuotedSafely) {
  TransformSpec spec;
  spec.source_columns = {"Order_ID", "weird \"name\"", "{BATCH}"};
  spec.derived = {{"select", "concat(`weird \"name\"`, '{BATCH}', `{BATCH}`)"}};
  spec.table = {{"order_id", "BIGINT", true}, {"select", "VARCHAR", true}};
  spec.where = "`{batch}` = '{BATCH}'";
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ(compiled->loaded_columns, (std::vector<std::string>{"order_id", "select"}));
  auto out = RunCompiled(*compiled, spec.source_columns, {{"7", "w", "{BATCH}"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, "order_id"), "7");
  EXPECT_EQ(out->Text(0, "select"), "w{BATCH}{BATCH}");
  EXPECT_TRUE(out->Selected(0));
}

TEST_F(CompilerTest, WithoutColumnsTheTableColumnsAreTheSource) {
  TransformSpec spec;
  spec.table = {{"a", "INTEGER", true}, {"b", "VARCHAR", true}, {"c", "DATE", true}};
  for (const auto& c : spec.table) spec.source_columns.push_back(c.name);
  auto out = Run(spec, {{"1", "x", "2020-01-02"}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->Text(0, "a"), "1");
  EXPECT_EQ(out->Text(0, "b"), "x");
  EXPECT_EQ(out->Text(0, "c"), "2020-01-02");
}

TEST_F(CompilerTest, ExponentialExpressionsAreRefused) {
  // Each date(text) reads its operand twice (a fast cast, then slower layouts): nesting could double the SQL.
  std::string expr = "s";
  for (int i = 0; i < 60; i++) expr = "date(concat(" + expr + ", ''))";
  TransformSpec spec;
  spec.source_columns = {"s"};
  spec.derived = {{"d", expr}};
  spec.table = {{"d", "DATE", true}};
  auto compiled = Compile(spec);
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.status().message().find("too complex"), std::string::npos) << compiled.status().message();
}

// StarRocks counts a VARCHAR(n)/CHAR(n) limit in bytes and refuses a longer value as an error row whether or not
// strict_mode is set; a value at the limit loads, multi-byte characters count by their UTF-8 bytes.
TEST_F(CompilerTest, VarcharLimitsCountBytesWhateverStrictMode) {
  for (bool strict : {false, true}) {
    TransformSpec spec;
    spec.source_columns = {"v", "c"};
    spec.table = {{"v", "VARCHAR(4)", true}, {"c", "CHAR(2)", true}};
    spec.strict_mode = strict;
    auto out = Run(spec, {{"abcd", "ab"},            // both at the limit
                          {"\xC3\xA9\xC3\xA9", "x"},  // 'éé' is 2 characters, 4 bytes: fits VARCHAR(4)
                          {"\xC3\xA9\xC3\xA9\xC3\xA9", "x"},  // 'ééé' is 6 bytes
                          {"abc", "abc"},
                          {std::nullopt, std::nullopt}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(out->Good(0)) << strict;
    EXPECT_EQ(out->Text(0, "v"), "abcd");
    EXPECT_EQ(out->Text(0, "c"), "ab");
    EXPECT_TRUE(out->Good(1)) << strict;
    EXPECT_EQ(out->Text(1, "v"), "\xC3\xA9\xC3\xA9");
    EXPECT_EQ(out->Text(2, kErrorColumn),
              "column 'v': the value '\xC3\xA9\xC3\xA9\xC3\xA9' is 6 bytes long, more than the 4 bytes of VARCHAR(4)");
    EXPECT_EQ(out->Text(3, kErrorColumn),
              "column 'c': the value 'abc' is 3 bytes long, more than the 2 bytes of CHAR(2)");
    EXPECT_TRUE(out->Good(4)) << strict;
  }
}

}  // namespace
}  // namespace sluice::transform::testing
