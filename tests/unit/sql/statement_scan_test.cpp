// The scan the privilege checks and the sandbox read (sql/statement_scan.h): what a statement writes, every name
// it uses, and the calls it makes -- however the names are quoted, and never fooled by strings or comments.
#include "sql/statement_scan.h"

#include <gtest/gtest.h>

namespace sluice::sql {
namespace {

StatementScan Scan(std::string_view sql) {
  auto r = ScanStatement(sql);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : StatementScan{};
}

bool Names(const StatementScan& s, std::vector<std::string> parts) {
  for (const auto& c : s.names)
    if (c.parts == parts) return true;
  return false;
}

TEST(StatementScanTest, InsertTargetAndReads) {
  auto s = Scan("INSERT INTO shop.orders (id) SELECT id FROM `shop`.\"secrets\" WHERE id > 0");
  EXPECT_EQ(s.verb, "INSERT");
  EXPECT_EQ(s.target, (std::vector<std::string>{"shop", "orders"}));
  EXPECT_TRUE(Names(s, {"shop", "secrets"}));
}

TEST(StatementScanTest, UpdateDeleteMergeTruncate) {
  EXPECT_EQ(Scan("UPDATE t SET a = 1").target, std::vector<std::string>{"t"});
  EXPECT_EQ(Scan("DELETE FROM d.t USING u WHERE t.a = u.a").target, (std::vector<std::string>{"d", "t"}));
  auto m = Scan("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v)");
  EXPECT_EQ(m.target, std::vector<std::string>{"t"});
  EXPECT_TRUE(m.merge_updates);
  EXPECT_TRUE(m.merge_inserts);
  EXPECT_FALSE(m.merge_deletes);
  EXPECT_EQ(Scan("TRUNCATE TABLE x.y").target, (std::vector<std::string>{"x", "y"}));
}

TEST(StatementScanTest, CreateHeads) {
  auto v = Scan("CREATE OR REPLACE VIEW d.v AS SELECT * FROM d.t");
  EXPECT_EQ(v.object_kind, "VIEW");
  EXPECT_EQ(v.target, (std::vector<std::string>{"d", "v"}));
  auto temp = Scan("CREATE TEMP TABLE x AS SELECT 1");
  EXPECT_TRUE(temp.temporary);
  EXPECT_TRUE(temp.creates_from_query);
  auto idx = Scan("CREATE UNIQUE INDEX i ON d.t (a)");
  EXPECT_EQ(idx.object_kind, "INDEX");
  EXPECT_EQ(idx.index_table, (std::vector<std::string>{"d", "t"}));
  EXPECT_EQ(Scan("CREATE MACRO IF NOT EXISTS m(x) AS x").target, std::vector<std::string>{"m"});
  EXPECT_EQ(Scan("CREATE FUNCTION f(x) AS x").object_kind, "MACRO");
}

TEST(StatementScanTest, ExplainAnalyzeIsTheStatementItRuns) {
  auto s = Scan("EXPLAIN ANALYZE DELETE FROM t");
  EXPECT_EQ(s.verb, "DELETE");
  EXPECT_EQ(s.target, std::vector<std::string>{"t"});
}

TEST(StatementScanTest, CallsAndTheirLiteralArgument) {
  auto s = Scan("SELECT * FROM \"read_csv\" ('/etc/passwd'), sluice_directory('vol'), range(3)");
  ASSERT_GE(s.names.size(), 3u);
  bool saw_read = false, saw_dir = false;
  for (const auto& c : s.names) {
    if (c.parts.back() == "read_csv") saw_read = c.called && c.literal_argument && c.first_argument == "/etc/passwd";
    if (c.parts.back() == "sluice_directory") saw_dir = c.called && c.first_argument == "vol";
  }
  EXPECT_TRUE(saw_read);
  EXPECT_TRUE(saw_dir);
  auto nested = Scan("SELECT * FROM main.read_text /* x */ ( 'f' )");
  EXPECT_TRUE(Names(nested, {"main", "read_text"}));
  EXPECT_TRUE(nested.names.front().called);
}

TEST(StatementScanTest, StringsAndCommentsHideNoNames) {
  // MySQL's lexing: 'a\\' ends the string, so what follows is a name the checks see.
  auto s = Scan("SELECT 'a\\\\', x FROM __sluice.routine_loads");
  EXPECT_TRUE(Names(s, {"__sluice", "routine_loads"}));
  auto c = Scan("SELECT 1 # comment\n FROM \"__SLUICE\".t");
  EXPECT_TRUE(Names(c, {"__SLUICE", "t"}));
}

TEST(StatementScanTest, BulkValuesKeepNoLiterals) {
  std::string sql = "INSERT INTO t VALUES ";
  for (int i = 0; i < 10000; i++) sql += (i ? ", " : "") + std::string("(1, NULL, TRUE, 'x')");
  auto s = Scan(sql);
  EXPECT_LE(s.names.size(), 3u);  // INSERT, t, VALUES: no literal is kept
}

TEST(StatementScanTest, AStringInTablePositionIsAFile) {
  EXPECT_TRUE(Scan("SELECT * FROM '/etc/passwd'").reads_file_by_name);
  EXPECT_TRUE(Scan("SELECT * FROM t JOIN 'x.csv' USING (a)").reads_file_by_name);
  EXPECT_FALSE(Scan("SELECT 'FROM' FROM t WHERE a = 'b'").reads_file_by_name);
  EXPECT_FALSE(Scan("SELECT extract(year FROM '2020-01-01'::DATE), trim('x' FROM 'xax') FROM t").reads_file_by_name);
  EXPECT_TRUE(Scan("SELECT * FROM t WHERE a IN (SELECT a FROM 'x.parquet')").reads_file_by_name);
  // REVOKE ... FROM 'u'@'%' names an account, not a file
  EXPECT_FALSE(Scan("REVOKE SELECT ON lake.db.* FROM 'v'@'%'").reads_file_by_name);
  EXPECT_TRUE(Scan("SELECT 1 FROM (SELECT * FROM 'x.csv') AS revoke").reads_file_by_name);
}

TEST(StatementScanTest, UnterminatedTextIsAnError) {
  EXPECT_FALSE(ScanStatement("SELECT 'open").ok());
}


TEST(StatementScanTest, RecursiveJsonFunctionAfterADot) {
  EXPECT_EQ(Scan("SELECT doc.json_structure() FROM t").dotted_json_call, "json_structure");
  EXPECT_EQ(Scan("SELECT main.JSON_CONTAINS(a, b)").dotted_json_call, "JSON_CONTAINS");
  EXPECT_EQ(Scan("SELECT (a).\"json_merge_patch\"(b)").dotted_json_call, "json_merge_patch");
  EXPECT_EQ(Scan("SELECT json_structure(t.doc), x.json_extract('$') FROM t").dotted_json_call, "");
  EXPECT_EQ(Scan("SELECT 'x.json_structure()'").dotted_json_call, "");
}

}  // namespace
}  // namespace sluice::sql
