// What a user sees when COLUMNS or WHERE is wrong: InvalidArgument naming the column, the position and the fix.
#include <gtest/gtest.h>

#include "transform/compiler.h"

namespace sluice::transform {
namespace {

TransformSpec Spec() {
  TransformSpec spec;
  spec.source_columns = {"commodity_id", "pay_time", "temp"};
  spec.table = {{"commodity_id", "VARCHAR", true}, {"pay_time", "BIGINT", true}, {"pay_dt", "DATE", true}};
  spec.table_name = "example_tbl2";
  return spec;
}

std::string ErrorOf(const TransformSpec& spec) {
  auto c = Compile(spec);
  if (c.ok()) return "compiled:\n" + c->sql;
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << c.status().ToString();
  return c.status().message();
}

std::string DerivedError(const std::string& expr) {
  TransformSpec spec = Spec();
  spec.derived = {{"pay_dt", expr}};
  return ErrorOf(spec);
}

std::string WhereError(const std::string& where) {
  TransformSpec spec = Spec();
  spec.where = where;
  return ErrorOf(spec);
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(CompileErrorsTest, DerivedColumnMustBeATableColumn) {
  TransformSpec spec = Spec();
  spec.derived = {{"x", "pay_time + 1"}};
  EXPECT_EQ(ErrorOf(spec),
            "column 'x' in COLUMNS is not a column of table 'example_tbl2' (its columns: commodity_id, pay_time, "
            "pay_dt)");
}

TEST(CompileErrorsTest, SyntaxErrorsNameTheColumnAndPosition) {
  EXPECT_EQ(DerivedError("from_unixtime(pay_time, '%Y%m%d'"),
            "in COLUMNS expression for column 'pay_dt': syntax error at column 33: expected ')' or ',' in the "
            "arguments of from_unixtime(), found the end of the expression");
  EXPECT_EQ(WhereError("pay_time >"),
            "in WHERE: syntax error at column 11: expected an expression, found the end of the expression");
}

TEST(CompileErrorsTest, UnknownColumnsAreNamed) {
  EXPECT_EQ(DerivedError("from_unixtime(pay_tme) + nope + pay_tme"),
            "in COLUMNS expression for column 'pay_dt': unknown columns 'pay_tme', 'nope'; it can use commodity_id, "
            "pay_time, temp");
  // A computed column cannot feed another expression (StarRocks evaluates them over the source columns).
  TransformSpec spec = Spec();
  spec.table.push_back({"pay_year", "INTEGER", true});
  spec.derived = {{"pay_dt", "from_unixtime(pay_time)"}, {"pay_year", "year(pay_dt)"}};
  EXPECT_EQ(ErrorOf(spec),
            "in COLUMNS expression for column 'pay_year': unknown column 'pay_dt'; it can use commodity_id, "
            "pay_time, temp (columns computed in COLUMNS, here pay_dt, pay_year, cannot be used by other "
            "expressions)");
  EXPECT_EQ(WhereError("pay_dt > '2020-01-01'"),
            "in WHERE: unknown column 'pay_dt'; it can use commodity_id, pay_time, temp");
}

TEST(CompileErrorsTest, UnknownFunctionListsTheSupportedOnes) {
  std::string e = DerivedError("frobnicate(pay_time)");
  EXPECT_TRUE(Contains(e, "in COLUMNS expression for column 'pay_dt': unknown function 'frobnicate'")) << e;
  EXPECT_TRUE(Contains(e, "(at column 1)")) << e;
  EXPECT_TRUE(Contains(e, "supported: abs, adddate,")) << e;
  EXPECT_TRUE(Contains(e, "from_unixtime")) << e;
  EXPECT_TRUE(Contains(e, "cast(x AS type)")) << e;
}

TEST(CompileErrorsTest, FunctionArgumentsAreChecked) {
  EXPECT_EQ(DerivedError("substr(temp)"),
            "in COLUMNS expression for column 'pay_dt': substr() takes 2 to 3 arguments, got 1 (at column 1)");
  EXPECT_EQ(DerivedError("now(1)"),
            "in COLUMNS expression for column 'pay_dt': now() takes 0 arguments, got 1 (at column 1)");
  EXPECT_EQ(DerivedError("concat()"),
            "in COLUMNS expression for column 'pay_dt': concat() takes at least 1 argument, got 0 (at column 1)");
  EXPECT_EQ(DerivedError("date_format(pay_time, temp)"),
            "in COLUMNS expression for column 'pay_dt': date_format(): the format must be a string literal (at "
            "column 1)");
  EXPECT_EQ(DerivedError("str_to_date(temp, '%D %M %Y')"),
            "in COLUMNS expression for column 'pay_dt': str_to_date(): the date format specifier %D is not "
            "supported; see the transform function list for the supported ones (at column 1)");
  EXPECT_EQ(DerivedError("regexp_extract(temp, 'a(b)', pay_time)"),
            "in COLUMNS expression for column 'pay_dt': regexp_extract(): the group index must be a whole-number "
            "literal (at column 1)");
  EXPECT_EQ(DerivedError("element_at(pay_time, 1)"),
            "in COLUMNS expression for column 'pay_dt': element_at(): needs an ARRAY, a MAP or JSON text, not a "
            "BIGINT (at column 1)");
}

TEST(CompileErrorsTest, TypesAreChecked) {
  EXPECT_EQ(DerivedError("cast(temp AS money)"),
            "in COLUMNS expression for column 'pay_dt': unknown type 'money' in CAST; use one of tinyint, smallint, "
            "int, bigint, largeint, signed, unsigned, float, double, decimal(p,s), boolean, char, varchar, string, "
            "date, datetime, time, json, varbinary, array<type> (at column 1)");
  EXPECT_EQ(DerivedError("cast(temp AS decimal(50, 2))"),
            "in COLUMNS expression for column 'pay_dt': DECIMAL(p,s) needs 1 <= p <= 38 and 0 <= s <= p, got "
            "DECIMAL(50,2) (at column 1)");
  EXPECT_EQ(DerivedError("date(temp) + 1"),
            "in COLUMNS expression for column 'pay_dt': cannot use DATE values in arithmetic (+); use date_add, "
            "date_sub or datediff for date arithmetic (at column 1)");
  EXPECT_EQ(DerivedError("INTERVAL 1 DAY"),
            "in COLUMNS expression for column 'pay_dt': an INTERVAL is not a value; use date_add(date, INTERVAL n "
            "unit)");
  EXPECT_EQ(DerivedError("upper(INTERVAL 1 DAY)"),
            "in COLUMNS expression for column 'pay_dt': INTERVAL can only be added to or subtracted from a date, or "
            "passed to date_add/date_sub (at column 7)");
  EXPECT_EQ(DerivedError("temp LIKE 'a' ESCAPE 'ab'"),
            "in COLUMNS expression for column 'pay_dt': ESCAPE needs a one-character string literal (at column 22)");
  EXPECT_EQ(DerivedError("'bad \xff byte'"),
            "in COLUMNS expression for column 'pay_dt': a string literal must be valid UTF-8 without NUL bytes "
            "(at column 1)");
}

TEST(CompileErrorsTest, ColumnsListIsChecked) {
  TransformSpec spec = Spec();
  spec.source_columns = {"pay_time", "PAY_TIME"};
  EXPECT_EQ(ErrorOf(spec), "column 'PAY_TIME' appears more than once in COLUMNS");
  spec = Spec();
  spec.derived = {{"pay_time", "1"}};
  EXPECT_EQ(ErrorOf(spec), "column 'pay_time' appears more than once in COLUMNS");
  spec = Spec();
  spec.source_columns = {"__sluice_row"};
  EXPECT_EQ(ErrorOf(spec),
            "column name '__sluice_row' in COLUMNS is reserved (names starting with __sluice are Sluice's own)");
  spec = Spec();
  spec.source_columns = {""};
  EXPECT_EQ(ErrorOf(spec), "a column name in COLUMNS is empty");
  spec.source_columns = {"bad\xff"};
  EXPECT_EQ(ErrorOf(spec), "a column name in COLUMNS is not valid UTF-8");
  spec = Spec();
  spec.source_columns = {"a", "b"};
  EXPECT_EQ(ErrorOf(spec),
            "COLUMNS loads no column of table 'example_tbl2' (its columns: commodity_id, pay_time, pay_dt)");
  spec.table.clear();
  EXPECT_EQ(ErrorOf(spec), "table 'example_tbl2' has no columns");
}

TEST(CompileErrorsTest, TimeZoneIsChecked) {
  TransformSpec spec = Spec();
  spec.timezone = "+25:00";
  EXPECT_EQ(ErrorOf(spec),
            "timezone '+25:00' is not a valid offset; write it like '+08:00' (between -14:00 and +14:00)");
  spec.timezone = "Asia/Shanghai'; DROP TABLE x; --";
  EXPECT_EQ(ErrorOf(spec),
            "timezone 'Asia/Shanghai'; DROP TABLE x; --' is not a time zone name; use an IANA name like "
            "'Asia/Shanghai' or an offset like '+08:00'");
}

TEST(CompileErrorsTest, BindReplacesOnlyTheBatchPlaceholder) {
  TransformSpec spec = Spec();
  spec.where = "temp = '{BATCH}'";
  auto c = Compile(spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::string bound = c->Bind(42);
  EXPECT_TRUE(Contains(bound, "sluice_batch(42)"));
  EXPECT_TRUE(Contains(bound, "'{BATCH}'"));
  EXPECT_FALSE(Contains(bound, "sluice_batch({BATCH})"));
}

}  // namespace
}  // namespace sluice::transform
