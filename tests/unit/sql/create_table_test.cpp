// CREATE TABLE in the StarRocks and Lakehouse forms, and its column types.
#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace sluice::sql {
namespace {

using testing::ParseAs;
using testing::ParseError;
using testing::PassThroughSql;

// The statement from issue 2, verbatim.
constexpr const char* kExampleTbl1 = R"(CREATE TABLE example_tbl1 (
    order_id bigint NOT NULL COMMENT "Order ID",
    pay_dt date NOT NULL COMMENT "Payment date",
    customer_name varchar(26) NULL COMMENT "Customer name",
    nationality varchar(26) NULL COMMENT "Nationality",
    price double NULL COMMENT "Price")
ENGINE=OLAP DUPLICATE KEY (order_id, pay_dt) DISTRIBUTED BY HASH(order_id);)";

TEST(CreateTableTest, IssueExample) {
  CreateTable ct = ParseAs<CreateTable>(kExampleTbl1);
  EXPECT_EQ(ct.table.db, "");
  EXPECT_EQ(ct.table.name, "example_tbl1");
  EXPECT_FALSE(ct.if_not_exists);
  ASSERT_EQ(ct.columns.size(), 5u);
  EXPECT_EQ(ct.columns[0].name, "order_id");
  EXPECT_EQ(ct.columns[0].type.name, "BIGINT");
  EXPECT_TRUE(ct.columns[0].type.params.empty());
  EXPECT_EQ(ct.columns[0].nullable, false);
  EXPECT_EQ(ct.columns[0].comment, "Order ID");
  EXPECT_EQ(ct.columns[1].type.name, "DATE");
  EXPECT_EQ(ct.columns[1].comment, "Payment date");
  EXPECT_EQ(ct.columns[2].name, "customer_name");
  EXPECT_EQ(ct.columns[2].type.name, "VARCHAR");
  EXPECT_EQ(ct.columns[2].type.params, (std::vector<int64_t>{26}));
  EXPECT_EQ(ct.columns[2].nullable, true);
  EXPECT_EQ(ct.columns[4].type.name, "DOUBLE");
  EXPECT_EQ(ct.columns[4].comment, "Price");
  for (const ColumnDef& c : ct.columns) {
    EXPECT_EQ(c.aggregate, AggregateFunction::kNone);
    EXPECT_FALSE(c.default_sql.has_value());
    EXPECT_FALSE(c.auto_increment);
    EXPECT_FALSE(c.primary_key_inline);
  }
  EXPECT_EQ(ct.engine, "OLAP");
  EXPECT_EQ(ct.key_model, KeyModel::kDuplicate);
  EXPECT_EQ(ct.key_columns, (std::vector<std::string>{"order_id", "pay_dt"}));
  EXPECT_EQ(ct.distribution_columns, (std::vector<std::string>{"order_id"}));
  EXPECT_FALSE(ct.distributed_random);
  EXPECT_FALSE(ct.buckets.has_value());
  EXPECT_TRUE(ct.partition_desc.empty());
  EXPECT_TRUE(ct.properties.empty());
  std::string expected_source(kExampleTbl1);
  expected_source.pop_back();  // the ';'
  EXPECT_EQ(ct.source_text, expected_source);
}

TEST(CreateTableTest, FullStarRocksForm) {
  CreateTable ct = ParseAs<CreateTable>(R"(
    CREATE TABLE IF NOT EXISTS example_db.site_access (
      event_day DATETIME NOT NULL,
      site_id INT(11) DEFAULT '10',
      city_code VARCHAR(100),
      user_name VARCHAR(32) DEFAULT "",
      pv BIGINT SUM DEFAULT '0' COMMENT 'page views',
      last_seen DATETIME REPLACE_IF_NOT_NULL,
      INDEX idx_city (city_code) USING BITMAP COMMENT 'bitmap index'
    )
    ENGINE = olap
    AGGREGATE KEY(event_day, site_id, city_code, user_name)
    COMMENT "site access"
    PARTITION BY RANGE(event_day) (
      PARTITION p20200321 VALUES LESS THAN ("2020-03-22"),
      START ("2020-03-22") END ("2020-03-25") EVERY (INTERVAL 1 day)
    )
    DISTRIBUTED BY HASH(event_day, site_id) BUCKETS 32
    ORDER BY (site_id)
    PROPERTIES ("replication_num" = "1", "storage_medium" = "SSD", 'partition_live_number' = 3)
  )");
  EXPECT_EQ(ct.table.db, "example_db");
  EXPECT_EQ(ct.table.name, "site_access");
  EXPECT_TRUE(ct.if_not_exists);
  ASSERT_EQ(ct.columns.size(), 6u);
  EXPECT_EQ(ct.columns[1].type.name, "INT");
  EXPECT_EQ(ct.columns[1].type.params, (std::vector<int64_t>{11}));
  EXPECT_EQ(ct.columns[1].default_sql, "'10'");
  EXPECT_FALSE(ct.columns[2].nullable.has_value());
  EXPECT_EQ(ct.columns[3].default_sql, "''");
  EXPECT_EQ(ct.columns[4].aggregate, AggregateFunction::kSum);
  EXPECT_EQ(ct.columns[4].comment, "page views");
  EXPECT_EQ(ct.columns[5].aggregate, AggregateFunction::kReplaceIfNotNull);
  EXPECT_EQ(ct.engine, "OLAP");
  EXPECT_EQ(ct.key_model, KeyModel::kAggregate);
  EXPECT_EQ(ct.key_columns.size(), 4u);
  EXPECT_EQ(ct.comment, "site access");
  EXPECT_EQ(ct.partition_desc, R"(PARTITION BY RANGE(event_day) (
      PARTITION p20200321 VALUES LESS THAN ("2020-03-22"),
      START ("2020-03-22") END ("2020-03-25") EVERY (INTERVAL 1 day)
    ))");
  EXPECT_EQ(ct.distribution_columns, (std::vector<std::string>{"event_day", "site_id"}));
  EXPECT_EQ(ct.buckets, 32);
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(ct.properties, (std::vector<P>{P{"replication_num", "1"}, P{"storage_medium", "SSD"},
                                            P{"partition_live_number", "3"}}));
  EXPECT_EQ(ct.source_text.substr(0, 40), "CREATE TABLE IF NOT EXISTS example_db.si");
  EXPECT_EQ(ct.source_text.back(), ')');
}

TEST(CreateTableTest, PropertiesKeepTheirOrder) {
  CreateTable ct = ParseAs<CreateTable>(
      "CREATE TABLE t (a INT) PROPERTIES (\"z\" = \"1\", \"a\" = \"2\", \"m\" = \"3\", \"b\" = \"\")");
  ASSERT_EQ(ct.properties.size(), 4u);
  EXPECT_EQ(ct.properties[0].first, "z");
  EXPECT_EQ(ct.properties[1].first, "a");
  EXPECT_EQ(ct.properties[2].first, "m");
  EXPECT_EQ(ct.properties[3].first, "b");
  EXPECT_EQ(ct.properties[3].second, "");
  EXPECT_TRUE(ParseAs<CreateTable>("CREATE TABLE t (a INT) PROPERTIES ()").properties.empty());
}

TEST(CreateTableTest, KeyModels) {
  EXPECT_EQ(ParseAs<CreateTable>("CREATE TABLE t (a INT) DUPLICATE KEY(a)").key_model, KeyModel::kDuplicate);
  EXPECT_EQ(ParseAs<CreateTable>("CREATE TABLE t (a INT) AGGREGATE KEY(a)").key_model, KeyModel::kAggregate);
  EXPECT_EQ(ParseAs<CreateTable>("CREATE TABLE t (a INT) UNIQUE KEY(a)").key_model, KeyModel::kUnique);
  CreateTable pk = ParseAs<CreateTable>("CREATE TABLE t (a INT NOT NULL, b INT) PRIMARY KEY(a, b)");
  EXPECT_EQ(pk.key_model, KeyModel::kPrimary);
  EXPECT_EQ(pk.key_columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ParseAs<CreateTable>("CREATE TABLE t (a INT)").key_model, KeyModel::kNone);
}

TEST(CreateTableTest, PrimaryKeyInsideTheColumnList) {
  CreateTable ct = ParseAs<CreateTable>("CREATE TABLE t (a INT, b STRING, PRIMARY KEY (a, b))");
  EXPECT_EQ(ct.key_model, KeyModel::kPrimary);
  EXPECT_EQ(ct.key_columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ct.columns.size(), 2u);
  ct = ParseAs<CreateTable>("CREATE TABLE t (a INT, CONSTRAINT pk PRIMARY KEY (a))");
  EXPECT_EQ(ct.key_columns, (std::vector<std::string>{"a"}));
}

TEST(CreateTableTest, LakehouseForm) {
  CreateTable ct = ParseAs<CreateTable>(R"(CREATE TABLE IF NOT EXISTS logs (
      id BIGINT PRIMARY KEY,
      ts TIMESTAMP NOT NULL COMMENT 'event time',
      ts_ltz TIMESTAMP_LTZ,
      ts_ntz TIMESTAMP_NTZ,
      level STRING,
      payload BINARY,
      score DOUBLE,
      ratio FLOAT,
      amount DECIMAL(18, 4),
      tags ARRAY<STRING>,
      attrs MAP<STRING, INT>,
      origin STRUCT<host:STRING, port:INT>
    )
    PARTITIONED BY (days(ts))
    CLUSTERED BY (id) SORTED BY (ts DESC) INTO 16 BUCKETS
    COMMENT 'application logs'
    PROPERTIES ('data_lifecycle' = '30'))");
  ASSERT_EQ(ct.columns.size(), 12u);
  EXPECT_TRUE(ct.columns[0].primary_key_inline);
  EXPECT_EQ(ct.key_model, KeyModel::kPrimary);
  EXPECT_EQ(ct.key_columns, (std::vector<std::string>{"id"}));
  EXPECT_EQ(ct.columns[1].type.name, "TIMESTAMP");
  EXPECT_EQ(ct.columns[2].type.name, "TIMESTAMP_LTZ");
  EXPECT_EQ(ct.columns[3].type.name, "TIMESTAMP_NTZ");
  EXPECT_EQ(ct.columns[4].type.name, "STRING");
  EXPECT_EQ(ct.columns[5].type.name, "BINARY");
  EXPECT_EQ(ct.columns[8].type.params, (std::vector<int64_t>{18, 4}));
  EXPECT_EQ(ct.columns[9].type.name, "ARRAY");
  EXPECT_EQ(ct.columns[9].type.children[0].name, "STRING");
  EXPECT_EQ(ct.columns[10].type.children.size(), 2u);
  const TypeSpec& origin = ct.columns[11].type;
  EXPECT_EQ(origin.name, "STRUCT");
  EXPECT_EQ(origin.field_names, (std::vector<std::string>{"host", "port"}));
  EXPECT_EQ(origin.children[1].name, "INT");
  EXPECT_EQ(ct.partition_desc, "PARTITIONED BY (days(ts))");
  EXPECT_EQ(ct.distribution_columns, (std::vector<std::string>{"id"}));
  EXPECT_EQ(ct.buckets, 16);
  EXPECT_EQ(ct.comment, "application logs");
  EXPECT_EQ(ct.engine, "");
}

TEST(CreateTableTest, AllStarRocksTypes) {
  CreateTable ct = ParseAs<CreateTable>(R"(CREATE TABLE t (
      c1 bigint(20), c2 int, c3 integer, c4 smallint, c5 tinyint, c6 largeint, c7 float, c8 double,
      c9 decimal(10,2), c10 decimalv3(38, 9), c11 decimal32(9,2), c12 decimal64(18,3), c13 decimal128(38,10),
      c14 boolean, c15 bool, c16 char(10), c17 varchar(255), c18 varchar, c19 string, c20 date, c21 datetime,
      c22 json, c23 jsonb, c24 binary, c25 varbinary(100), c26 bitmap, c27 hll, c28 decimal,
      c29 array<int>, c30 map<varchar(10), double>, c31 struct<a int, b varchar(10)>))");
  ASSERT_EQ(ct.columns.size(), 31u);
  std::vector<std::string> names;
  for (const ColumnDef& c : ct.columns) names.push_back(c.type.name);
  EXPECT_EQ(names, (std::vector<std::string>{"BIGINT", "INT", "INTEGER", "SMALLINT", "TINYINT", "LARGEINT", "FLOAT",
                                             "DOUBLE", "DECIMAL", "DECIMALV3", "DECIMAL32", "DECIMAL64", "DECIMAL128",
                                             "BOOLEAN", "BOOL", "CHAR", "VARCHAR", "VARCHAR", "STRING", "DATE",
                                             "DATETIME", "JSON", "JSONB", "BINARY", "VARBINARY", "BITMAP", "HLL",
                                             "DECIMAL", "ARRAY", "MAP", "STRUCT"}));
  EXPECT_EQ(ct.columns[0].type.params, (std::vector<int64_t>{20}));
  EXPECT_EQ(ct.columns[9].type.params, (std::vector<int64_t>{38, 9}));
  EXPECT_TRUE(ct.columns[17].type.params.empty());
  EXPECT_EQ(ct.columns[29].type.children[0].name, "VARCHAR");
  EXPECT_EQ(ct.columns[29].type.children[0].params, (std::vector<int64_t>{10}));
  EXPECT_EQ(ct.columns[30].type.field_names, (std::vector<std::string>{"a", "b"}));
}

TEST(CreateTableTest, NestedTypes) {
  CreateTable ct = ParseAs<CreateTable>(
      "CREATE TABLE t (a array<array<int>>, b ARRAY<MAP<STRING,ARRAY<STRUCT<x:INT,y:ARRAY<BIGINT>>>>>, "
      "c struct<`my field` int COMMENT 'f', s struct<t string>>)");
  const TypeSpec& a = ct.columns[0].type;
  EXPECT_EQ(a.name, "ARRAY");
  ASSERT_EQ(a.children.size(), 1u);
  EXPECT_EQ(a.children[0].name, "ARRAY");
  EXPECT_EQ(a.children[0].children[0].name, "INT");
  const TypeSpec& b = ct.columns[1].type;
  const TypeSpec& m = b.children[0];
  EXPECT_EQ(m.name, "MAP");
  EXPECT_EQ(m.children[0].name, "STRING");
  const TypeSpec& s = m.children[1].children[0];
  EXPECT_EQ(s.name, "STRUCT");
  EXPECT_EQ(s.field_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s.children[1].children[0].name, "BIGINT");
  const TypeSpec& c = ct.columns[2].type;
  EXPECT_EQ(c.field_names, (std::vector<std::string>{"my field", "s"}));
  EXPECT_EQ(c.children[1].field_names, (std::vector<std::string>{"t"}));
}

TEST(CreateTableTest, DeepNestingIsRefusedNotRecursedInto) {
  std::string deep = "CREATE TABLE t (a ";
  for (int i = 0; i < 5000; ++i) deep += "array<";
  deep += "int";
  for (int i = 0; i < 5000; ++i) deep += ">";
  deep += ")";
  Status st = ParseError(deep);
  EXPECT_EQ(st.code(), StatusCode::kSyntaxError);
  EXPECT_NE(st.message().find("types nest at most 200 levels deep"), std::string::npos) << st.message();

  std::string ok = "CREATE TABLE t (a ";
  for (int i = 0; i < 100; ++i) ok += "array<";
  ok += "int";
  for (int i = 0; i < 100; ++i) ok += ">";
  ok += ")";
  EXPECT_EQ(ParseAs<CreateTable>(ok).columns.size(), 1u);
}

TEST(CreateTableTest, ColumnAttributes) {
  CreateTable ct = ParseAs<CreateTable>(R"(CREATE TABLE t (
      id BIGINT NOT NULL AUTO_INCREMENT COMMENT 'id',
      k1 INT MAX NULL,
      k2 INT MIN,
      v1 VARCHAR(10) REPLACE DEFAULT "x",
      v2 INT DEFAULT -1,
      v3 DATETIME DEFAULT CURRENT_TIMESTAMP,
      v4 DATETIME DEFAULT current_timestamp(),
      v5 VARCHAR(36) DEFAULT (uuid()),
      v6 INT NULL DEFAULT NULL,
      v7 DOUBLE DEFAULT 1.5,
      v8 BOOLEAN DEFAULT true,
      v9 STRING DEFAULT 'it''s'))");
  ASSERT_EQ(ct.columns.size(), 12u);
  EXPECT_TRUE(ct.columns[0].auto_increment);
  EXPECT_EQ(ct.columns[0].nullable, false);
  EXPECT_EQ(ct.columns[1].aggregate, AggregateFunction::kMax);
  EXPECT_EQ(ct.columns[1].nullable, true);
  EXPECT_EQ(ct.columns[2].aggregate, AggregateFunction::kMin);
  EXPECT_EQ(ct.columns[3].aggregate, AggregateFunction::kReplace);
  EXPECT_EQ(ct.columns[3].default_sql, "'x'");
  EXPECT_EQ(ct.columns[4].default_sql, "-1");
  EXPECT_EQ(ct.columns[5].default_sql, "CURRENT_TIMESTAMP");
  EXPECT_EQ(ct.columns[6].default_sql, "current_timestamp()");
  EXPECT_EQ(ct.columns[7].default_sql, "(uuid())");
  EXPECT_EQ(ct.columns[8].default_sql, "NULL");
  EXPECT_EQ(ct.columns[9].default_sql, "1.5");
  EXPECT_EQ(ct.columns[10].default_sql, "TRUE");
  EXPECT_EQ(ct.columns[11].default_sql, "'it''s'");
}

TEST(CreateTableTest, PartitionTextCapture) {
  struct Case {
    const char* clause;
    const char* after;
  };
  for (Case c : {Case{"PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN (\"2024-01-01\"), "
                      "PARTITION p2 VALUES [(\"2024-01-01\"), (\"2024-02-01\")))",
                      " DISTRIBUTED BY HASH(a)"},
                 Case{"PARTITION BY LIST (city) (PARTITION pCali VALUES IN (\"Los Angeles\",\"San Francisco\"))",
                      " PROPERTIES (\"a\"=\"b\")"},
                 Case{"PARTITION BY date_trunc('day', dt)", ""},
                 Case{"PARTITION BY (dt, city)", " ORDER BY (a)"},
                 Case{"PARTITION BY dt, city", " DISTRIBUTED BY RANDOM"},
                 Case{"partition by /* kept */ str2date(dt, '%Y-%m-%d')", " COMMENT 'x'"}}) {
    std::string sql = std::string("CREATE TABLE t (a INT, dt DATE, city STRING) ") + c.clause + c.after;
    EXPECT_EQ(ParseAs<CreateTable>(sql).partition_desc, c.clause) << sql;
  }
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) PARTITION BY DISTRIBUTED BY HASH(a)").message(),
            "Syntax error at line 1, column 37 near 'DISTRIBUTED': expected a partition description such as "
            "RANGE(col) (...), LIST(col) (...), date_trunc('day', col) or (col, ...)");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) PARTITION BY RANGE(a) (PARTITION p1 VALUES LESS THAN (\"1\")").message(),
            "Syntax error at line 1, column 82 near end of input: expected ',' or ')'");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) PARTITION BY a)").message(),
            "Syntax error at line 1, column 38 near ')': this ')' closes nothing");
}

TEST(CreateTableTest, Distribution) {
  CreateTable ct = ParseAs<CreateTable>("CREATE TABLE t (a INT) DISTRIBUTED BY RANDOM BUCKETS 8");
  EXPECT_TRUE(ct.distributed_random);
  EXPECT_TRUE(ct.distribution_columns.empty());
  EXPECT_EQ(ct.buckets, 8);
  ct = ParseAs<CreateTable>("CREATE TABLE t (a INT) DISTRIBUTED BY RANDOM");
  EXPECT_TRUE(ct.distributed_random);
  EXPECT_FALSE(ct.buckets.has_value());
  ct = ParseAs<CreateTable>("CREATE TABLE t (a INT, b INT) DISTRIBUTED BY HASH(`a`, b) BUCKETS 1");
  EXPECT_EQ(ct.distribution_columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) BUCKETS 0").message(),
            "Syntax error at line 1, column 55 near '0': expected a number of buckets of at least 1");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) BUCKETS 99999999999999999999").message(),
            "Syntax error at line 1, column 55 near '99999999999999999999': expected a number of buckets (this "
            "number is too large)");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) DISTRIBUTED BY LIST(a)").message(),
            "Syntax error at line 1, column 39 near 'LIST': expected HASH or RANDOM");
}

TEST(CreateTableTest, OptionsInAnyOrderButOnce) {
  CreateTable ct = ParseAs<CreateTable>(
      "CREATE TABLE t (a INT) PROPERTIES (\"x\"=\"1\") DISTRIBUTED BY HASH(a) COMMENT 'c' DUPLICATE KEY(a)");
  EXPECT_EQ(ct.comment, "c");
  EXPECT_EQ(ct.key_model, KeyModel::kDuplicate);
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) COMMENT 'a' COMMENT 'b'").message(),
            "Syntax error at line 1, column 36 near 'COMMENT': COMMENT is written twice");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) DUPLICATE KEY(a) UNIQUE KEY(a)").message(),
            "Syntax error at line 1, column 41 near 'UNIQUE': the table's key is already given at line 1, column "
            "24; a table has one key (DUPLICATE, AGGREGATE, UNIQUE or PRIMARY KEY)");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT PRIMARY KEY) PRIMARY KEY(a)").message(),
            "Syntax error at line 1, column 36 near 'PRIMARY': the key is given both here and as PRIMARY KEY on "
            "column 'a'; give it once");
}

TEST(CreateTableTest, UnsupportedThingsSayWhy) {
  Status st = ParseError("CREATE TABLE t (a INT, b BITMAP BITMAP_UNION) AGGREGATE KEY(a)");
  EXPECT_EQ(st.code(), StatusCode::kNotSupported);
  EXPECT_EQ(st.message(),
            "the aggregate function BITMAP_UNION of column 'b' is not supported; use SUM, MAX, MIN, REPLACE or "
            "REPLACE_IF_NOT_NULL (at line 1, column 33)");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT, h HLL HLL_UNION)").code(), StatusCode::kNotSupported);
  st = ParseError("CREATE TABLE t (a INT) ENGINE = mysql");
  EXPECT_EQ(st.code(), StatusCode::kNotSupported);
  EXPECT_EQ(st.message(),
            "ENGINE = mysql is not supported: Sluice tables are OLAP tables (write ENGINE = OLAP or leave ENGINE "
            "out) (at line 1, column 33)");
}

TEST(CreateTableTest, IndexesAreAcceptedAndIgnored) {
  CreateTable ct = ParseAs<CreateTable>(
      "CREATE TABLE t (a INT, b STRING, INDEX i1 (a) USING BITMAP, INDEX i2 (b) USING NGRAMBF (\"gram_num\" = "
      "\"4\") COMMENT '', index VARCHAR(10))");
  ASSERT_EQ(ct.columns.size(), 3u);
  EXPECT_EQ(ct.columns[2].name, "index");
}

TEST(CreateTableTest, QuotedNames) {
  CreateTable ct = ParseAs<CreateTable>("CREATE TABLE `my db`.\"my table\" (`select` INT, \"from\" STRING)");
  EXPECT_EQ(ct.table.db, "my db");
  EXPECT_EQ(ct.table.name, "my table");
  EXPECT_EQ(ct.columns[0].name, "select");
  EXPECT_EQ(ct.columns[1].name, "from");
}

TEST(CreateTableTest, SyntaxErrorsNameThePositionAndTheAlternatives) {
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) ENGINE=OLAP DUPLICAT KEY (a)").message(),
            "Syntax error at line 1, column 36 near 'DUPLICAT': expected one of DUPLICATE KEY, AGGREGATE KEY, "
            "UNIQUE KEY, PRIMARY KEY, COMMENT, PARTITION BY, DISTRIBUTED BY, ORDER BY, PROPERTIES or end of "
            "statement");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) DUPLICATE (a)").message(),
            "Syntax error at line 1, column 34 near '(': expected KEY");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT").message(),
            "Syntax error at line 1, column 22 near end of input: expected one of NULL, NOT NULL, DEFAULT, COMMENT, "
            "AUTO_INCREMENT, PRIMARY KEY, SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL, ',' or ')'");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INTEGR)").message(),
            "Syntax error at line 1, column 19 near 'INTEGR': expected a column type (INT, BIGINT, DOUBLE, "
            "DECIMAL(p,s), VARCHAR(n), STRING, DATE, DATETIME, TIMESTAMP, BOOLEAN, JSON, ARRAY<T>, MAP<K,V> or "
            "STRUCT<name T, ...>)");
  EXPECT_EQ(ParseError("CREATE TABLE t (\n  a INT,\n  b VARCHAR(26) NOT NUL\n)").message(),
            "Syntax error at line 3, column 17 near 'NOT': expected one of NULL, NOT NULL, DEFAULT, COMMENT, "
            "AUTO_INCREMENT, PRIMARY KEY, SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL, ',' or ')'");
  EXPECT_EQ(ParseError("CREATE TABLE t (a VARCHAR(1, 2))").message(),
            "Syntax error at line 1, column 30 near '2': expected ')': VARCHAR takes at most 1 parameter");
  EXPECT_EQ(ParseError("CREATE TABLE t (a STRING(10))").message(),
            "Syntax error at line 1, column 25 near '(': expected no '(' after STRING: this type takes no length or "
            "precision");
  EXPECT_EQ(ParseError("CREATE TABLE t (a array<int)").message(),
            "Syntax error at line 1, column 28 near ')': expected '>'");
  EXPECT_EQ(ParseError("CREATE TABLE t (a map<int>)").message(),
            "Syntax error at line 1, column 26 near '>': expected ','");
  EXPECT_EQ(ParseError("CREATE TABLE t (a struct<x int y int>)").message(),
            "Syntax error at line 1, column 32 near 'y': expected ',' or '>'");
  EXPECT_EQ(ParseError("CREATE TABLE t").message(),
            "Syntax error at line 1, column 15 near end of input: expected one of '(', AS or LIKE");
  EXPECT_EQ(ParseError("CREATE TABLE t ()").message(),
            "Syntax error at line 1, column 17 near ')': expected a column name, PRIMARY KEY or INDEX");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT NULL NOT NULL)").message(),
            "Syntax error at line 1, column 28 near 'NOT': NULL / NOT NULL is written twice for column 'a'");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT DEFAULT)").message(),
            "Syntax error at line 1, column 30 near ')': expected a default value (a string, a number, NULL, "
            "CURRENT_TIMESTAMP or a parenthesized expression)");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) PROPERTIES (\"a\" \"b\")").message(),
            "Syntax error at line 1, column 40 near '\"b\"': expected '='");
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) PROPERTIES (\"a\" = \"b\"").message(),
            "Syntax error at line 1, column 45 near end of input: expected ',' or ')'");
}

TEST(CreateTableTest, VariantsDuckDBRunsPassThrough) {
  EXPECT_EQ(PassThroughSql("CREATE TABLE t2 AS SELECT * FROM `t1`"), "CREATE TABLE t2 AS SELECT * FROM \"t1\"");
  EXPECT_EQ(PassThroughSql("CREATE OR REPLACE TEMP TABLE t (a INT)"), "CREATE OR REPLACE TEMP TABLE t (a INT)");
  EXPECT_EQ(PassThroughSql("create temporary table t (a int)"), "create temporary table t (a int)");
}

}  // namespace
}  // namespace sluice::sql
