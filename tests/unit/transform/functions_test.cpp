// Every supported function and operator, compiled and run by DuckDB over a real batch. Each case is a COLUMNS
// expression `out = <expr>` loaded into a column of the given type; the result is DuckDB's text for it.
#include <set>

#include "transform/expression.h"
#include "transform/function_map.h"
#include "transform_harness.h"

namespace sluice::transform::testing {
namespace {

struct Case {
  const char* expr;
  const char* expected;  // nullptr: SQL NULL
  const char* type = "VARCHAR";
};

// Source columns: text placeholders (s ... words) and columns loaded into typed table columns (dt ... ts).
const std::vector<std::string> kSources = {"s",  "n",   "f",     "d",    "u",     "j",  "z", "words",
                                           "dt", "num", "price", "tags", "attrs", "ts", "big"};
const std::vector<Cell> kRow = {"Hello World",
                                "42",
                                "3.75",
                                "2020-05-08 13:04:05",
                                "1589191487",
                                R"({"a":{"b":"x","n":7,"d":2.5},"arr":[10,20,30],"k/1":"slash"})",
                                std::nullopt,
                                "  padded  ",
                                "2020-05-08",
                                "7",
                                "19.5",
                                R"(["red","green"])",
                                R"({"color":"blue","size":"L"})",
                                "2020-05-11 10:04:47",
                                "2147483647"};

class FunctionsTest : public TransformHarness {
 protected:
  TransformSpec Spec(const std::string& expr, const std::string& type, const std::string& tz = "") {
    TransformSpec spec;
    spec.source_columns = kSources;
    spec.derived = {{"out", expr}};
    spec.table = {{"out", type, true},       {"dt", "DATE", true},       {"num", "BIGINT", true},
                  {"price", "DOUBLE", true}, {"tags", "VARCHAR[]", true}, {"attrs", "MAP(VARCHAR, VARCHAR)", true},
                  {"ts", "TIMESTAMP", true}, {"big", "INTEGER", true}};
    spec.timezone = tz;
    return spec;
  }

  // The loaded value of `out`; fails the test when the row is not a good one.
  Cell Eval(const std::string& expr, const std::string& type = "VARCHAR", const std::string& tz = "") {
    auto out = Run(Spec(expr, type, tz), {kRow});
    if (!out.ok()) {
      ADD_FAILURE() << expr << ": " << out.status().ToString();
      return "<failed>";
    }
    EXPECT_TRUE(out->Good(0)) << expr << ": " << out->Text(0, kErrorColumn);
    return out->Get(0, "out");
  }

  static std::string Show(const Cell& c) { return c ? "'" + *c + "'" : "NULL"; }

  void Check(const std::vector<Case>& cases, const std::string& tz = "") {
    for (const Case& c : cases) {
      Cell expected = c.expected ? Cell(c.expected) : std::nullopt;
      EXPECT_EQ(Show(Eval(c.expr, c.type, tz)), Show(expected)) << c.expr;
    }
  }
};

const std::vector<Case>& FunctionCases() {
  static const std::vector<Case> kCases = {
      // conditional
      {"if(num > 5, 'big', 'small')", "big"},
      {"if(z, 1, 0)", "0"},
      {"if(num > 5, num, 'x')", "7"},
      {"ifnull(z, 'default')", "default"},
      {"ifnull(s, 'default')", "Hello World"},
      {"nvl(z, num)", "7", "BIGINT"},
      {"nullif(n, '42')", nullptr},
      {"nullif(n, 41)", "42"},
      {"coalesce(z, z, s)", "Hello World"},
      {"coalesce(z, num, 0)", "7", "BIGINT"},
      {"coalesce(z, dt, d)", "2020-05-08 00:00:00", "TIMESTAMP"},
      {"greatest(1, num, 3)", "7", "INTEGER"},
      {"least(n, 100, price)", "100"},  // text among the arguments: compared as text, as in MySQL
      {"least(num, 100, price)", "7"},
      // math
      {"abs(-3)", "3", "INTEGER"},
      {"abs(concat('-', f))", "3.75", "DOUBLE"},
      {"round(f)", "4", "INTEGER"},
      {"round(f, 1)", "3.8", "DOUBLE"},
      {"round(2.5)", "3", "INTEGER"},
      {"floor(f)", "3", "BIGINT"},
      {"ceil(f)", "4", "BIGINT"},
      {"ceiling(-1.5)", "-1", "BIGINT"},
      {"mod(10, 3)", "1", "INTEGER"},
      {"mod(n, 5)", "2", "INTEGER"},
      {"mod(1, 0)", nullptr, "INTEGER"},
      // strings
      {"concat(s, '-', num)", "Hello World-7"},
      {"concat(s, z)", nullptr},
      {"concat(price, '$')", "19.5$"},
      {"concat(dt, ' ', true)", "2020-05-08 1"},
      {"concat_ws('|', s, z, num)", "Hello World|7"},
      {"substr(s, 7)", "World"},
      {"substr(s, 1, 5)", "Hello"},
      {"substring(s, -5, 3)", "Wor"},
      {"substr(s, 0, 3)", ""},
      {"substr(s, 2, -1)", ""},
      {"substr(s, n)", ""},
      {"left(s, 5)", "Hello"},
      {"left(s, -1)", ""},
      {"right(s, 5)", "World"},
      {"upper(s)", "HELLO WORLD"},
      {"ucase(s)", "HELLO WORLD"},
      {"lower(s)", "hello world"},
      {"lcase(num)", "7"},
      {"trim(words)", "padded"},
      {"ltrim(words)", "padded  "},
      {"rtrim(words)", "  padded"},
      {"length('héllo')", "6", "INTEGER"},
      {"char_length('héllo')", "5", "INTEGER"},
      {"character_length(s)", "11", "INTEGER"},
      {"replace(s, 'World', 'There')", "Hello There"},
      {"md5(s)", "b10a8db164e0754105b7a99be72e3fe5"},
      {"lpad(num, 3, '0')", "007"},
      {"rpad('ab', 4, '*')", "ab**"},
      {"split_part('a,b,c', ',', 2)", "b"},
      {"regexp_extract('ab12cd34', '([0-9]+)', 1)", "12"},
      {"regexp_replace('a1b2', '[0-9]', '#')", "a#b#"},
      // date and time (UTC)
      {"from_unixtime(u)", "2020-05-11 10:04:47"},
      {"from_unixtime(u, '%Y%m%d')", "20200511"},
      {"from_unixtime(1589191487, '%d/%m/%y %h:%i:%s %p')", "11/05/20 10:04:47 AM"},
      {"from_unixtime(u, '%W %M %e %c %k %l %j %T %b %a %f %%')",
       "Monday May 11 5 10 10 132 10:04:47 May Mon 000000 %"},
      {"from_unixtime(num)", "1970-01-01 00:00:07"},
      {"from_unixtime(u, 'yyyy-MM-dd')", "2020-05-11"},
      {"from_unixtime('not a number')", nullptr},
      {"from_unixtime('1589191487.9')", "2020-05-11 10:04:47"},
      {"from_unixtime(1e20)", nullptr},
      {"from_unixtime(-1)", "1969-12-31 23:59:59"},
      {"unix_timestamp(ts)", "1589191487", "BIGINT"},
      {"unix_timestamp(d)", "1588943045", "BIGINT"},
      {"unix_timestamp('08/05/2020 13:04:05', '%d/%m/%Y %H:%i:%s')", "1588943045", "BIGINT"},
      {"unix_timestamp() > 1600000000", "true", "BOOLEAN"},
      {"str_to_date(d, '%Y-%m-%d %H:%i:%s')", "2020-05-08 13:04:05", "TIMESTAMP"},
      {"str_to_date('08/05/2020', '%d/%m/%Y')", "2020-05-08"},
      {"str_to_date('May 8 2020 1:04 PM', '%M %e %Y %l:%i %p')", "2020-05-08 13:04:00"},
      {"str_to_date('garbage', '%Y-%m-%d')", nullptr},
      {"date_format(d, '%Y/%m/%d %H')", "2020/05/08 13"},
      {"date_format(dt, '%W')", "Friday"},
      {"now() = current_timestamp()", "true", "BOOLEAN"},
      {"now() = localtime() AND now() = localtimestamp", "true", "BOOLEAN"},
      {"length(cast(now() AS varchar))", "19", "INTEGER"},
      {"abs(unix_timestamp(utc_timestamp()) - unix_timestamp()) < 5", "true", "BOOLEAN"},
      {"curdate() = date(now()) AND current_date() = curdate() AND current_date = curdate()", "true", "BOOLEAN"},
      {"utc_date() = curdate()", "true", "BOOLEAN"},
      {"curtime() = current_time()", "true", "BOOLEAN"},
      {"date(d)", "2020-05-08", "DATE"},
      {"to_date('20200508')", "2020-05-08", "DATE"},
      {"year(d)", "2020", "INTEGER"},
      {"quarter(d)", "2", "INTEGER"},
      {"month(dt)", "5", "INTEGER"},
      {"day(d)", "8", "INTEGER"},
      {"dayofmonth(d)", "8", "INTEGER"},
      {"dayofweek(d)", "6", "INTEGER"},  // Friday; 1 = Sunday as in MySQL
      {"dayofyear(d)", "129", "INTEGER"},
      {"hour(d)", "13", "INTEGER"},
      {"minute(d)", "4", "INTEGER"},
      {"second(d)", "5", "INTEGER"},
      {"datediff('2020-05-11', d)", "3", "INTEGER"},
      {"datediff(dt, ts)", "-3", "INTEGER"},
      {"date_add(dt, INTERVAL 1 MONTH)", "2020-06-08 00:00:00", "TIMESTAMP"},
      {"date_add(d, 3)", "2020-05-11 13:04:05", "TIMESTAMP"},
      {"date_add(d, INTERVAL n MINUTE)", "2020-05-08 13:46:05", "TIMESTAMP"},
      {"date_add(d, INTERVAL 1 QUARTER)", "2020-08-08 13:04:05", "TIMESTAMP"},
      {"date_add(d, INTERVAL 2 WEEK)", "2020-05-22 13:04:05", "TIMESTAMP"},
      {"date_add(d, INTERVAL 1 YEAR)", "2021-05-08 13:04:05", "TIMESTAMP"},
      {"date_add(d, INTERVAL 30 SECOND)", "2020-05-08 13:04:35", "TIMESTAMP"},
      {"date_add(d, INTERVAL 1500 MILLISECOND)", "2020-05-08 13:04:06.5", "TIMESTAMP"},
      {"date_add(d, INTERVAL 7 MICROSECOND)", "2020-05-08 13:04:05.000007", "TIMESTAMP"},
      {"adddate(dt, INTERVAL 1 DAY)", "2020-05-09 00:00:00", "TIMESTAMP"},
      {"days_add(dt, 2)", "2020-05-10", "DATE"},
      {"date_sub(d, INTERVAL 2 HOUR)", "2020-05-08 11:04:05", "TIMESTAMP"},
      {"subdate(d, 8)", "2020-04-30 13:04:05", "TIMESTAMP"},
      {"days_sub(dt, 1)", "2020-05-07", "DATE"},
      {"d + INTERVAL 1 DAY", "2020-05-09 13:04:05", "TIMESTAMP"},
      {"INTERVAL 1 DAY + dt", "2020-05-09 00:00:00", "TIMESTAMP"},
      {"ts - INTERVAL 10 MINUTE", "2020-05-11 09:54:47", "TIMESTAMP"},
      // JSON
      {"get_json_string(j, '$.a.b')", "x"},
      {"get_json_string(j, 'a.b')", "x"},
      {"get_json_string(j, '$.arr[1]')", "20"},
      {"get_json_string(j, '$.a')", R"({"b":"x","n":7,"d":2.5})"},
      {"get_json_string(j, '$.missing')", nullptr},
      {"get_json_string('not json', '$.a')", nullptr},
      {"get_json_int(j, '$.a.n')", "7", "BIGINT"},
      {"get_json_double(j, '$.a.d')", "2.5", "DOUBLE"},
      {"json_extract(j, '$.arr')", "[10,20,30]", "JSON"},
      {"json_extract(j, '$.a.b')", "x"},  // a JSON string loaded into VARCHAR loses its quotes
      {"parse_json(j)", R"({"a":{"b":"x","n":7,"d":2.5},"arr":[10,20,30],"k/1":"slash"})", "JSON"},
      {"json_parse('[1, 2]')", "[1, 2]", "INTEGER[]"},
      {"element_at(tags, 1)", "red"},
      {"element_at(tags, 5)", nullptr},
      {"element_at(attrs, 'color')", "blue"},
      {"element_at(attrs, 'nope')", nullptr},
      {"element_at(j, 'k/1')", "slash"},
      {"element_at(json_extract(j, '$.arr'), 2)", "20"},
      // Lakehouse forms: x::TYPE, x[key] (JSON keys, 0-based JSON/list indexes, map keys), map(...)
      {"parse_json(j)['a']['b']", "x"},
      {"parse_json(j)['a']['b']::string", "x"},
      {"parse_json(j)['a']['n']::int + 1", "8", "BIGINT"},
      {"parse_json(j)['a']", R"({"b":"x","n":7,"d":2.5})", "JSON"},
      {"parse_json(j)['arr'][1]::bigint", "20", "BIGINT"},
      {"parse_json(j)['k/1']", "slash"},
      {"parse_json(j)['missing']", nullptr},
      {"parse_json(j)['a']['missing']['deeper']", nullptr},
      {"j['a']['d']::double", "2.5", "DOUBLE"},
      {"cast(parse_json('{\"t\":\"2024-05-01 10:00:00\"}')['t'] as timestamp)", "2024-05-01 10:00:00", "TIMESTAMP"},
      {"parse_json('{\"t\":\"2024-05-01T10:00:00Z\"}')['t']::timestamp", "2024-05-01 10:00:00", "TIMESTAMP"},
      {"n::int * 2", "84", "BIGINT"},
      {"-n::int", "-42", "BIGINT"},
      {"d::date", "2020-05-08", "DATE"},
      {"tags[0]", "red"},
      {"tags[2]", nullptr},
      {"attrs['size']", "L"},
      {"map('a', 1, 'b', s)['b']", "Hello World"},
      {"map()['a']", nullptr},
      {"element_at(map('k', 'v'), 'k')", "v"},
      // cast and convert
      {"cast(f as double)", "3.75", "DOUBLE"},
      {"cast(f as decimal(10, 1))", "3.8", "DECIMAL(10,1)"},
      {"cast(f as int)", nullptr, "INTEGER"},  // '3.75' is not an integer (DuckDB alone would say 4)
      {"cast('12.0' as int)", "12", "INTEGER"},
      {"cast(n as bigint) + 1", "43", "BIGINT"},
      {"cast(num as varchar)", "7"},
      {"cast(price as string)", "19.5"},
      {"cast(d as date)", "2020-05-08", "DATE"},
      {"cast(d as datetime)", "2020-05-08 13:04:05", "TIMESTAMP"},
      {"cast('true' as boolean)", "true", "BOOLEAN"},
      {"cast(dt as int)", "20200508", "INTEGER"},
      {"cast(tags as json)", R"(["red","green"])", "JSON"},
      {"convert(n, signed)", "42", "BIGINT"},
      {"cast(u as largeint) * 1000", "1589191487000", "BIGINT"},
  };
  return kCases;
}

TEST_F(FunctionsTest, EveryFunctionMapsOntoDuckDB) { Check(FunctionCases()); }

void CollectCalls(const Expr& e, std::set<std::string>* out) {
  if (e.kind == ExprKind::kCall) out->insert(e.text);
  for (const auto& c : e.children) CollectCalls(*c, out);
}

TEST_F(FunctionsTest, EveryFunctionHasACase) {
  std::set<std::string> called;
  for (const Case& c : FunctionCases()) {
    auto e = ParseExpression(c.expr);
    ASSERT_TRUE(e.ok()) << c.expr;
    CollectCalls(**e, &called);
  }
  for (const FunctionInfo& f : AllFunctions()) EXPECT_TRUE(called.count(std::string(f.name))) << f.name;
}

TEST_F(FunctionsTest, Operators) {
  Check({
      {"n + 1", "43"},
      {"n + 1", "43", "INTEGER"},
      {"n * f", "157.5", "DOUBLE"},
      {"num - 10", "-3", "INTEGER"},
      {"7 / 2", "3.5", "DOUBLE"},
      {"num / 0", nullptr, "DOUBLE"},
      {"7 DIV 2", "3", "INTEGER"},
      {"-7 DIV 2", "-3", "INTEGER"},
      {"f DIV 1", "3", "INTEGER"},
      {"7 % 3", "1", "INTEGER"},
      {"7 MOD 0", nullptr, "INTEGER"},
      {"big + 1", "2147483648", "BIGINT"},  // INTEGER column + 1 does not overflow (BIGINT arithmetic)
      {"100000 * 100000", "10000000000", "BIGINT"},
      {"-num", "-7", "INTEGER"},
      {"- n", "-42", "INTEGER"},
      {"+price", "19.5", "DOUBLE"},
      {"n = 42", "true", "BOOLEAN"},
      {"n = 42.0", "true", "BOOLEAN"},
      {"num = '7'", "true", "BOOLEAN"},
      {"n > '5'", "false", "BOOLEAN"},  // two strings compare as strings, as in StarRocks
      {"n > 5", "true", "BOOLEAN"},
      {"s = 1", nullptr, "BOOLEAN"},  // 'Hello World' is no number: NULL, as StarRocks' failed cast
      {"num <> 7 OR num != 8", "true", "BOOLEAN"},
      {"num < 8 AND num <= 7 AND num >= 7", "true", "BOOLEAN"},
      {"dt = '2020-05-08'", "true", "BOOLEAN"},
      {"d > dt", "true", "BOOLEAN"},
      {"ts >= '2020-05-11'", "true", "BOOLEAN"},
      {"dt = 20200508", "true", "BOOLEAN"},
      {"n IN (1, 42)", "true", "BOOLEAN"},
      {"num NOT IN ('1', '2')", "true", "BOOLEAN"},
      {"s IN ('Hello World', 'x')", "true", "BOOLEAN"},
      {"n BETWEEN 40 AND 50", "true", "BOOLEAN"},
      {"d NOT BETWEEN '2020-01-01' AND dt", "true", "BOOLEAN"},
      {"s LIKE 'Hello%'", "true", "BOOLEAN"},
      {"s NOT LIKE '%x%'", "true", "BOOLEAN"},
      {"'a%b' LIKE 'a\\%b'", "true", "BOOLEAN"},
      {"'axb' LIKE 'a\\%b'", "false", "BOOLEAN"},
      {"'a%b' LIKE 'a|%b' ESCAPE '|'", "true", "BOOLEAN"},
      {"num LIKE '7'", "true", "BOOLEAN"},
      {"z IS NULL AND s IS NOT NULL", "true", "BOOLEAN"},
      {"z <=> NULL", "true", "BOOLEAN"},
      {"z = NULL", nullptr, "BOOLEAN"},
      {"NOT (num > 5)", "false", "BOOLEAN"},
      {"!(num > 5)", "false", "BOOLEAN"},
      {"(num > 5) XOR (num > 6)", "false", "BOOLEAN"},
      {"num > 5 && num < 10 || z", "true", "BOOLEAN"},
      {"CASE WHEN num > 10 THEN 'big' WHEN num > 5 THEN 'medium' ELSE 'small' END", "medium"},
      {"CASE n WHEN 41 THEN 'a' WHEN 42 THEN 'b' END", "b"},
      {"CASE num WHEN '7' THEN 1.5 ELSE 2 END", "1.5", "DOUBLE"},
      {"CASE WHEN z THEN 1 END", nullptr, "INTEGER"},
      {"CASE WHEN true THEN dt ELSE d END", "2020-05-08 00:00:00", "TIMESTAMP"},
      {"CASE WHEN true THEN num ELSE 'x' END", "7"},
      {"TRUE", "true", "BOOLEAN"},
      {"NULL", nullptr},
      {"0x10 + 0b11", "19", "INTEGER"},
      {"1e3", "1000", "INTEGER"},
  });
}

// from_unixtime and now() render in the job's time zone; unix_timestamp reads wall-clock times in it.
TEST_F(FunctionsTest, TimeZoneChangesRendering) {
  Check({{"from_unixtime(u)", "2020-05-11 18:04:47"},
         {"from_unixtime(u, '%Y%m%d %H')", "20200511 18"},
         {"unix_timestamp('2020-05-11 18:04:47')", "1589191487", "BIGINT"},
         {"(hour(now()) - hour(utc_timestamp()) + 24) % 24", "8", "INTEGER"}},
        "Asia/Shanghai");
  Check({{"from_unixtime(u)", "2020-05-11 18:04:47"},
         {"unix_timestamp('2020-05-11 18:04:47')", "1589191487", "BIGINT"}},
        "+08:00");
  Check({{"from_unixtime(u)", "2020-05-11 04:34:47"},
         {"unix_timestamp('2020-05-11 04:34:47')", "1589191487", "BIGINT"},
         {"(hour(now()) * 60 + minute(now()) - hour(utc_timestamp()) * 60 - minute(utc_timestamp()) + 1440) % 1440",
          "1110", "INTEGER"}},
        "-05:30");
  Check({{"from_unixtime(u)", "2020-05-11 06:04:47"}, {"from_unixtime(1e20)", nullptr}},
        "America/New_York");  // EDT in May
  Check({{"from_unixtime(u)", "2020-05-11 18:04:47"}}, "CST");               // StarRocks: China Standard Time
  Check({{"from_unixtime(u)", "2020-05-11 10:04:47"}}, "UTC");
}

// DuckDB's session TimeZone (which renders TIMESTAMPTZ) does not leak into the job's time zone.
TEST_F(FunctionsTest, SessionTimeZoneDoesNotMatter) {
  ASSERT_TRUE(con_->Execute("SET TimeZone = 'America/Los_Angeles'").ok());
  Check({{"from_unixtime(u)", "2020-05-11 18:04:47"},
         {"unix_timestamp('2020-05-11 18:04:47')", "1589191487", "BIGINT"},
         {"(hour(now()) - hour(utc_timestamp()) + 24) % 24", "8", "INTEGER"}},
        "Asia/Shanghai");
}

}  // namespace
}  // namespace sluice::transform::testing
