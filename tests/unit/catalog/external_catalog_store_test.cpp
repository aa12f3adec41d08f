#include "catalog/external_catalog_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace sluice::catalog {
namespace {

sql::CreateExternalCatalog Lake(const std::string& name) {
  sql::CreateExternalCatalog s;
  s.name = name;
  s.properties = {{"type", "iceberg"},
                  {"iceberg.catalog.type", "jdbc"},
                  {"iceberg.catalog.uri", "postgresql://127.0.0.1:1/lake"},
                  {"iceberg.catalog.warehouse", "s3://bucket/wh"},
                  {"aws.s3.access_key", "a"},
                  {"aws.s3.secret_key", "b"}};
  return s;
}

// Every statement with a three-part name asks whether its first part is an external catalog: the answer comes
// from memory (no DuckDB query), follows CREATE and DROP at once, and is rebuilt from the table at the next start.
TEST(ExternalCatalogStoreTest, CatalogLookupSendsNoQueryAndFollowsCreateAndDrop) {
  auto dir = std::filesystem::temp_directory_path() / ("sluice-extcat-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db_file = (dir / "catalog.db").string();
  const std::string key_file = (dir / "secrets.key").string();
  {
    auto db = storage::Database::Open(db_file);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto store = ExternalCatalogStore::Open(**db, key_file);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ExternalCatalogStore& s = **store;
    EXPECT_FALSE(s.Exists("lake"));

    auto created = s.Create(Lake("Lake"), 1000);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    EXPECT_FALSE(*created);
    const uint64_t before = s.queries_sent();
    for (int i = 0; i < 1000; i++) {
      ASSERT_TRUE(s.Exists("lake"));
      ASSERT_TRUE(s.Exists("LAKE"));
      ASSERT_FALSE(s.Exists("db"));  // db.t.c of a struct column, or anything else that is not a catalog
    }
    EXPECT_EQ(s.queries_sent(), before);

    // IF NOT EXISTS on an existing name: answered before validation (these properties would be refused).
    sql::CreateExternalCatalog again;
    again.name = "LAKE";
    again.if_not_exists = true;
    again.properties = {{"type", "hive"}};
    auto existed = s.Create(again, 2000);
    ASSERT_TRUE(existed.ok()) << existed.status().ToString();
    EXPECT_TRUE(*existed);
    again.if_not_exists = false;
    EXPECT_EQ(s.Create(again, 2000).status().code(), StatusCode::kAlreadyExists);

    ASSERT_TRUE(s.Create(Lake("other"), 3000).ok());
    ASSERT_TRUE(s.Drop("LAKE", false).ok());
    EXPECT_FALSE(s.Exists("lake"));
    EXPECT_TRUE(s.Exists("other"));
    // a failed CREATE (invalid properties) leaves no name behind
    EXPECT_FALSE(s.Create(again, 4000).ok());
    EXPECT_FALSE(s.Exists("lake"));
  }
  auto db = storage::Database::Open(db_file);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto store = ExternalCatalogStore::Open(**db, key_file);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE((*store)->Exists("OTHER"));
  EXPECT_FALSE((*store)->Exists("lake"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::catalog
