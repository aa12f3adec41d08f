#include "catalog/pipe_definition.h"

#include <gtest/gtest.h>

#include "sql/ast.h"

namespace sluice::catalog {
namespace {

sql::CreatePipe VolumePipe(std::vector<std::pair<std::string, std::string>> properties) {
  sql::CreatePipe stmt;
  stmt.name = "p";
  stmt.table = "t";
  stmt.properties = std::move(properties);
  auto copy = std::make_shared<sql::CopyIntoFromVolume>();
  copy->table = "t";
  copy->volume = "v";
  copy->format = "CSV";
  copy->options = {{"header", "true"}};
  copy->subdirectory = "in/";
  copy->on_error = "CONTINUE";
  stmt.volume_copy = copy;
  stmt.copy_text = "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'in/'";
  return stmt;
}

TEST(PipeDefinitionTest, VolumePipeKeepsItsCopyAcrossJson) {
  auto def = BuildPipe(VolumePipe({{"INGEST_MODE", "list"}, {"BATCH_INTERVAL_IN_SECONDS", "5"}}), "d", {"id"});
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  ASSERT_TRUE(def->pipe && def->pipe->volume);
  EXPECT_EQ(def->pipe->volume->ingest_mode, "LIST");
  EXPECT_EQ(def->Property("max_batch_interval"), "5");
  auto back = DefinitionFromJson(DefinitionToJson(*def));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->pipe && back->pipe->volume);
  const VolumePipeSpec& v = *back->pipe->volume;
  EXPECT_EQ(v.volume, "v");
  EXPECT_EQ(v.format, "CSV");
  EXPECT_EQ(v.options, (std::vector<std::pair<std::string, std::string>>{{"header", "true"}}));
  EXPECT_EQ(v.subdirectory, "in/");
  EXPECT_TRUE(v.continue_on_error);
  EXPECT_EQ(v.ingest_mode, "LIST");
  EXPECT_EQ(back->pipe->copy_statement, def->pipe->copy_statement);
  // a Kafka pipe's settings come back without a volume
  PipeSettings kafka;
  EXPECT_FALSE(PipeSettingsFromJson(PipeSettingsToJson(kafka)).volume.has_value());
}

TEST(PipeDefinitionTest, VolumePipePropertiesAreChecked) {
  auto bad_mode = BuildPipe(VolumePipe({{"INGEST_MODE", "MOVE"}}), "d", {"id"});
  ASSERT_FALSE(bad_mode.ok());
  EXPECT_NE(bad_mode.status().message().find("INGEST_MODE must be 'LIST_PURGE'"), std::string::npos);
  auto kafka_only = BuildPipe(VolumePipe({{"RESET_KAFKA_GROUP_OFFSETS", "earliest"}}), "d", {"id"});
  ASSERT_FALSE(kafka_only.ok());
  EXPECT_NE(kafka_only.status().message().find("applies to Kafka pipes"), std::string::npos);
  auto def = BuildPipe(VolumePipe({}), "d", {"id"});
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def->pipe->volume->ingest_mode, "LIST_PURGE");
  EXPECT_FALSE(AlterPipeProperty(*def, "INGEST_MODE", "LIST").ok());
  EXPECT_TRUE(AlterPipeProperty(*def, "BATCH_INTERVAL_IN_SECONDS", "2").ok());
  EXPECT_EQ(def->Property("max_batch_interval"), "2");
}

// COPY INTO lake.db.t FROM (SELECT ... FROM READ_KAFKA(...)): the definition keeps the Iceberg target (its catalog
// and namespace) across the stored JSON, and the pacing property maps onto the routine load's.
TEST(PipeDefinitionTest, KafkaPipeIntoIcebergKeepsItsTarget) {
  sql::CreatePipe stmt;
  stmt.name = "p";
  stmt.table_catalog = "lake";
  stmt.table_db = "ns";
  stmt.table = "t";
  stmt.properties = {{"ICEBERG_COMMIT_INTERVAL_IN_SECONDS", "3"}};
  stmt.select = {{"CAST(value AS BIGINT)", std::string("id")}};
  stmt.kafka_args = {"b:9092", "topic", "", "g", "", "", "", "", "raw", "raw", "0"};
  stmt.copy_text = "COPY INTO lake.ns.t FROM (SELECT CAST(value AS BIGINT) AS id FROM READ_KAFKA(...))";
  auto def = BuildPipe(stmt, "d", {"id"});
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_TRUE(def->iceberg_target());
  EXPECT_EQ(def->TargetName(), "lake.ns.t");
  EXPECT_EQ(def->Property("iceberg.commit_interval_seconds"), "3");
  auto back = DefinitionFromJson(DefinitionToJson(*def));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->TargetName(), "lake.ns.t");
  EXPECT_EQ(back->db, "d");
  ASSERT_TRUE(back->pipe);

  // Into a DuckDB table the property is refused, naming the table.
  stmt.table_catalog.clear();
  stmt.table_db.clear();
  auto plain = BuildPipe(stmt, "d", {"id"});
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("applies to pipes into Iceberg tables"), std::string::npos)
      << plain.status().message();
}

}  // namespace
}  // namespace sluice::catalog
