// Storage connection, volume and COPY INTO statements, and the DIRECTORY(vol) rewrite. Errors and the catalog's
// checks are covered end to end by tests/sql/volumes/grammar.test.
#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace sluice::sql {
namespace {

using testing::ParseAs;

std::string T(std::string_view sql) { return TranslateForDuckDB(sql, testing::TestSession()); }

TEST(VolumeParserTest, CreateConnectionKeepsSettingsInOrder) {
  auto st = ParseAs<CreateStorageConnection>(
      "CREATE STORAGE CONNECTION IF NOT EXISTS c TYPE S3 ENDPOINT = 'http://h:1', ACCESS_ID 'id' ACCESS_KEY = \"k\"");
  EXPECT_EQ(st.name, "c");
  EXPECT_TRUE(st.if_not_exists);
  ASSERT_EQ(st.settings.size(), 4u);
  EXPECT_EQ(st.settings[0], (std::pair<std::string, std::string>{"TYPE", "S3"}));
  EXPECT_EQ(st.settings[1].second, "http://h:1");
  EXPECT_EQ(st.settings[3], (std::pair<std::string, std::string>{"ACCESS_KEY", "k"}));
}

TEST(VolumeParserTest, CreateVolume) {
  auto st = ParseAs<CreateVolume>(
      "CREATE EXTERNAL VOLUME v LOCATION 's3://b/p/' USING CONNECTION c RECURSIVE = TRUE COMMENT 'x'");
  EXPECT_EQ(st.location, "s3://b/p/");
  EXPECT_EQ(st.connection, "c");
  EXPECT_EQ(st.recursive, std::optional<bool>(true));
  EXPECT_EQ(st.comment, "x");
  auto local = ParseAs<CreateVolume>("CREATE VOLUME w LOCATION 'file:///in/'");
  EXPECT_EQ(local.connection, "");
  EXPECT_FALSE(local.recursive.has_value());
}

TEST(VolumeParserTest, ShowDescDrop) {
  EXPECT_EQ(ParseAs<ShowStorageObjects>("SHOW VOLUMES LIKE 'a%'").kind, StorageObjectKind::kVolume);
  EXPECT_EQ(ParseAs<ShowStorageObjects>("SHOW STORAGE CONNECTIONS").kind, StorageObjectKind::kConnection);
  EXPECT_EQ(ParseAs<DescribeStorageObject>("DESC EXTERNAL VOLUME v").name, "v");
  auto drop = ParseAs<DropStorageObject>("DROP CONNECTION IF EXISTS c");
  EXPECT_TRUE(drop.if_exists);
  EXPECT_EQ(drop.kind, StorageObjectKind::kConnection);
  // a table called volume is still a table
  EXPECT_EQ(ParseAs<DescribeTable>("DESC volume").table.name, "volume");
}

TEST(VolumeParserTest, CopyInto) {
  auto st = ParseAs<CopyIntoFromVolume>(
      "COPY INTO db.t FROM VOLUME v (id INT, name STRING) USING csv OPTIONS ('header' = 'true', sep = '|') "
      "FILES ('a.csv', 'b.csv') ON_ERROR = CONTINUE FORCE = TRUE");
  EXPECT_EQ(st.db, "db");
  EXPECT_EQ(st.table, "t");
  EXPECT_EQ(st.volume, "v");
  ASSERT_EQ(st.file_columns.size(), 2u);
  EXPECT_EQ(st.file_columns[0].first, "id");
  EXPECT_EQ(st.format, "CSV");
  ASSERT_EQ(st.options.size(), 2u);
  EXPECT_EQ(st.options[1], (std::pair<std::string, std::string>{"sep", "|"}));
  EXPECT_EQ(st.files, (std::vector<std::string>{"a.csv", "b.csv"}));
  EXPECT_EQ(st.on_error, "CONTINUE");
  EXPECT_TRUE(st.force);
  auto sub = ParseAs<CopyIntoFromVolume>("COPY INTO t FROM VOLUME v USING PARQUET SUBDIRECTORY '2024/'");
  EXPECT_EQ(sub.subdirectory, std::optional<std::string>("2024/"));
  EXPECT_EQ(sub.on_error, "ABORT");
  // DuckDB's COPY is not Sluice's
  EXPECT_TRUE(std::holds_alternative<PassThrough>(*ParseStatement("COPY t FROM 'x.csv'", testing::TestSession())));
}

TEST(VolumeParserTest, CopyIntoTransform) {
  auto st = ParseAs<CopyIntoFromVolume>(
      "COPY INTO t FROM (SELECT CAST(a AS INT), upper(b), (c + 1) * 2 FROM VOLUME v USING JSON FILES ('x.json') "
      "WHERE (a > 1) AND b <> ')') ON_ERROR = CONTINUE");
  EXPECT_EQ(st.select_list, "CAST(a AS INT), upper(b), (c + 1) * 2");
  EXPECT_EQ(st.where, "(a > 1) AND b <> ')'");
  EXPECT_EQ(st.volume, "v");
  EXPECT_EQ(st.format, "JSON");
  EXPECT_EQ(st.files, (std::vector<std::string>{"x.json"}));
  EXPECT_EQ(st.on_error, "CONTINUE");
  auto plain = ParseAs<CopyIntoFromVolume>("COPY INTO t FROM (SELECT * FROM VOLUME v USING PARQUET)");
  EXPECT_EQ(plain.select_list, "*");
  EXPECT_EQ(plain.where, "");
}

TEST(VolumeParserTest, DirectoryRewrite) {
  EXPECT_EQ(T("SELECT * FROM DIRECTORY(v)"), "SELECT * FROM sluice_directory('v')");
  EXPECT_EQ(T("SELECT count(*) FROM directory(VOLUME `my vol`) WHERE size > 0"),
            "SELECT count(*) FROM sluice_directory('my vol') WHERE size > 0");
  EXPECT_EQ(T("SELECT * FROM t JOIN DIRECTORY('v') d ON true"), "SELECT * FROM t JOIN sluice_directory('v') d ON true");
  // a column or function named directory elsewhere is left alone
  EXPECT_EQ(T("SELECT directory(x) FROM t"), "SELECT directory(x) FROM t");
}

}  // namespace
}  // namespace sluice::sql
