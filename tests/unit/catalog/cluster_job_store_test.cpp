// The cluster's job store against a real PostgreSQL 15: definitions sealed as the node's own store seals them, one
// job per name in the cluster, and writes that never undo a statement made on another node.
#include "catalog/cluster_job_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../cluster/test_postgres.h"

namespace sluice::catalog {
namespace {

RoutineLoadDefinition IcebergJob(const std::string& name = "job") {
  RoutineLoadDefinition def;
  def.db = "d";
  def.name = name;
  def.lake_catalog = "lake";
  def.lake_db = "db";
  def.table = "events";
  def.broker_list = "127.0.0.1:9092";
  def.topic = "ev";
  def.custom_properties = {{"sasl.username", "alice"}, {"sasl.password", "hunter2-secret"}};
  return def;
}

class ClusterJobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pg_.ok()) << pg_.error();
    dir_ = std::filesystem::temp_directory_path() / ("sluice-cluster-jobs-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::unique_ptr<ClusterJobStore> Open(const std::string& key = "shared.key") {
    auto store = ClusterJobStore::Open(pg_.uri(), (dir_ / key).string());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }
  std::string Psql(const std::string& sql) {
    auto pg = cluster::PgClient::Connect(pg_.uri());
    EXPECT_TRUE(pg.ok());
    auto r = (*pg)->Exec(sql);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && !r->rows.empty() ? r->rows[0][0].value_or("") : "";
  }
  StoredJob Only(ClusterJobStore& store) {
    auto jobs = store.LoadJobs();
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    EXPECT_EQ(jobs->size(), 1u);
    return jobs->empty() ? StoredJob{} : (*jobs)[0];
  }

  cluster::testing::TestPostgres pg_;
  std::filesystem::path dir_;
};

TEST_F(ClusterJobStoreTest, EveryNodeWithTheKeySeesTheJobAndItsSecretsStaySealed) {
  auto n1 = Open(), n2 = Open();
  auto id = n1->CreateJob(IcebergJob(), 1000);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_GE(*id, kFirstClusterJobId);
  std::string stored = Psql("SELECT definition FROM sluice_routine_loads");
  EXPECT_EQ(stored.find("hunter2-secret"), std::string::npos) << stored;
  EXPECT_NE(stored.find("sealed:v1:"), std::string::npos) << stored;
  StoredJob seen = Only(*n2);  // another node, the same key file
  EXPECT_EQ(seen.id, *id);
  EXPECT_EQ(seen.state, JobState::kNeedSchedule);
  EXPECT_EQ(seen.def.custom_properties, IcebergJob().custom_properties);
  EXPECT_EQ(seen.def.TargetName(), "lake.db.events");
  // A node with another key cannot read it, and says what to do.
  auto other = Open("other.key")->LoadJobs();
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("--cluster-key-file"), std::string::npos) << other.status().message();
}

TEST_F(ClusterJobStoreTest, OneLiveJobPerNameInTheCluster) {
  auto n1 = Open(), n2 = Open();
  ASSERT_TRUE(n1->CreateJob(IcebergJob(), 1000).ok());
  auto again = n2->CreateJob(IcebergJob(), 2000);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  StoredJob job = Only(*n1);
  job.state = JobState::kStopped;
  ASSERT_TRUE(n1->UpdateJob(job).ok());
  EXPECT_TRUE(n2->CreateJob(IcebergJob(), 3000).ok()) << "a STOPPED job's name can be used again";
}

TEST_F(ClusterJobStoreTest, WritesNeverUndoAStatementMadeElsewhere) {
  auto n1 = Open(), n2 = Open();
  ASSERT_TRUE(n1->CreateJob(IcebergJob(), 1000).ok());
  StoredJob on_n1 = Only(*n1), on_n2 = Only(*n2);
  // n2 pauses it; n1, finishing its scheduling, writes RUNNING: the pause stays.
  on_n2.state = JobState::kPaused;
  on_n2.reason = "paused by the user (PAUSE ROUTINE LOAD)";
  ASSERT_TRUE(n2->UpdateJob(on_n2).ok());
  on_n1.state = JobState::kRunning;
  ASSERT_TRUE(n1->UpdateJob(on_n1).ok());
  EXPECT_EQ(Only(*n1).state, JobState::kPaused);
  // ALTER only while PAUSED in the cluster.
  StoredJob altered = Only(*n1);
  altered.def.custom_properties.emplace_back("client.id", "c2");
  EXPECT_TRUE(n1->AlterJob(altered, {}).ok());
  EXPECT_EQ(Only(*n2).def.custom_properties.back().second, "c2");
  // RESUME (NEED_SCHEDULE), then RUNNING is accepted.
  on_n2.state = JobState::kNeedSchedule;
  ASSERT_TRUE(n2->UpdateJob(on_n2).ok());
  on_n1.state = JobState::kRunning;
  ASSERT_TRUE(n1->UpdateJob(on_n1).ok());
  EXPECT_EQ(Only(*n2).state, JobState::kRunning);
  EXPECT_EQ(n1->AlterJob(altered, {}).code(), StatusCode::kConflict) << "a RUNNING job is not altered";
  // STOPPED is final: neither a pause from a task nor a resume changes it.
  on_n2.state = JobState::kStopped;
  ASSERT_TRUE(n2->UpdateJob(on_n2).ok());
  on_n1.state = JobState::kPaused;
  ASSERT_TRUE(n1->UpdateJob(on_n1).ok());
  on_n1.state = JobState::kNeedSchedule;
  ASSERT_TRUE(n1->UpdateJob(on_n1).ok());
  EXPECT_EQ(Only(*n1).state, JobState::kStopped);
}

RoutineLoadDefinition IcebergVolumePipe(const std::string& name = "job") {
  RoutineLoadDefinition def = IcebergJob(name);
  def.broker_list.clear();
  def.topic.clear();
  def.custom_properties.clear();
  def.pipe.emplace();
  def.pipe->volume.emplace();
  def.pipe->volume->volume = "landing";
  def.pipe->modified_time_ms = 1000;
  return def;
}

TEST_F(ClusterJobStoreTest, PipesAndRoutineLoadsAreNamedApart) {
  auto n1 = Open(), n2 = Open();
  ASSERT_TRUE(n1->CreateJob(IcebergJob("same"), 1000).ok());
  auto pipe = n2->CreateJob(IcebergVolumePipe("same"), 2000);
  ASSERT_TRUE(pipe.ok()) << "a pipe may share a routine load's name: " << pipe.status().ToString();
  EXPECT_EQ(Psql("SELECT kind FROM sluice_routine_loads WHERE id = " + std::to_string(*pipe)), "pipe");
  auto again = n1->CreateJob(IcebergVolumePipe("same"), 3000);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find("pipe 'same' already exists"), std::string::npos) << again.status().message();
  auto jobs = n2->LoadJobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_FALSE((*jobs)[0].def.pipe);
  ASSERT_TRUE((*jobs)[1].def.pipe && (*jobs)[1].def.pipe->volume);
  EXPECT_EQ((*jobs)[1].def.pipe->volume->volume, "landing");
}

TEST_F(ClusterJobStoreTest, AnAlteredRunningPipeKeepsItsNewDefinition) {
  auto n1 = Open(), n2 = Open();
  ASSERT_TRUE(n1->CreateJob(IcebergVolumePipe(), 1000).ok());
  StoredJob on_n1 = Only(*n1), on_n2 = Only(*n2);
  on_n1.state = JobState::kRunning;
  ASSERT_TRUE(n1->UpdateJob(on_n1).ok());
  // ALTER PIPE on n2 while it runs: taken.
  StoredJob altered = Only(*n2);
  altered.def.pipe->comment = "altered";
  altered.def.pipe->modified_time_ms = 2000;
  ASSERT_TRUE(n2->AlterJob(altered, {}).ok());
  // n1, which has not read it yet, writes its state from its older copy: the new definition stays.
  ASSERT_TRUE(n1->UpdateJob(on_n1).ok());
  StoredJob now = Only(*n1);
  EXPECT_EQ(now.def.pipe->comment, "altered");
  EXPECT_EQ(now.def.pipe->modified_time_ms, 2000);
  EXPECT_EQ(now.state, JobState::kRunning);
  // Dropped (STOPPED): an ALTER says so and changes nothing.
  on_n2.state = JobState::kStopped;
  ASSERT_TRUE(n2->UpdateJob(on_n2).ok());
  altered.def.pipe->comment = "too late";
  EXPECT_EQ(n1->AlterJob(altered, {}).code(), StatusCode::kNotFound);
  EXPECT_EQ(Only(*n1).def.pipe->comment, "altered");
}

TEST(ClusterJobStoreUnreachable, FailsTheCallsNotTheOpen) {
  auto store = ClusterJobStore::Open("host=127.0.0.1 port=1 dbname=x user=y connect_timeout=1", "");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto jobs = (*store)->LoadJobs();
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().code(), StatusCode::kUnavailable) << jobs.status().ToString();
}

}  // namespace
}  // namespace sluice::catalog
