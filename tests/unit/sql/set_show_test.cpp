// SET and SHOW: what MySQL clients and drivers send on connect must parse.
#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace sluice::sql {
namespace {

using testing::ParseAs;
using testing::ParseError;
using Assignment = SetVariables::Assignment;

std::vector<std::tuple<std::string, std::string, bool>> Flatten(const SetVariables& st) {
  std::vector<std::tuple<std::string, std::string, bool>> out;
  for (const Assignment& a : st.assignments) out.emplace_back(a.name, a.value, a.global);
  return out;
}

using Flat = std::vector<std::tuple<std::string, std::string, bool>>;

TEST(SetTest, Names) {
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET NAMES utf8mb4")), (Flat{{"names", "utf8mb4", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("set names 'utf8' collate 'utf8_general_ci'")),
            (Flat{{"names", "utf8", false}, {"collation_connection", "utf8_general_ci", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci;")),
            (Flat{{"names", "utf8mb4", false}, {"collation_connection", "utf8mb4_unicode_ci", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET NAMES default")), (Flat{{"names", "DEFAULT", false}}));
}

TEST(SetTest, CharacterSet) {
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET CHARACTER SET utf8")), (Flat{{"charset", "utf8", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET CHARSET 'latin1'")), (Flat{{"charset", "latin1", false}}));
}

TEST(SetTest, Assignments) {
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET autocommit=1")), (Flat{{"autocommit", "1", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")),
            (Flat{{"sql_mode", "STRICT_TRANS_TABLES", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET GLOBAL query_timeout = 300, exec_mem_limit = -1")),
            (Flat{{"query_timeout", "300", true}, {"exec_mem_limit", "-1", true}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET GLOBAL a = 1, SESSION b = 2, LOCAL c = 3")),
            (Flat{{"a", "1", true}, {"b", "2", false}, {"c", "3", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>(
                "SET @@session.Time_Zone = '+00:00', @@GLOBAL.max_connections = 10, @@x = on, y := off")),
            (Flat{{"time_zone", "+00:00", false}, {"max_connections", "10", true}, {"x", "ON", false},
                  {"y", "OFF", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET a = TRUE, b = false, c = DEFAULT, d = \"dq\", e = 1.5, f = +2")),
            (Flat{{"a", "TRUE", false}, {"b", "FALSE", false}, {"c", "DEFAULT", false}, {"d", "dq", false},
                  {"e", "1.5", false}, {"f", "2", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET sql_mode = ''")), (Flat{{"sql_mode", "", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET threads TO 4")), (Flat{{"threads", "4", false}}));
}

TEST(SetTest, Transaction) {
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")),
            (Flat{{"transaction", "ISOLATION LEVEL READ COMMITTED", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET SESSION TRANSACTION READ ONLY;")),
            (Flat{{"transaction", "READ ONLY", false}}));
  EXPECT_EQ(Flatten(ParseAs<SetVariables>("SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE")),
            (Flat{{"transaction", "ISOLATION LEVEL SERIALIZABLE", true}}));
  EXPECT_EQ(ParseError("SET TRANSACTION").message(),
            "Syntax error at line 1, column 16 near end of input: expected one of ISOLATION LEVEL, READ WRITE or READ "
            "ONLY");
}

TEST(SetTest, UserVariablesAndExpressions) {
  SetVariables st = ParseAs<SetVariables>("SET @my_var = 1, @`Other` := 'x', @c = @my_var + 1");
  ASSERT_EQ(st.assignments.size(), 3u);
  EXPECT_TRUE(st.assignments[0].user);
  EXPECT_EQ(st.assignments[0].name, "my_var");
  EXPECT_EQ(st.assignments[0].value, "1");
  EXPECT_FALSE(st.assignments[0].expression);
  EXPECT_EQ(st.assignments[1].name, "other");
  EXPECT_TRUE(st.assignments[1].string_literal);
  EXPECT_TRUE(st.assignments[2].expression);
  EXPECT_EQ(st.assignments[2].value, "@my_var + 1");
  SetVariables mode = ParseAs<SetVariables>("SET autocommit=1, sql_mode = concat(@@sql_mode, ',X'), b = 2");
  ASSERT_EQ(mode.assignments.size(), 3u);
  EXPECT_TRUE(mode.assignments[1].expression);
  EXPECT_EQ(mode.assignments[1].value, "concat(@@sql_mode, ',X')");
  EXPECT_EQ(mode.assignments[2].value, "2");
}

TEST(SetTest, Errors) {
  EXPECT_EQ(ParseError("SET").message(), "Syntax error at line 1, column 4 near end of input: expected a variable name");
  EXPECT_EQ(ParseError("SET a").message(), "Syntax error at line 1, column 6 near end of input: expected '=' or ':='");
  EXPECT_EQ(ParseError("SET a =").message(),
            "Syntax error at line 1, column 8 near end of input: expected a value (a number, a string, ON, OFF, TRUE, "
            "FALSE or DEFAULT)");
  EXPECT_EQ(ParseError("SET a = 1 b = 2").message(),
            "Syntax error at line 1, column 11 near 'b': expected ',' or end of statement");
  EXPECT_EQ(ParseError("SET sql_mode = concat(@@sql_mode, ',X'").code(), StatusCode::kSyntaxError);
  EXPECT_EQ(ParseError("SET @@ = 1").code(), StatusCode::kSyntaxError);
  EXPECT_EQ(ParseError("SET @@session. = 1").message(),
            "Syntax error at line 1, column 5 near '@@session.': expected a system variable such as @@autocommit or "
            "@@session.sql_mode");
}

TEST(ShowTest, DatabasesAndTables) {
  EXPECT_FALSE(ParseAs<ShowDatabases>("SHOW DATABASES").like.has_value());
  EXPECT_EQ(ParseAs<ShowDatabases>("show schemas like 'ex%'").like, "ex%");
  ShowTables st = ParseAs<ShowTables>("SHOW TABLES");
  EXPECT_EQ(st.db, "");
  EXPECT_FALSE(st.full);
  EXPECT_FALSE(st.history);
  EXPECT_FALSE(st.like.has_value());
  st = ParseAs<ShowTables>("SHOW FULL TABLES FROM example_db LIKE 'e%'");
  EXPECT_TRUE(st.full);
  EXPECT_EQ(st.db, "example_db");
  EXPECT_EQ(st.like, "e%");
  st = ParseAs<ShowTables>("show tables in `d`");
  EXPECT_EQ(st.db, "d");
  st = ParseAs<ShowTables>("SHOW TABLES HISTORY");
  EXPECT_TRUE(st.history);
  st = ParseAs<ShowTables>("SHOW TABLES HISTORY FROM d");
  EXPECT_TRUE(st.history);
  EXPECT_EQ(st.db, "d");
  EXPECT_EQ(ParseError("SHOW TABLES WHERE x = 1").message(),
            "Syntax error at line 1, column 13 near 'WHERE': expected LIKE 'pattern' or end of statement (WHERE is "
            "not supported here)");
  EXPECT_EQ(ParseError("SHOW TABLES LIKE").message(),
            "Syntax error at line 1, column 17 near end of input: expected a pattern string, like 'abc%'");
}

TEST(ShowTest, SystemInformation) {
  using What = ShowSystem::What;
  ShowSystem st = ParseAs<ShowSystem>("SHOW VARIABLES");
  EXPECT_EQ(st.what, What::kVariables);
  EXPECT_FALSE(st.global);
  EXPECT_FALSE(st.like.has_value());
  st = ParseAs<ShowSystem>("SHOW GLOBAL VARIABLES LIKE 'max_allowed_packet'");
  EXPECT_TRUE(st.global);
  EXPECT_EQ(st.like, "max_allowed_packet");
  st = ParseAs<ShowSystem>("SHOW SESSION VARIABLES WHERE Variable_name = 'lower_case_table_names'");
  EXPECT_FALSE(st.global);
  EXPECT_EQ(st.like, "lower_case_table_names");
  st = ParseAs<ShowSystem>("show variables where `variable_name` like 'sql%'");
  EXPECT_EQ(st.like, "sql%");
  st = ParseAs<ShowSystem>("SHOW GLOBAL STATUS LIKE 'Uptime'");
  EXPECT_EQ(st.what, What::kStatus);
  EXPECT_TRUE(st.global);
  EXPECT_EQ(st.like, "Uptime");
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW STATUS").what, What::kStatus);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW WARNINGS").what, What::kWarnings);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW WARNINGS LIMIT 10").what, What::kWarnings);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW WARNINGS LIMIT 0, 10").what, What::kWarnings);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW ERRORS").what, What::kErrors);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW ENGINES").what, What::kEngines);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW STORAGE ENGINES").what, What::kEngines);
  st = ParseAs<ShowSystem>("SHOW COLLATION LIKE 'utf8%'");
  EXPECT_EQ(st.what, What::kCollation);
  EXPECT_EQ(st.like, "utf8%");
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW CHARACTER SET").what, What::kCharset);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW CHARSET LIKE 'utf8mb4'").like, "utf8mb4");
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW PROCESSLIST").what, What::kProcesslist);
  EXPECT_EQ(ParseAs<ShowSystem>("SHOW FULL PROCESSLIST").what, What::kProcesslist);
}

TEST(ShowTest, Nodes) {
  ParseAs<ShowNodes>("SHOW NODES");
  ParseAs<ShowNodes>("show nodes;");
  EXPECT_EQ(ParseError("SHOW NODES LIKE 'n%'").code(), StatusCode::kSyntaxError);
}

TEST(ShowTest, Errors) {
  EXPECT_EQ(ParseError("SHOW STAGES").message(),
            "Syntax error at line 1, column 6 near 'STAGES': expected one of DATABASES, SCHEMAS, TABLES, TABLES "
            "HISTORY, COLUMNS, FIELDS, CREATE TABLE, ROUTINE LOAD, CREATE ROUTINE LOAD, PIPES, VCLUSTERS, VARIABLES, "
            "STATUS, WARNINGS, ERRORS, ENGINES, COLLATION, CHARACTER SET, CHARSET, PROCESSLIST, NODES, INDEX, KEYS, "
            "TABLE STATUS, CREATE DATABASE or PLUGINS (the SHOW "
            "statements Sluice supports)");
  EXPECT_EQ(ParseError("SHOW").code(), StatusCode::kSyntaxError);
  EXPECT_EQ(ParseError("SHOW GLOBAL TABLES").message(),
            "Syntax error at line 1, column 13 near 'TABLES': expected VARIABLES or STATUS");
  EXPECT_EQ(ParseError("SHOW FULL DATABASES").message(),
            "Syntax error at line 1, column 11 near 'DATABASES': expected one of TABLES, COLUMNS, FIELDS or "
            "PROCESSLIST");
  EXPECT_EQ(ParseError("SHOW VARIABLES WHERE Value = 'x'").message(),
            "Syntax error at line 1, column 22 near 'Value': expected Variable_name (SHOW ... WHERE supports only "
            "Variable_name = 'x' or Variable_name LIKE 'x')");
  EXPECT_EQ(ParseError("SHOW VARIABLES WHERE Variable_name = 'a' OR Variable_name = 'b'").message(),
            "Syntax error at line 1, column 42 near 'OR': expected end of statement");
  EXPECT_EQ(ParseError("SHOW COLUMNS t").message(),
            "Syntax error at line 1, column 14 near 't': expected FROM or IN");
}

}  // namespace
}  // namespace sluice::sql
