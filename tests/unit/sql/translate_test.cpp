#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace sluice::sql {
namespace {

std::string T(std::string_view sql) { return TranslateForDuckDB(sql, testing::TestSession()); }

TEST(TranslateTest, LeavesPlainSqlAlone) {
  for (const char* sql : {"SELECT 1", "select a, b from t where x = 'y' order by 1 limit 10",
                          "SELECT \"col\" FROM \"t\"", "INSERT INTO t VALUES (1, 'a')", "SELECT 'a' || 'b'",
                          "SELECT E'\\n'", "SELECT $$a\\b$$", "select  1 /* c */ , -- d\n 2", "",
                          "SELECT x::INT, y->>'$.a' FROM t", "SELECT 'unterminated"}) {
    EXPECT_EQ(T(sql), sql);
  }
}

TEST(TranslateTest, StarRocksLambdas) {
  EXPECT_EQ(T("SELECT array_filter(x -> x > 1, arr) FROM t"),
            "SELECT list_filter((arr), lambda \"x\": (x > 1)) FROM t");
  EXPECT_EQ(T("SELECT array_map(arr, x -> x * 2)"), "SELECT list_transform((arr), lambda \"x\": (x * 2))");
  // pieces are translated too, nested calls included
  EXPECT_EQ(T("SELECT array_map(x -> array_filter(y -> y > x, `b`), `a`)"),
            "SELECT list_transform((\"a\"), lambda \"x\": (list_filter((\"b\"), lambda \"y\": (y > x))))");
  EXPECT_EQ(T("SELECT array_map((x, y) -> x + y, a, b)"),
            "SELECT CASE WHEN len((a)) = len((b)) THEN list_transform(list_zip((a), (b)), lambda __sluice_lv: ( "
            "__sluice_lv[1]  +  __sluice_lv[2] )) END");
  EXPECT_EQ(T("SELECT map_filter((k, v) -> v > 0, m)"),
            "SELECT map_from_entries(list_filter(map_entries((m)), lambda __sluice_lv: ( __sluice_lv.value  > 0)))");
  // DuckDB's own forms, other shapes and names of objects pass through as written
  for (const char* sql : {"SELECT list_filter(arr, lambda x: x > 1)", "SELECT array_filter(arr)",
                          "SELECT t.array_filter(x -> x, a)", "SELECT array_map(a, x -> x, b)",
                          "SELECT array_filter(x -> x > 1, arr", "SELECT array_map"}) {
    EXPECT_EQ(T(sql), sql);
  }
}

TEST(TranslateTest, InformationSchema) {
  SessionContext ctx = testing::TestSession();
  ctx.information_schema = [](std::string_view name) { return "is_" + std::string(name) + "()"; };
  auto T2 = [&](std::string_view sql) { return TranslateForDuckDB(sql, ctx); };
  EXPECT_EQ(T2("SELECT * FROM information_schema.tables"), "SELECT * FROM is_tables() AS \"tables\"");
  EXPECT_EQ(T2("SELECT * FROM `INFORMATION_SCHEMA`.`COLUMNS` c WHERE c.x = 1"),
            "SELECT * FROM is_columns() c WHERE c.x = 1");
  EXPECT_EQ(T2("SELECT t.a FROM information_schema.tables t JOIN information_schema.columns ON 1=1"),
            "SELECT t.a FROM is_tables() t JOIN is_columns() AS \"columns\" ON 1=1");
  EXPECT_EQ(T2("SELECT information_schema.f(1)"), "SELECT information_schema.f(1)");  // a function, not a view
  ctx.current_database = "information_schema";
  EXPECT_EQ(T2("SELECT * FROM schemata, tables WHERE 1=1"),
            "SELECT * FROM is_schemata() AS \"schemata\", is_tables() AS \"tables\" WHERE 1=1");
  EXPECT_EQ(T2("SELECT tables FROM x.tables"), "SELECT tables FROM x.tables");
  EXPECT_EQ(T("SELECT * FROM information_schema.tables"), "SELECT * FROM information_schema.tables");  // no callback
}

TEST(TranslateTest, DriverMetadataSql) {
  EXPECT_EQ(T("SELECT CAST(1 + x as signed integer), CAST(y AS UNSIGNED) FROM t"),
            "SELECT CAST(1 + x as BIGINT), CAST(y AS UBIGINT) FROM t");
  EXPECT_EQ(T("SELECT CONVERT(CASE a WHEN 'x' THEN 1 END, UNSIGNED INTEGER) d FROM t"),
            "SELECT CAST(CASE a WHEN 'x' THEN 1 END AS UBIGINT) d FROM t");
  EXPECT_EQ(T("SELECT LOCATE('(', s) FROM t"), "SELECT strpos(s, '(') FROM t");
  EXPECT_EQ(T("SELECT 3 TYPE, COLLATION ASC_OR_DESC FROM t"), "SELECT 3 AS TYPE, \"COLLATION\" ASC_OR_DESC FROM t");
  EXPECT_EQ(T("SELECT CONVERT(x USING utf8mb4) FROM t"), "SELECT CONVERT(x USING utf8mb4) FROM t");
}

TEST(TranslateTest, Backticks) {
  EXPECT_EQ(T("SELECT `a`, `b c` FROM `db`.`t`"), "SELECT \"a\", \"b c\" FROM \"db\".\"t\"");
  EXPECT_EQ(T("SELECT `a\"b`, `x``y`"), "SELECT \"a\"\"b\", \"x`y\"");
}

TEST(TranslateTest, LimitOffsetCount) {
  EXPECT_EQ(T("SELECT * FROM t LIMIT 5, 10"), "SELECT * FROM t LIMIT 10 OFFSET 5");
  EXPECT_EQ(T("select * from t limit 0,1"), "select * from t limit 1 OFFSET 0");
  EXPECT_EQ(T("SELECT * FROM (SELECT * FROM t LIMIT 1, 2) s LIMIT 3"),
            "SELECT * FROM (SELECT * FROM t LIMIT 2 OFFSET 1) s LIMIT 3");
  EXPECT_EQ(T("SELECT * FROM t LIMIT 10"), "SELECT * FROM t LIMIT 10");
  EXPECT_EQ(T("SELECT * FROM t LIMIT 10 OFFSET 5"), "SELECT * FROM t LIMIT 10 OFFSET 5");
}

TEST(TranslateTest, SystemVariables) {
  EXPECT_EQ(T("select @@version_comment limit 1"),
            "select 'Sluice (MySQL protocol)' AS \"@@version_comment\" limit 1");
  EXPECT_EQ(T("SELECT @@session.auto_increment_increment, @@Global.SQL_MODE"),
            "SELECT 1 AS \"@@session.auto_increment_increment\", 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES' AS "
            "\"@@Global.SQL_MODE\"");
  EXPECT_EQ(T("SELECT @@unknown_thing"), "SELECT NULL AS \"@@unknown_thing\"");
  EXPECT_EQ(T("SELECT @@autocommit AS ac"), "SELECT 1 AS ac");
  EXPECT_EQ(T("SELECT @@autocommit ac"), "SELECT 1 ac");
  EXPECT_EQ(T("SELECT @@autocommit + 1"), "SELECT 1 + 1");
  EXPECT_EQ(T("SELECT 1 WHERE @@autocommit = 1"), "SELECT 1 WHERE 1 = 1");
  EXPECT_EQ(T("SELECT DISTINCT @@autocommit"), "SELECT DISTINCT 1 AS \"@@autocommit\"");
  EXPECT_EQ(T("SELECT @@quoted"), "SELECT 'it''s' AS \"@@quoted\"");
  EXPECT_EQ(T("SELECT (SELECT @@autocommit)"), "SELECT (SELECT 1 AS \"@@autocommit\")");
  EXPECT_EQ(T("SELECT coalesce(@@autocommit, 0)"), "SELECT coalesce(1, 0)");
  EXPECT_EQ(T("SELECT @user_var"), "SELECT NULL AS \"@user_var\"");  // never set: NULL, as in MySQL
}

TEST(TranslateTest, NegativeValuesCannotStartAComment) {
  EXPECT_EQ(T("SELECT 10-@@negative"), "SELECT 10-(-5)");
  EXPECT_EQ(T("SELECT @@negative"), "SELECT (-5) AS \"@@negative\"");
}

TEST(TranslateTest, RewrittenTokensDoNotGlue) {
  EXPECT_EQ(T("SELECT@@autocommit"), "SELECT 1 AS \"@@autocommit\"");
  EXPECT_EQ(T("SELECT @@autocommit`x`"), "SELECT 1 \"x\"");
}

TEST(TranslateTest, SessionFunctions) {
  EXPECT_EQ(T("SELECT DATABASE()"), "SELECT 'example_db' AS \"DATABASE()\"");
  EXPECT_EQ(T("select database()"), "select 'example_db' AS \"database()\"");
  EXPECT_EQ(T("SELECT SCHEMA(), USER(), CURRENT_USER(), VERSION(), CONNECTION_ID()"),
            "SELECT 'example_db' AS \"SCHEMA()\", 'root@localhost' AS \"USER()\", 'root@localhost' AS "
            "\"CURRENT_USER()\", '5.7.99-Sluice' AS \"VERSION()\", 42 AS \"CONNECTION_ID()\"");
  EXPECT_EQ(T("SELECT DATABASE() AS db"), "SELECT 'example_db' AS db");
  EXPECT_EQ(T("SELECT * FROM t WHERE owner = user()"), "SELECT * FROM t WHERE owner = 'root@localhost'");
  EXPECT_EQ(T("SELECT s.version() FROM s"), "SELECT s.version() FROM s");
  EXPECT_EQ(T("SELECT database"), "SELECT database");
  SessionContext none = testing::TestSession();
  none.current_database.clear();
  EXPECT_EQ(TranslateForDuckDB("SELECT DATABASE()", none), "SELECT NULL AS \"DATABASE()\"");
  EXPECT_EQ(TranslateForDuckDB("SELECT @@version_comment", SessionContext{}), "SELECT NULL AS \"@@version_comment\"");
}

TEST(TranslateTest, FromDual) {
  EXPECT_EQ(T("SELECT 1 FROM DUAL"), "SELECT 1 ");
  EXPECT_EQ(T("SELECT 1 from dual WHERE 1 = 1"), "SELECT 1  WHERE 1 = 1");
  EXPECT_EQ(T("SELECT @@autocommit FROM DUAL"), "SELECT 1 AS \"@@autocommit\" ");
  EXPECT_EQ(T("SELECT * FROM dual.t"), "SELECT * FROM dual.t");
}

TEST(TranslateTest, BackslashEscapesInStrings) {
  EXPECT_EQ(T("INSERT INTO t VALUES ('it\\'s', 'a\\nb', 'plain')"),
            "INSERT INTO t VALUES ('it''s', 'a\nb', 'plain')");
  EXPECT_EQ(T("SELECT 'a\\\\b'"), "SELECT 'a\\b'");
  EXPECT_EQ(T("SELECT 'a\\0b'"), "SELECT ('a' || chr(0) || 'b')");
}

TEST(TranslateTest, DoubleQuotedValuesBecomeStrings) {
  EXPECT_EQ(T("SELECT * FROM t WHERE name = \"Faust\""), "SELECT * FROM t WHERE name = 'Faust'");
  EXPECT_EQ(T("SELECT * FROM t WHERE a <> \"x\" AND b != \"y\" AND c < \"z\" AND d >= \"w\""),
            "SELECT * FROM t WHERE a <> 'x' AND b != 'y' AND c < 'z' AND d >= 'w'");
  EXPECT_EQ(T("SELECT * FROM t WHERE name LIKE \"F%\" OR name NOT LIKE \"it's\""),
            "SELECT * FROM t WHERE name LIKE 'F%' OR name NOT LIKE 'it''s'");
  EXPECT_EQ(T("SELECT * FROM t WHERE c IN (\"a\", \"b\")"), "SELECT * FROM t WHERE c IN ('a', 'b')");
  EXPECT_EQ(T("INSERT INTO t VALUES (1, \"a\"), (2, \"b\")"), "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  EXPECT_EQ(T("INSERT INTO t (\"a\", \"b\") VALUES (\"x\", 1)"), "INSERT INTO t (\"a\", \"b\") VALUES ('x', 1)");
  EXPECT_EQ(T("SELECT CASE WHEN \"a\" THEN \"b\" ELSE \"c\" END"), "SELECT CASE WHEN 'a' THEN 'b' ELSE 'c' END");
  EXPECT_EQ(T("UPDATE t SET a = \"v\" WHERE id = 1"), "UPDATE t SET a = 'v' WHERE id = 1");
}

TEST(TranslateTest, DoubleQuotedNamesStayNames) {
  EXPECT_EQ(T("SELECT \"a\" FROM \"t\" WHERE \"b\" = 1"), "SELECT \"a\" FROM \"t\" WHERE \"b\" = 1");
  EXPECT_EQ(T("SELECT * FROM a JOIN b ON a.x = \"b\".\"x\""), "SELECT * FROM a JOIN b ON a.x = \"b\".\"x\"");
  EXPECT_EQ(T("SELECT f(\"a\", \"b\")"), "SELECT f(\"a\", \"b\")");
  EXPECT_EQ(T("CREATE VIEW \"v\" AS SELECT 1"), "CREATE VIEW \"v\" AS SELECT 1");
}

TEST(TranslateTest, HashCommentsBecomeDashDash) {
  EXPECT_EQ(T("SELECT 1 # note\n, 2"), "SELECT 1 -- note\n, 2");
  EXPECT_EQ(T("SELECT '#not a comment'"), "SELECT '#not a comment'");
}

TEST(TranslateTest, CharsetIntroducers) {
  EXPECT_EQ(T("SELECT _utf8mb4'abc', _binary 'x', N'y'"), "SELECT 'abc',  'x', 'y'");
  EXPECT_EQ(T("SELECT _utf8mb4 FROM t"), "SELECT _utf8mb4 FROM t");
}

TEST(TranslateTest, SeveralStatements) {
  EXPECT_EQ(T("SELECT @@autocommit; SELECT `a` FROM t LIMIT 1,2"),
            "SELECT 1 AS \"@@autocommit\"; SELECT \"a\" FROM t LIMIT 2 OFFSET 1");
}

TEST(TranslateTest, DeepParenthesesAreFine) {
  std::string sql = "SELECT " + std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_EQ(T(sql), sql);
  std::string open = "SELECT " + std::string(100000, '(') + "@@autocommit";
  EXPECT_EQ(T(open), "SELECT " + std::string(100000, '(') + "1");
}

TEST(TranslateTest, BulkInsertStreamsThrough) {
  std::string sql = "INSERT INTO `t` VALUES ";
  std::string expected = "INSERT INTO \"t\" VALUES ";
  for (int i = 0; i < 20000; ++i) {
    sql += (i ? "," : "") + std::string("(") + std::to_string(i) + ",'it\\'s',\"x\",NULL)";
    expected += (i ? "," : "") + std::string("(") + std::to_string(i) + ",'it''s','x',NULL)";
  }
  EXPECT_EQ(testing::PassThroughSql(sql + ";"), expected);
  EXPECT_EQ(SplitStatements(sql + ";" + sql).size(), 2u);
}

TEST(QuoteTest, IdentifiersAndLiterals) {
  EXPECT_EQ(QuoteIdentifier("na\"me"), "\"na\"\"me\"");
  EXPECT_EQ(QuoteIdentifier(""), "\"\"");
  EXPECT_EQ(QuoteLiteral("it's"), "'it''s'");
  EXPECT_EQ(QuoteLiteral("back\\slash"), "'back\\slash'");
}

TEST(TranslateTest, RecursiveJsonFunctionsGetTheirArgumentsGuarded) {
  // Every argument, translated on its own; a lone select item keeps its column name.
  EXPECT_EQ(T("SELECT json_structure(doc) FROM t"),
            "SELECT json_structure(sluice_json_nesting_guard((doc))) AS \"json_structure(doc)\" FROM t");
  EXPECT_EQ(T("SELECT 1, json_contains(a, '[1]') AS c"),
            "SELECT 1, json_contains(sluice_json_nesting_guard((a)), sluice_json_nesting_guard(('[1]'))) AS c");
  EXPECT_EQ(T("SELECT count(*) FROM t WHERE JSON_MERGE_PATCH(a, f(b, c)) IS NULL"),
            "SELECT count(*) FROM t WHERE JSON_MERGE_PATCH(sluice_json_nesting_guard((a)), "
            "sluice_json_nesting_guard((f(b, c)))) IS NULL");
  EXPECT_EQ(T("SELECT json_group_structure(DISTINCT j) AS s FROM t"),
            "SELECT json_group_structure(DISTINCT sluice_json_nesting_guard((j))) AS s FROM t");
  // Quoted names are the same function to DuckDB.
  EXPECT_EQ(T("SELECT `json_structure`(d) AS s"), "SELECT \"json_structure\"(sluice_json_nesting_guard((d))) AS s");
  // Other JSON functions do not recurse per level and are left as written.
  EXPECT_EQ(T("SELECT json_extract(doc, '$.a') AS a FROM t"), "SELECT json_extract(doc, '$.a') AS a FROM t");
}

}  // namespace
}  // namespace sluice::sql
