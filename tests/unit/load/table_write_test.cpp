// Loads that change data (load/table_write.h): the statement a task runs for each key model, run against a real
// DuckDB over a real sluice_batch, with the transform compiled as a routine load compiles it.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/routine_load_job.h"
#include "catalog/table_meta.h"
#include "common/text_batch.h"
#include "load/table_write.h"
#include "storage/batch_table_function.h"
#include "storage/database.h"
#include "transform/compiler.h"

namespace sluice::load {
namespace {

using Cell = std::optional<std::string>;
using Rows = std::vector<std::vector<Cell>>;

struct Col {
  Col(std::string n, std::string t, bool k = false, std::string agg = "", std::optional<std::string> def = std::nullopt)
      : name(std::move(n)), type(std::move(t)), key(k), aggregate(std::move(agg)), default_sql(std::move(def)) {}
  std::string name;
  std::string type;
  bool key = false;
  std::string aggregate;
  std::optional<std::string> default_sql;
};

class TableWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = storage::Database::Open("");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    auto con = db_->Connect();
    ASSERT_TRUE(con.ok());
    con_ = std::move(*con);
    ASSERT_TRUE(storage::RegisterBatchTableFunction(*con_).ok());
  }

  // Creates table t the way catalog/ does (PRIMARY/UNIQUE get a DuckDB primary key) and remembers its meta.
  void CreateTable(const std::string& model, const std::vector<Col>& cols) {
    meta_ = catalog::TableMeta{};
    meta_.db = "main";
    meta_.name = "t";
    meta_.key_model = model;
    std::string ddl = "CREATE TABLE t (";
    std::string keys;
    for (const auto& c : cols) {
      catalog::ColumnMeta m;
      m.name = c.name;
      m.duckdb_type = c.type;
      m.is_key = c.key;
      m.nullable = !(c.key && (model == "PRIMARY" || model == "UNIQUE"));
      m.aggregate = c.aggregate;
      m.default_sql = c.default_sql;
      meta_.columns.push_back(m);
      if (c.key) {
        meta_.key_columns.push_back(c.name);
        keys += (keys.empty() ? "" : ", ") + c.name;
      }
      ddl += (ddl.back() == '(' ? "" : ", ") + c.name + " " + c.type + (m.nullable ? "" : " NOT NULL") +
             (c.default_sql ? " DEFAULT " + *c.default_sql : "");
    }
    if (model == "PRIMARY" || model == "UNIQUE") ddl += ", PRIMARY KEY (" + keys + ")";
    ASSERT_TRUE(con_->Query(ddl + ")").ok()) << ddl;
  }

  Result<TableWrite> Plan(const std::vector<std::string>& columns, const std::vector<std::pair<std::string, std::string>>& derived = {}) {
    columns_ = columns;
    transform::TransformSpec spec;
    for (const auto& c : meta_.columns) spec.table.push_back({c.name, c.duckdb_type, c.nullable});
    spec.source_columns = columns;
    spec.derived = derived;
    auto compiled = transform::Compile(spec);
    if (!compiled.ok()) return compiled.status();
    compiled_ = *compiled;
    return PlanTableWrite(def_, meta_, "t", compiled_.loaded_columns, compiled_.has_op);
  }

  // One batch through the planned write, in one statement.
  void Load(const TableWrite& write, const Rows& rows) {
    TextBatch batch(columns_);
    for (size_t r = 0; r < rows.size(); r++) {
      batch.BeginRow();
      for (size_t c = 0; c < rows[r].size(); c++) {
        if (rows[r][c]) batch.SetField(c, *rows[r][c]);
      }
      batch.FinishRow({0, static_cast<int64_t>(r)});
    }
    storage::BatchHandle handle(batch);
    std::string sql = BindTableWrite(write, "(" + compiled_.Bind(handle.id()) + ") AS __sluice_task");
    auto res = con_->Query(sql);
    ASSERT_TRUE(res.ok()) << res.status().ToString() << "\n" << sql;
  }

  std::string Table(const std::string& order = "1") {
    auto res = con_->Query("SELECT * FROM t ORDER BY " + order);
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    std::string out;
    for (const auto& row : res->result_set->rows) {
      for (size_t c = 0; c < row.size(); c++) out += (c ? "," : "") + row[c].value_or("NULL");
      out += ";";
    }
    return out;
  }

  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Connection> con_;
  catalog::TableMeta meta_;
  catalog::RoutineLoadDefinition def_;
  std::vector<std::string> columns_;
  transform::CompiledTransform compiled_;
};

TEST_F(TableWriteTest, DuplicateKeyTablesAppend) {
  CreateTable("DUPLICATE", {{"id", "BIGINT", true}, {"v", "INTEGER"}});
  auto w = Plan({"id", "v"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE(w->append);
  Load(*w, {{"1", "10"}, {"1", "11"}});
  EXPECT_EQ(Table("2"), "1,10;1,11;");
}

TEST_F(TableWriteTest, PrimaryKeyUpsertsAndTheLaterRowOfABatchWins) {
  CreateTable("PRIMARY", {{"id", "BIGINT", true}, {"v", "INTEGER"}, {"s", "VARCHAR", false, "", "'dflt'"}});
  auto w = Plan({"id", "v", "s"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_FALSE(w->append);
  Load(*w, {{"1", "10", "a"}, {"2", "20", "b"}, {"1", "11", "c"}, {"1", "12", std::nullopt}});
  EXPECT_EQ(Table(), "1,12,NULL;2,20,b;");
  Load(*w, {{"2", "21", "x"}, {"3", "30", "y"}});
  EXPECT_EQ(Table(), "1,12,NULL;2,21,x;3,30,y;");
}

TEST_F(TableWriteTest, PrimaryKeyFullUpsertResetsColumnsTheLoadDoesNotFill) {
  CreateTable("PRIMARY", {{"id", "BIGINT", true}, {"v", "INTEGER"}, {"s", "VARCHAR", false, "", "'dflt'"}});
  ASSERT_TRUE(con_->Query("INSERT INTO t VALUES (1, 1, 'kept?')").ok());
  auto w = Plan({"id", "v"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  Load(*w, {{"1", "5"}, {"2", "6"}});
  EXPECT_EQ(Table(), "1,5,dflt;2,6,dflt;");
}

TEST_F(TableWriteTest, PrimaryKeyDeletesByOp) {
  CreateTable("PRIMARY", {{"id", "BIGINT", true}, {"v", "INTEGER"}});
  ASSERT_TRUE(con_->Query("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)").ok());
  auto w = Plan({"id", "v", "__op"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // 1: deleted; 2: deleted then upserted again in the same batch; 3: upserted then deleted; 4: delete of a key
  // that is not there; 5: inserted, deleted, inserted.
  Load(*w, {{"1", "", "1"},
            {"2", "", "delete"},
            {"2", "22", "upsert"},
            {"3", "33", "0"},
            {"3", "", "1"},
            {"4", "", "1"},
            {"5", "50", "0"},
            {"5", "", "1"},
            {"5", "55", "0"}});
  EXPECT_EQ(Table(), "2,22;5,55;");
}

TEST_F(TableWriteTest, PartialUpdateChangesOnlyListedColumnsAndInsertsNewKeysWithDefaults) {
  CreateTable("PRIMARY", {{"id", "BIGINT", true}, {"v", "INTEGER"}, {"s", "VARCHAR", false, "", "'dflt'"}});
  ASSERT_TRUE(con_->Query("INSERT INTO t VALUES (1, 1, 'one'), (2, 2, 'two')").ok());
  def_.job_properties["partial_update"] = "true";
  auto w = Plan({"id", "v"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  Load(*w, {{"1", "100"}, {"3", "300"}});
  EXPECT_EQ(Table(), "1,100,one;2,2,two;3,300,dflt;");
}

TEST_F(TableWriteTest, MergeConditionAppliesOnlyNewerVersions) {
  CreateTable("PRIMARY", {{"id", "BIGINT", true}, {"ver", "INTEGER"}, {"v", "VARCHAR"}});
  ASSERT_TRUE(con_->Query("INSERT INTO t VALUES (1, 5, 'stored'), (2, 5, 'stored'), (3, 5, 'stored')").ok());
  def_.job_properties["merge_condition"] = "ver";
  auto w = Plan({"id", "ver", "v", "__op"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // 1: older -> ignored; 2: equal -> applies; 3: newer, then an older one later in the batch -> the newer stays;
  // 4: new key; 5: new key, two versions out of order.
  Load(*w, {{"1", "4", "old", "0"},
            {"2", "5", "same", "0"},
            {"3", "9", "newer", "0"},
            {"3", "7", "late-but-older", "0"},
            {"4", "1", "new", "0"},
            {"5", "3", "v3", "0"},
            {"5", "2", "v2", "0"}});
  EXPECT_EQ(Table(), "1,5,stored;2,5,same;3,9,newer;4,1,new;5,3,v3;");
  // A delete always applies; after a delete in the batch, the next version is inserted whatever its ver.
  Load(*w, {{"1", "", "", "1"}, {"2", "", "", "1"}, {"2", "0", "after-delete", "0"}});
  EXPECT_EQ(Table(), "2,0,after-delete;3,9,newer;4,1,new;5,3,v3;");
}

// Why keyed commits retry (routine_load_task.cpp): DuckDB does not let a key deleted by one transaction be inserted
// again while a transaction that began before the delete is still open; once it ends, the insert works.
TEST_F(TableWriteTest, ReinsertingAKeyWhileAnOlderTransactionIsOpenIsATransientConflict) {
  CreateTable("PRIMARY", {{"id", "BIGINT", true}, {"v", "INTEGER"}});
  ASSERT_TRUE(con_->Query("INSERT INTO t VALUES (1, 1)").ok());
  auto w = Plan({"id", "v", "__op"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto reader = db_->Connect();
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->Execute("BEGIN TRANSACTION").ok());
  ASSERT_TRUE((*reader)->Query("SELECT count(*) FROM t").ok());
  Load(*w, {{"1", "", "1"}});
  TextBatch batch(columns_);
  batch.BeginRow();
  batch.SetField(0, "1");
  batch.SetField(1, "2");
  batch.SetField(2, "0");
  batch.FinishRow({0, 0});
  storage::BatchHandle handle(batch);
  const std::string sql = BindTableWrite(*w, "(" + compiled_.Bind(handle.id()) + ") AS __sluice_task");
  auto blocked = con_->Query(sql);
  ASSERT_FALSE(blocked.ok()) << "DuckDB let the key be inserted again";
  EXPECT_TRUE(IsTransientKeyConflict(blocked.status())) << blocked.status().ToString();
  ASSERT_TRUE((*reader)->Execute("COMMIT").ok());
  auto again = con_->Query(sql);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Table(), "1,2;");
}

TEST_F(TableWriteTest, UniqueKeyReplacesByKey) {
  CreateTable("UNIQUE", {{"id", "BIGINT", true}, {"v", "INTEGER"}});
  auto w = Plan({"id", "v"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  Load(*w, {{"1", "1"}, {"1", "2"}});
  Load(*w, {{"1", "3"}, {"2", "4"}});
  EXPECT_EQ(Table(), "1,3;2,4;");
}

TEST_F(TableWriteTest, AggregateKeyCombinesByEachColumnsFunction) {
  CreateTable("AGGREGATE", {{"k", "VARCHAR", true},
                            {"total", "DOUBLE", false, "SUM"},
                            {"hi", "INTEGER", false, "MAX"},
                            {"lo", "INTEGER", false, "MIN"},
                            {"last", "VARCHAR", false, "REPLACE"},
                            {"last_nn", "VARCHAR", false, "REPLACE_IF_NOT_NULL"}});
  auto w = Plan({"k", "total", "hi", "lo", "last", "last_nn"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  Load(*w, {{"a", "1.5", "3", "3", "x", "p"},
            {"b", "2", "1", "1", "y", "q"},
            {"a", "2.5", "7", "2", std::nullopt, std::nullopt},
            {std::nullopt, "1", "1", "1", "n", "n"}});
  EXPECT_EQ(Table("k NULLS LAST"), "a,4,7,2,NULL,p;b,2,1,1,y,q;NULL,1,1,1,n,n;");
  Load(*w, {{"a", "10", std::nullopt, "9", "z", std::nullopt},
            {"b", std::nullopt, "5", "0", "w", "r"},
            {std::nullopt, "1", "1", "1", "n2", "n2"}});
  EXPECT_EQ(Table("k NULLS LAST"), "a,14,7,2,z,p;b,2,5,0,w,r;NULL,2,1,1,n2,n2;");
}

TEST_F(TableWriteTest, AggregateColumnsTheLoadDoesNotFillKeepTheirValue) {
  CreateTable("AGGREGATE", {{"k", "INTEGER", true}, {"a", "BIGINT", false, "SUM"}, {"b", "BIGINT", false, "SUM", "0"}});
  auto w = Plan({"k", "a"});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(con_->Query("INSERT INTO t VALUES (1, 1, 100)").ok());
  Load(*w, {{"1", "2"}, {"2", "3"}});
  EXPECT_EQ(Table(), "1,3,100;2,3,0;");
}

TEST_F(TableWriteTest, SettingsThatNeedAPrimaryKeyTableSaySo) {
  CreateTable("DUPLICATE", {{"id", "BIGINT", true}, {"v", "INTEGER"}});
  auto op = Plan({"id", "v", "__op"});
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message(),
            "COLUMNS sets __op (delete by key), which needs a PRIMARY KEY table; table 't' is a DUPLICATE KEY table");
  def_.job_properties["partial_update"] = "true";
  auto partial = Plan({"id", "v"});
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.status().message(),
            "property \"partial_update\" needs a PRIMARY KEY table; table 't' is a DUPLICATE KEY table");
}

TEST_F(TableWriteTest, MergeConditionMustNameALoadedValueColumn) {
  CreateTable("PRIMARY", {{"id", "BIGINT", true}, {"ver", "INTEGER"}, {"v", "INTEGER"}});
  def_.job_properties["merge_condition"] = "nope";
  EXPECT_EQ(Plan({"id", "v"}).status().message(),
            "property \"merge_condition\" names column 'nope', which table 't' does not have");
  def_.job_properties["merge_condition"] = "id";
  EXPECT_EQ(Plan({"id", "v"}).status().message(),
            "property \"merge_condition\" names key column 'id'; it must be a value column");
  def_.job_properties["merge_condition"] = "ver";
  EXPECT_EQ(Plan({"id", "v"}).status().message(),
            "property \"merge_condition\" names column 'ver', which the load does not fill; add it to COLUMNS");
}

TEST_F(TableWriteTest, KeyColumnsMustBeLoaded) {
  CreateTable("AGGREGATE", {{"k", "INTEGER", true}, {"a", "BIGINT", false, "SUM"}});
  EXPECT_EQ(Plan({"a"}).status().message(),
            "key column 'k' of AGGREGATE KEY table 't' must be loaded: rows are matched by key; add it to COLUMNS");
}

}  // namespace
}  // namespace sluice::load
