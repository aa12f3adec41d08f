#include "catalog/routine_load_store.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace sluice::catalog {
namespace {

RoutineLoadDefinition JobWithSecrets() {
  RoutineLoadDefinition def;
  def.db = "d";
  def.name = "job";
  def.table = "t";
  def.broker_list = "127.0.0.1:9092";
  def.topic = "orders";
  def.custom_properties = {{"sasl.username", "alice"}, {"sasl.password", "hunter2-secret"}, {"client.id", "c1"}};
  def.schema_registry_url = "http://reg-user:reg-pass-secret@127.0.0.1:8081";
  return def;
}

std::string StoredDefinitions(storage::Database& db) {
  auto con = db.Connect();
  EXPECT_TRUE(con.ok());
  auto r = (*con)->Query("SELECT string_agg(definition, '\n') FROM __sluice.routine_loads");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r->result_set->rows[0][0].value_or("");
}

TEST(RoutineLoadStoreTest, SecretsAreStoredSealedAndComeBackAcrossRestarts) {
  auto dir = std::filesystem::temp_directory_path() / ("sluice-store-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string db_file = (dir / "sluice.duckdb").string(), key_file = (dir / "secrets.key").string();
  {
    auto db = storage::Database::Open(db_file);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto store = RoutineLoadStore::Open(**db, key_file);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->CreateJob(JobWithSecrets(), 1000).ok());
    std::string stored = StoredDefinitions(**db);
    EXPECT_EQ(stored.find("hunter2-secret"), std::string::npos) << stored;
    EXPECT_EQ(stored.find("reg-pass-secret"), std::string::npos) << stored;
    EXPECT_NE(stored.find("alice"), std::string::npos) << "only secrets are sealed: " << stored;
  }
  {  // reopened, as after a restart: the key file unseals them
    auto db = storage::Database::Open(db_file);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto store = RoutineLoadStore::Open(**db, key_file);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto jobs = (*store)->LoadJobs();
    ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
    ASSERT_EQ(jobs->size(), 1u);
    EXPECT_EQ((*jobs)[0].def.custom_properties, JobWithSecrets().custom_properties);
    EXPECT_EQ((*jobs)[0].def.schema_registry_url, JobWithSecrets().schema_registry_url);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::catalog

namespace sluice::catalog {
namespace {

// A pipe: its Kafka settings are sealed like a job's (sasl.oauthbearer.config included, from the one list of secret
// names), and its COPY text, kept for SHOW PIPES / DESC PIPE only, is stored with the secrets masked.
TEST(RoutineLoadStoreTest, PipeSecretsAreSealedAndItsCopyTextMasked) {
  auto db = storage::Database::Open("");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto store = RoutineLoadStore::Open(**db, "");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RoutineLoadDefinition def = JobWithSecrets();
  def.custom_properties.emplace_back("sasl.oauthbearer.config", "principal=p clientSecret=oauth-secret-77");
  def.pipe = PipeSettings{};
  def.pipe->copy_statement =
      "COPY INTO t FROM (SELECT value FROM READ_KAFKA('b', 't', '', 'g', '', '', '', '', 'raw', 'raw', 0, "
      "map('kafka.sasl.oauthbearer.config', 'principal=p clientSecret=oauth-secret-77', 'kafka.sasl.password', "
      "'hunter2-secret')))";
  ASSERT_TRUE((*store)->CreateJob(def, 1000).ok());
  std::string stored = StoredDefinitions(**db);
  EXPECT_EQ(stored.find("oauth-secret-77"), std::string::npos) << stored;
  EXPECT_EQ(stored.find("hunter2-secret"), std::string::npos) << stored;
  EXPECT_NE(stored.find("'kafka.sasl.oauthbearer.config', '******'"), std::string::npos) << stored;
  auto jobs = (*store)->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].def.custom_properties, def.custom_properties);
}

}  // namespace
}  // namespace sluice::catalog
