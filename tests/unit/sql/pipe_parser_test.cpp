#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace sluice::sql::testing {
namespace {

TEST(PipeParserTest, CreateKafkaPipe) {
  auto p = ParseAs<CreatePipe>(
      "CREATE PIPE IF NOT EXISTS lake.p VIRTUAL_CLUSTER = 'default' BATCH_INTERVAL_IN_SECONDS = '60' "
      "COMMENT 'logs' AS COPY INTO t FROM (SELECT CAST(PARSE_JSON(value::STRING)['time'] AS TIMESTAMP), "
      "concat(a, ',', b) AS c, value FROM READ_KAFKA('b:9092', 'topic', '', 'g', '', '', '', '', 'raw', 'raw', 3, "
      "map('kafka.security.protocol', 'SASL_PLAINTEXT', 'kafka.sasl.password', 'pw')) WHERE (a > 1) AND b <> ')');");
  EXPECT_TRUE(p.if_not_exists);
  EXPECT_EQ(p.db, "lake");
  EXPECT_EQ(p.name, "p");
  ASSERT_EQ(p.properties.size(), 2u);
  EXPECT_EQ(p.properties[1], (std::pair<std::string, std::string>{"BATCH_INTERVAL_IN_SECONDS", "60"}));
  EXPECT_EQ(p.comment, "logs");
  EXPECT_EQ(p.table, "t");
  ASSERT_EQ(p.select.size(), 3u);
  EXPECT_EQ(p.select[0].expr, "CAST(PARSE_JSON(value::STRING)['time'] AS TIMESTAMP)");
  EXPECT_FALSE(p.select[0].alias);
  EXPECT_EQ(p.select[1].expr, "concat(a, ',', b)");
  EXPECT_EQ(p.select[1].alias, "c");
  EXPECT_EQ(p.select[2].expr, "value");
  EXPECT_EQ(p.kafka_args, (std::vector<std::string>{"b:9092", "topic", "", "g", "", "", "", "", "raw", "raw", "3"}));
  ASSERT_EQ(p.kafka_settings.size(), 2u);
  EXPECT_EQ(p.kafka_settings[1].second, "pw");
  EXPECT_EQ(p.where, "(a > 1) AND b <> ')'");
  EXPECT_EQ(p.copy_text.substr(0, 16), "COPY INTO t FROM");
  EXPECT_EQ(p.copy_text.back(), ')');
}

TEST(PipeParserTest, KafkaPipeIntoACatalogTableKeepsTheCatalog) {
  const std::string from = " FROM (SELECT value AS v FROM READ_KAFKA('b:9092', 't', '', 'g', '', '', '', '', 'raw', "
                           "'raw', 0, map()))";
  auto p = ParseAs<CreatePipe>("CREATE PIPE d.p AS COPY INTO lake.ns.t" + from);
  EXPECT_EQ(p.table_catalog, "lake");
  EXPECT_EQ(p.table_db, "ns");
  EXPECT_EQ(p.table, "t");
  // default_catalog is the server's own: db.t
  auto own = ParseAs<CreatePipe>("CREATE PIPE d.p AS COPY INTO default_catalog.d.t" + from);
  EXPECT_EQ(own.table_catalog, "");
  EXPECT_EQ(own.table_db, "d");
  // a volume pipe into an Iceberg table keeps the catalog too
  auto volume = ParseAs<CreatePipe>("CREATE PIPE p AS COPY INTO lake.ns.t FROM VOLUME v USING CSV");
  EXPECT_EQ(volume.table_catalog, "lake");
  EXPECT_EQ(volume.table_db, "ns");
  EXPECT_EQ(volume.table, "t");
  ASSERT_NE(volume.volume_copy, nullptr);
  EXPECT_EQ(volume.volume_copy->volume, "v");
}

TEST(PipeParserTest, CreateVolumePipe) {
  auto p = ParseAs<CreatePipe>(
      "CREATE PIPE p VIRTUAL_CLUSTER = 'default' INGEST_MODE = 'LIST' AS COPY INTO lake.t FROM VOLUME v "
      "(id INT, name STRING) USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'in/' ON_ERROR = CONTINUE;");
  EXPECT_EQ(p.table_db, "lake");
  EXPECT_EQ(p.table, "t");
  ASSERT_NE(p.volume_copy, nullptr);
  EXPECT_EQ(p.volume_copy->volume, "v");
  EXPECT_EQ(p.volume_copy->format, "CSV");
  ASSERT_EQ(p.volume_copy->file_columns.size(), 2u);
  EXPECT_EQ(p.volume_copy->subdirectory, "in/");
  EXPECT_EQ(p.volume_copy->on_error, "CONTINUE");
  EXPECT_EQ(p.copy_text,
            "COPY INTO lake.t FROM VOLUME v (id INT, name STRING) USING CSV OPTIONS ('header' = 'true') "
            "SUBDIRECTORY 'in/' ON_ERROR = CONTINUE");
  EXPECT_TRUE(p.kafka_args.empty());

  auto t = ParseAs<CreatePipe>(
      "CREATE PIPE p AS COPY INTO t FROM (SELECT CAST(a AS INT), upper(b) FROM VOLUME v USING JSON WHERE a <> '')");
  ASSERT_NE(t.volume_copy, nullptr);
  EXPECT_EQ(t.volume_copy->select_list, "CAST(a AS INT), upper(b)");
  EXPECT_EQ(t.volume_copy->where, "a <> ''");
  EXPECT_EQ(t.copy_text.back(), ')');

  EXPECT_NE(ParseError("CREATE PIPE p AS COPY INTO t FROM VOLUME v USING CSV FILES ('a.csv')").message().find(
                "FILES (...) is for one-shot COPY INTO"),
            std::string::npos);
  EXPECT_NE(ParseError("CREATE PIPE p AS COPY INTO t FROM VOLUME v USING CSV FORCE = TRUE").message().find(
                "FORCE is for one-shot COPY INTO"),
            std::string::npos);
  EXPECT_NE(ParseError("CREATE PIPE p AS COPY INTO t FROM VOLUME v USING XML").message().find("CSV"),
            std::string::npos);
}

TEST(PipeParserTest, ReadKafkaArgumentErrors) {
  EXPECT_NE(ParseError("CREATE PIPE p AS COPY INTO t FROM (SELECT value FROM READ_KAFKA('b', 't'))").message().find(
                "expected 12 arguments, got 2: READ_KAFKA(bootstrap_servers, topic, topic_pattern, group_id"),
            std::string::npos);
  EXPECT_NE(ParseError("CREATE PIPE p AS COPY INTO t FROM (SELECT value FROM READ_KAFKA('b', 't', '', 'g', '', '', "
                       "'', '', 'raw', 'raw', 0, 'not a map'))")
                .message()
                .find("map('key', 'value', ...) as argument 12"),
            std::string::npos);
  EXPECT_NE(ParseError("CREATE PIPE p AS COPY INTO t FROM (SELECT value FROM other(1))").message().find("READ_KAFKA"),
            std::string::npos);
}

TEST(PipeParserTest, OtherStatements) {
  EXPECT_TRUE(ParseAs<DropPipe>("DROP PIPE IF EXISTS p").if_exists);
  EXPECT_EQ(ParseAs<DropPipe>("DROP PIPE d.p").db, "d");
  auto a = ParseAs<AlterPipe>("ALTER PIPE p SET PIPE_EXECUTION_PAUSED = true");
  EXPECT_EQ(a.property, "PIPE_EXECUTION_PAUSED");
  EXPECT_EQ(a.value, "true");
  EXPECT_EQ(ParseAs<AlterPipe>("alter pipe p set batch_interval_in_seconds = '30'").property, "BATCH_INTERVAL_IN_SECONDS");
  EXPECT_TRUE(ParseAs<AlterPipe>("ALTER PIPE p EXECUTE").execute);
  EXPECT_NE(ParseError("ALTER PIPE p SET A = '1', B = '2'").message().find("one property per statement"),
            std::string::npos);
  EXPECT_EQ(ParseAs<ShowPipes>("SHOW PIPES LIKE 'a%'").like, "a%");
  EXPECT_TRUE(ParseAs<DescPipe>("DESC PIPE EXTENDED p").extended);
  EXPECT_EQ(ParseAs<DescPipe>("DESCRIBE PIPE p").name, "p");
  EXPECT_EQ(ParseAs<CreateVcluster>("CREATE VCLUSTER v VCLUSTER_SIZE = 4").size, 4);
  EXPECT_EQ(ParseAs<CreateVcluster>("CREATE VCLUSTER IF NOT EXISTS v SIZE '2'").size, 2);
  EXPECT_NE(ParseError("CREATE VCLUSTER v").message().find("VCLUSTER_SIZE = n"), std::string::npos);
  EXPECT_TRUE(ParseAs<DropVcluster>("DROP VCLUSTER IF EXISTS v").if_exists);
  EXPECT_FALSE(ParseAs<ShowVclusters>("SHOW VCLUSTERS").like);
}

TEST(PipeParserTest, AlterVcluster) {
  auto size = ParseAs<AlterVcluster>("ALTER VCLUSTER v SET VCLUSTER_SIZE = 3");
  EXPECT_EQ(size.name, "v");
  EXPECT_FALSE(size.if_exists);
  EXPECT_EQ(size.size, 3);
  EXPECT_FALSE(size.nodes);
  auto both = ParseAs<AlterVcluster>("alter vcluster if exists v set nodes = ('n1', 'n2', 'n1'), size 2");
  EXPECT_TRUE(both.if_exists);
  EXPECT_EQ(both.size, 2);
  EXPECT_EQ(both.nodes, (std::vector<std::string>{"n1", "n2"}));
  auto every = ParseAs<AlterVcluster>("ALTER VCLUSTER v SET NODES = ()");
  ASSERT_TRUE(every.nodes);
  EXPECT_TRUE(every.nodes->empty());
  EXPECT_FALSE(every.size);
  // Nothing to set, a bad size, an unquoted node, something else: what ALTER VCLUSTER takes.
  EXPECT_NE(ParseError("ALTER VCLUSTER v SET").message().find("VCLUSTER_SIZE = n and/or NODES"), std::string::npos);
  EXPECT_NE(ParseError("ALTER VCLUSTER v SET COMMENT = 'c'").message().find("and/or NODES"), std::string::npos);
  EXPECT_NE(ParseError("ALTER VCLUSTER v SET WAREHOUSE_SIZE = 'x'").message().find("and/or NODES"), std::string::npos);
  EXPECT_NE(ParseError("ALTER VCLUSTER v SIZE 2").message().find("SET"), std::string::npos);
  EXPECT_NE(ParseError("ALTER VCLUSTER v SET SIZE 0").message().find("from 1 to 999999"), std::string::npos);
  EXPECT_NE(ParseError("ALTER VCLUSTER v SET NODES = (n1)").message().find("a node name in quotes"),
            std::string::npos);
  // CREATE shares the properties, but leaves NODES out for every node.
  EXPECT_EQ(ParseAs<CreateVcluster>("CREATE VCLUSTER v NODES = ('n1') VCLUSTER_SIZE = 2").nodes,
            (std::vector<std::string>{"n1"}));
  EXPECT_NE(ParseError("CREATE VCLUSTER v SIZE 2 NODES = ()").message().find("a node name in quotes"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice::sql::testing
