// The two Routine Load walkthroughs of StarRocks' documentation (shared/reference/routine-load.md), row by row.
#include "transform_harness.h"

namespace sluice::transform::testing {
namespace {

class ReferenceExamplesTest : public TransformHarness {};

// CREATE TABLE example_tbl1 (order_id bigint NOT NULL, pay_dt date NOT NULL, customer_name varchar(26),
//   nationality varchar(26), price double) ... COLUMNS TERMINATED BY ",",
//   COLUMNS (order_id, pay_dt, customer_name, nationality, temp_gender, price)
TEST_F(ReferenceExamplesTest, CsvOrdersSkipsThePlaceholderColumn) {
  TransformSpec spec;
  spec.source_columns = {"order_id", "pay_dt", "customer_name", "nationality", "temp_gender", "price"};
  spec.table = {{"order_id", "BIGINT", false},
                {"pay_dt", "DATE", false},
                {"customer_name", "VARCHAR(26)", true},
                {"nationality", "VARCHAR(26)", true},
                {"price", "DOUBLE", true}};
  spec.table_name = "example_tbl1";
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ(compiled->loaded_columns,
            (std::vector<std::string>{"order_id", "pay_dt", "customer_name", "nationality", "price"}));
  EXPECT_FALSE(compiled->has_op);
  Rows rows = {{"2020050802", "2020-05-08", "Johann Georg Faust", "Deutschland", "male", "895"},
               {"2020050802", "2020-05-08", "Julien Sorel", "France", "male", "893"},
               {"2020050803", "2020-05-08", "Dorian Grey", "UK", "male", "1262"},
               {"2020050901", "2020-05-09", "Anna Karenina", "Russia", "female", "175"},
               {"2020051001", "2020-05-10", "Tess Durbeyfield", "US", "female", "986"},
               {"2020051101", "2020-05-11", "Edogawa Conan", "Japan", "male", "8924"}};
  auto out = RunCompiled(*compiled, spec.source_columns, rows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->rows.size(), 6u);
  for (size_t r = 0; r < rows.size(); r++) {
    EXPECT_TRUE(out->Good(r)) << out->Text(r, kErrorColumn);
    EXPECT_TRUE(out->Selected(r));
    EXPECT_EQ(out->Text(r, "order_id"), *rows[r][0]);
    EXPECT_EQ(out->Text(r, "pay_dt"), *rows[r][1]);
    EXPECT_EQ(out->Text(r, "customer_name"), *rows[r][2]);
    EXPECT_EQ(out->Text(r, "nationality"), *rows[r][3]);
    EXPECT_EQ(out->Text(r, "price"), *rows[r][5] + ".0");  // DuckDB renders the DOUBLE 895 as 895.0
    EXPECT_EQ(out->Text(r, kRowColumn), std::to_string(r));
  }
  // temp_gender is read but not loaded.
  for (const std::string& c : out->columns) EXPECT_NE(c, "temp_gender");
}

// CREATE TABLE example_tbl2 (commodity_id varchar(26), customer_name varchar(26), country varchar(26),
//   pay_time bigint, pay_dt date, price double SUM) ...
//   COLUMNS(commodity_id, customer_name, country, pay_time, price, pay_dt=from_unixtime(pay_time, '%Y%m%d'))
//   PROPERTIES ("format" = "json", "jsonpaths" = "[...]") -- the result shows pay_dt 2020-05-11.
TransformSpec JsonExampleSpec(const std::string& pay_dt_type) {
  TransformSpec spec;
  spec.source_columns = {"commodity_id", "customer_name", "country", "pay_time", "price"};
  spec.derived = {{"pay_dt", "from_unixtime(pay_time, '%Y%m%d')"}};
  spec.table = {{"commodity_id", "VARCHAR(26)", true}, {"customer_name", "VARCHAR(26)", true},
                {"country", "VARCHAR(26)", true},      {"pay_time", "BIGINT", true},
                {"pay_dt", pay_dt_type, true},         {"price", "DOUBLE", true}};
  spec.table_name = "example_tbl2";
  return spec;
}

const Rows kJsonRows = {{"1", "Mark Twain", "US", "1589191487", "875"},
                        {"2", "Oscar Wilde", "UK", "1589191487", "895"},
                        {"3", "Antoine de Saint-Exupéry", "France", "1589191487", "895"}};

TEST_F(ReferenceExamplesTest, JsonOrdersDerivePayDateFromUnixTime) {
  TransformSpec spec = JsonExampleSpec("DATE");
  auto compiled = Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  EXPECT_EQ(compiled->loaded_columns,
            (std::vector<std::string>{"commodity_id", "customer_name", "country", "pay_time", "pay_dt", "price"}));
  auto out = RunCompiled(*compiled, spec.source_columns, kJsonRows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->rows.size(), 3u);
  for (size_t r = 0; r < kJsonRows.size(); r++) {
    EXPECT_TRUE(out->Good(r)) << out->Text(r, kErrorColumn);
    EXPECT_EQ(out->Text(r, "commodity_id"), *kJsonRows[r][0]);
    EXPECT_EQ(out->Text(r, "customer_name"), *kJsonRows[r][1]);
    EXPECT_EQ(out->Text(r, "country"), *kJsonRows[r][2]);
    EXPECT_EQ(out->Text(r, "pay_time"), "1589191487");
    EXPECT_EQ(out->Text(r, "pay_dt"), "2020-05-11");
    EXPECT_EQ(out->Text(r, "price"), *kJsonRows[r][4] + ".0");
  }
}

// Some versions of the walkthrough declare pay_dt as an INT: '20200511' then loads as the number 20200511.
TEST_F(ReferenceExamplesTest, JsonOrdersIntoAnIntPayDate) {
  auto out = Run(JsonExampleSpec("INTEGER"), kJsonRows);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (size_t r = 0; r < kJsonRows.size(); r++) {
    EXPECT_TRUE(out->Good(r)) << out->Text(r, kErrorColumn);
    EXPECT_EQ(out->Text(r, "pay_dt"), "20200511");
  }
}

// The job's time zone decides the calendar day: 1589220000 is 2020-05-11 18:00 UTC, already the 12th in Shanghai.
TEST_F(ReferenceExamplesTest, JsonOrdersPayDateFollowsTheTimeZone) {
  TransformSpec spec = JsonExampleSpec("DATE");
  Rows rows = {{"1", "Mark Twain", "US", "1589220000", "875"}};
  auto utc = Run(spec, rows);
  ASSERT_TRUE(utc.ok()) << utc.status().ToString();
  EXPECT_EQ(utc->Text(0, "pay_dt"), "2020-05-11");
  spec.timezone = "Asia/Shanghai";
  auto shanghai = Run(spec, rows);
  ASSERT_TRUE(shanghai.ok()) << shanghai.status().ToString();
  EXPECT_EQ(shanghai->Text(0, "pay_dt"), "2020-05-12");
}

}  // namespace
}  // namespace sluice::transform::testing
