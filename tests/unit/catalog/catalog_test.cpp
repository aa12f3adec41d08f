#include "catalog/catalog.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/test_points.h"
#include "sql/parser.h"

namespace sluice::catalog {
namespace {

sql::ColumnDef Col(std::string name, std::string type, std::vector<int64_t> params = {},
                   sql::AggregateFunction agg = sql::AggregateFunction::kNone) {
  sql::ColumnDef c;
  c.name = std::move(name);
  c.type.name = std::move(type);
  c.type.params = std::move(params);
  c.aggregate = agg;
  return c;
}

sql::CreateTable OrdersTable() {
  sql::CreateTable t;
  t.table = {"", "orders"};
  t.engine = "OLAP";
  t.columns = {Col("order_id", "BIGINT", {20}), Col("pay_dt", "DATE"), Col("customer_name", "VARCHAR", {26}),
               Col("price", "DOUBLE")};
  t.columns[0].nullable = false;
  t.columns[0].comment = "Order ID";
  t.key_model = sql::KeyModel::kDuplicate;
  t.key_columns = {"order_id", "pay_dt"};
  t.distribution_columns = {"order_id"};
  return t;
}

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = storage::Database::Open("");
    ASSERT_TRUE(db.ok());
    db_ = std::move(db).value();
    auto cat = Catalog::Open(*db_, [this] { return now_; });
    ASSERT_TRUE(cat.ok()) << cat.status().ToString();
    catalog_ = std::move(cat).value();
    ASSERT_TRUE(catalog_->CreateDatabase("shop", false).ok());
  }
  int64_t now_ = 1'700'000'000;
  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<Catalog> catalog_;
};

TEST(TableDefinitionTest, KeysMustLeadTheColumns) {
  auto t = OrdersTable();
  t.key_columns = {"pay_dt"};
  auto meta = BuildTableMeta("shop", t);
  ASSERT_FALSE(meta.ok());
  EXPECT_NE(meta.status().message().find("first columns"), std::string::npos) << meta.status().message();
}

TEST(TableDefinitionTest, UnknownKeyColumnIsNamed) {
  auto t = OrdersTable();
  t.key_columns = {"nope"};
  auto meta = BuildTableMeta("shop", t);
  ASSERT_FALSE(meta.ok());
  EXPECT_NE(meta.status().message().find("'nope'"), std::string::npos);
}

TEST(TableDefinitionTest, AggregateTablesNeedFunctionsOnValueColumns) {
  auto t = OrdersTable();
  t.key_model = sql::KeyModel::kAggregate;
  auto meta = BuildTableMeta("shop", t);
  ASSERT_FALSE(meta.ok());
  EXPECT_NE(meta.status().message().find("needs an aggregate function"), std::string::npos);
  t.columns[2].aggregate = sql::AggregateFunction::kReplace;
  t.columns[3].aggregate = sql::AggregateFunction::kSum;
  auto ok = BuildTableMeta("shop", t);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->columns[3].aggregate, "SUM");
}

TEST(TableDefinitionTest, AggregateFunctionOutsideAggregateTableIsRejected) {
  auto t = OrdersTable();
  t.columns[3].aggregate = sql::AggregateFunction::kSum;
  EXPECT_FALSE(BuildTableMeta("shop", t).ok());
}

TEST(TableDefinitionTest, OlapTableWithoutKeyGetsDuplicateKeyOnFirstColumns) {
  auto t = OrdersTable();
  t.key_model = sql::KeyModel::kNone;
  t.key_columns.clear();
  auto meta = BuildTableMeta("shop", t);
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->key_model, "DUPLICATE");
  EXPECT_EQ(meta->key_columns, (std::vector<std::string>{"order_id", "pay_dt", "customer_name"}));
}

TEST(TableDefinitionTest, PrimaryKeyColumnsAreNotNullAndEnforced) {
  auto t = OrdersTable();
  t.key_model = sql::KeyModel::kPrimary;
  auto meta = BuildTableMeta("shop", t);
  ASSERT_TRUE(meta.ok());
  EXPECT_FALSE(meta->columns[1].nullable);
  EXPECT_NE(DuckDBCreateTableSql(*meta).find("PRIMARY KEY (\"order_id\", \"pay_dt\")"), std::string::npos);
}

TEST(TableDefinitionTest, RenderedCreateTableShowsStarRocksClauses) {
  auto t = OrdersTable();
  t.buckets = 8;
  t.properties = {{"replication_num", "1"}};
  auto meta = BuildTableMeta("shop", t);
  ASSERT_TRUE(meta.ok());
  std::string text = RenderCreateTable(*meta);
  EXPECT_NE(text.find("`order_id` bigint NOT NULL COMMENT \"Order ID\""), std::string::npos) << text;
  EXPECT_NE(text.find("`customer_name` varchar(26) NULL"), std::string::npos) << text;
  EXPECT_NE(text.find("DUPLICATE KEY(`order_id`, `pay_dt`)"), std::string::npos) << text;
  EXPECT_NE(text.find("DISTRIBUTED BY HASH(`order_id`) BUCKETS 8"), std::string::npos) << text;
  EXPECT_NE(text.find("\"replication_num\" = \"1\""), std::string::npos) << text;
}

TEST_F(CatalogTest, CreateDescribeAndList) {
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  auto tables = catalog_->ListTables("shop");
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(*tables, std::vector<std::string>{"orders"});
  auto meta = catalog_->DescribeTable("shop", "orders");
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->columns.size(), 4u);
  EXPECT_EQ(meta->columns[0].type_text, "bigint");
  EXPECT_FALSE(meta->columns[0].nullable);
  EXPECT_TRUE(meta->columns[1].is_key);
  EXPECT_EQ(meta->columns[2].type_text, "varchar(26)");
  EXPECT_EQ(catalog_->CreateTable("shop", OrdersTable()).code(), StatusCode::kTableExists);
  auto again = OrdersTable();
  again.if_not_exists = true;
  EXPECT_TRUE(catalog_->CreateTable("shop", again).ok());
}

// DescribeTable keeps its answers until the catalog changes; every change is seen by the next call, whether it
// came through the catalog or through SQL on another connection.
TEST_F(CatalogTest, KeptDescriptionsFollowEveryChange) {
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  auto con = db_->Connect();
  ASSERT_TRUE(con.ok());
  ASSERT_EQ(catalog_->DescribeTable("shop", "orders")->columns.size(), 4u);
  ASSERT_EQ(catalog_->DescribeTable("shop", "orders")->columns.size(), 4u);  // kept
  const uint64_t epoch = db_->catalog_epoch();
  ASSERT_TRUE((*con)->Execute("ALTER TABLE shop.orders ADD COLUMN note VARCHAR").ok());
  EXPECT_GT(db_->catalog_epoch(), epoch);
  auto altered = catalog_->DescribeTable("shop", "orders");
  ASSERT_TRUE(altered.ok());
  ASSERT_EQ(altered->columns.size(), 5u);
  EXPECT_EQ(altered->columns[4].name, "note");
  // A comment is Sluice's metadata, not DDL to DuckDB: the catalog forgets its answers itself.
  sql::AlterTable comment;
  comment.table = {"shop", "orders"};
  sql::AlterTableClause clause;
  clause.kind = sql::AlterTableClause::Kind::kColumnComment;
  clause.column = "price";
  clause.comment = "the price";
  comment.clauses.push_back(clause);
  auto changed = catalog_->AlterTable("shop", comment);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  auto commented = catalog_->DescribeTable("shop", "orders");
  ASSERT_TRUE(commented.ok());
  EXPECT_EQ(commented->FindColumn("price")->comment, "the price");
  // Dropped through SQL: unknown at once; created again: described again; the database dropped: unknown.
  ASSERT_TRUE((*con)->Execute("DROP TABLE shop.orders").ok());
  EXPECT_EQ(catalog_->DescribeTable("shop", "orders").status().code(), StatusCode::kUnknownTable);
  EXPECT_EQ(catalog_->DescribeTable("shop", "orders").status().code(), StatusCode::kUnknownTable);
  ASSERT_TRUE((*con)->Execute("CREATE TABLE shop.orders (id BIGINT)").ok());
  ASSERT_TRUE(catalog_->DescribeTable("shop", "orders").ok());
  EXPECT_EQ(catalog_->DescribeTable("shop", "orders")->columns.size(), 1u);
  EXPECT_TRUE(catalog_->DatabaseExists("shop"));
  ASSERT_TRUE((*con)->Execute("DROP SCHEMA shop CASCADE").ok());
  EXPECT_FALSE(catalog_->DatabaseExists("shop"));
  EXPECT_EQ(catalog_->DescribeTable("shop", "orders").status().code(), StatusCode::kUnknownDatabase);
  ASSERT_TRUE(catalog_->CreateDatabase("shop", false).ok());
  EXPECT_TRUE(catalog_->DatabaseExists("shop"));
}

TEST_F(CatalogTest, UnknownDatabaseIsReported) {
  EXPECT_EQ(catalog_->CreateTable("nodb", OrdersTable()).code(), StatusCode::kUnknownDatabase);
  EXPECT_EQ(catalog_->ListTables("nodb").status().code(), StatusCode::kUnknownDatabase);
  EXPECT_EQ(catalog_->CreateDatabase("shop", false).code(), StatusCode::kDatabaseExists);
  EXPECT_TRUE(catalog_->CreateDatabase("shop", true).ok());
}

TEST_F(CatalogTest, DroppedTableComesBackWithItsData) {
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  auto con = db_->Connect();
  ASSERT_TRUE(con.ok());
  ASSERT_TRUE((*con)->Execute("INSERT INTO shop.orders VALUES (1, DATE '2020-05-08', 'a', 2.5)").ok());
  ASSERT_TRUE(catalog_->DropTable("shop", "orders", false, false).ok());
  EXPECT_TRUE(catalog_->ListTables("shop")->empty());
  auto history = catalog_->ListDroppedTables("shop");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].name, "orders");
  EXPECT_EQ((*history)[0].deadline, "2023-11-15 22:13:20");

  ASSERT_TRUE(catalog_->UndropTable("shop", "orders").ok());
  auto count = (*con)->Query("SELECT count(*), sum(price) FROM shop.orders");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count->result_set->rows[0][0], "1");
  auto meta = catalog_->DescribeTable("shop", "orders");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->key_model, "DUPLICATE");
}

TEST_F(CatalogTest, UndropFailsWhenTheNameIsTakenAgain) {
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  ASSERT_TRUE(catalog_->DropTable("shop", "orders", false, false).ok());
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  Status st = catalog_->UndropTable("shop", "orders");
  EXPECT_EQ(st.code(), StatusCode::kTableExists);
  EXPECT_NE(st.message().find("exists again"), std::string::npos);
}

TEST_F(CatalogTest, RetentionPassesAndPurgeDeletes) {
  auto t = OrdersTable();
  t.properties = {{"undrop_retention_seconds", "60"}};
  ASSERT_TRUE(catalog_->CreateTable("shop", t).ok());
  ASSERT_TRUE(catalog_->DropTable("shop", "orders", false, false).ok());
  now_ += 61;
  EXPECT_TRUE(catalog_->ListDroppedTables("shop")->empty());
  EXPECT_EQ(catalog_->UndropTable("shop", "orders").code(), StatusCode::kUnknownTable);
  auto purged = catalog_->PurgeExpiredDroppedTables();
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 1);
  auto con = db_->Connect();
  auto left = (*con)->Query("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'shop'");
  EXPECT_EQ(*left->result_set->rows[0][0], "0");
}

sql::AlterTable ParseAlter(const std::string& text) {
  auto st = sql::ParseStatement(text, sql::SessionContext{});
  EXPECT_TRUE(st.ok()) << st.status().ToString();
  return st.ok() ? std::get<sql::AlterTable>(*st) : sql::AlterTable{};
}

TEST_F(CatalogTest, AlterRebuildsInOneTransaction) {
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  auto con = db_->Connect();
  ASSERT_TRUE((*con)->Execute("INSERT INTO shop.orders VALUES (1, DATE '2020-05-08', 'a', 2.5)").ok());
  // A failure between the copy and the swap leaves the table, its rows and its metadata as they were.
  ASSERT_TRUE(ArmTestPoints("alter_table.inside=error").ok());
  EXPECT_FALSE(catalog_->AlterTable("shop", ParseAlter("ALTER TABLE orders ADD COLUMN note varchar(3) AFTER pay_dt")).ok());
  ASSERT_TRUE(ArmTestPoints("").ok());
  auto before = catalog_->DescribeTable("shop", "orders");
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->columns.size(), 4u);
  auto altered = catalog_->AlterTable("shop", ParseAlter("ALTER TABLE orders ADD COLUMN note varchar(3) AFTER pay_dt, "
                                                         "MODIFY COLUMN price decimal(10,2) COMMENT 'p'"));
  ASSERT_TRUE(altered.ok()) << altered.status().ToString();
  auto meta = catalog_->DescribeTable("shop", "orders");
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->columns.size(), 5u);
  EXPECT_EQ(meta->columns[2].name, "note");
  EXPECT_EQ(meta->columns[2].type_text, "varchar(3)");
  EXPECT_EQ(meta->columns[4].type_text, "decimal(10,2)");
  EXPECT_EQ(meta->columns[4].comment, "p");
  EXPECT_EQ(meta->columns[0].comment, "Order ID");
  EXPECT_EQ(meta->key_model, "DUPLICATE");
  auto rows = (*con)->Query("SELECT * FROM shop.orders");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->result_set->columns[2].name, "note");
  EXPECT_EQ(*rows->result_set->rows[0][4], "2.50");
  EXPECT_FALSE((*con)->Execute("INSERT INTO shop.orders (order_id, pay_dt, note) VALUES (2, DATE '2020-01-01', 'abcd')").ok())
      << "the new varchar(3) is enforced";
}

// Without a clock of its own the catalog reads the common wall clock, so a test can move it there too.
TEST(CatalogClockTest, DefaultClockIsTheWallClock) {
  ManualWallClock manual(1'700'000'000'000);
  ScopedWallClockOverride use(manual);
  auto db = storage::Database::Open("");
  ASSERT_TRUE(db.ok());
  auto cat = Catalog::Open(**db);
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  ASSERT_TRUE((*cat)->CreateDatabase("shop", false).ok());
  auto t = OrdersTable();
  t.properties = {{"undrop_retention_seconds", "60"}};
  ASSERT_TRUE((*cat)->CreateTable("shop", t).ok());
  ASSERT_TRUE((*cat)->DropTable("shop", "orders", false, false).ok());
  manual.AdvanceMs(59'000);
  EXPECT_EQ((*cat)->ListDroppedTables("shop")->size(), 1u);
  auto kept = (*cat)->PurgeExpiredDroppedTables();
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, 0);
  manual.AdvanceMs(2'000);
  auto purged = (*cat)->PurgeExpiredDroppedTables();
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 1);
  EXPECT_TRUE((*cat)->ListDroppedTables("shop")->empty());
}

TEST_F(CatalogTest, ForceDropIsFinal) {
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  ASSERT_TRUE(catalog_->DropTable("shop", "orders", false, true).ok());
  EXPECT_TRUE(catalog_->ListDroppedTables("shop")->empty());
  EXPECT_EQ(catalog_->DropTable("shop", "orders", false, false).code(), StatusCode::kUnknownTable);
  EXPECT_TRUE(catalog_->DropTable("shop", "orders", true, false).ok());
}

TEST_F(CatalogTest, DropDatabaseTakesItsTables) {
  ASSERT_TRUE(catalog_->CreateTable("shop", OrdersTable()).ok());
  ASSERT_TRUE(catalog_->DropDatabase("shop", false).ok());
  EXPECT_FALSE(catalog_->DatabaseExists("shop"));
  EXPECT_EQ(catalog_->DropDatabase("shop", false).code(), StatusCode::kUnknownDatabase);
  EXPECT_TRUE(catalog_->DropDatabase("shop", true).ok());
  auto dbs = catalog_->ListDatabases();
  ASSERT_TRUE(dbs.ok());
  EXPECT_EQ(*dbs, std::vector<std::string>{"main"});
}

}  // namespace
}  // namespace sluice::catalog
