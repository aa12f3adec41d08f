#pragma once
// What the loopback suites share: a fake SessionFactory (canned statements, counted sessions), an in-memory
// account store, and a fixture running a real MysqlServer on an ephemeral port.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "executor/session.h"
#include "mysql_test_client.h"
#include "server/mysql_server.h"
#include "test_authenticator.h"

namespace sluice::server::test {

using namespace std::chrono_literals;

struct FakeState {
  std::mutex mu;
  std::vector<std::string> executed;
  std::atomic<int> live_sessions{0};
  std::atomic<int> sessions_created{0};
  std::string last_user;
  std::string last_database;

  void Record(std::string_view s) {
    std::lock_guard<std::mutex> lock(mu);
    executed.emplace_back(s);
  }
  std::vector<std::string> Executed() {
    std::lock_guard<std::mutex> lock(mu);
    return executed;
  }
};

class FakeSession : public Session {
 public:
  FakeSession(FakeState& state, uint32_t id, std::string db) : state_(state), id_(id), db_(std::move(db)) {
    ++state_.live_sessions;
  }
  ~FakeSession() override { --state_.live_sessions; }

  Result<StatementResult> Execute(std::string_view statement) override {
    state_.Record(statement);
    StatementResult r;
    if (statement == "SELECT 1") {
      ResultSet rs;
      rs.AddColumn("1", ValueType::kInteger);
      rs.rows.push_back({std::string("1")});
      r.result_set = std::move(rs);
      return r;
    }
    if (statement == "SELECT rows") {
      ResultSet rs;
      rs.AddColumn("id", ValueType::kBigInt);
      rs.AddColumn("name");
      rs.AddColumn("ok", ValueType::kBoolean);
      rs.rows.push_back({std::string("1"), std::string("Johann Georg Faust"), std::string("true")});
      rs.rows.push_back({std::string("2"), std::nullopt, std::string("false")});
      rs.rows.push_back({std::string("3"), std::string(""), std::nullopt});
      r.result_set = std::move(rs);
      r.warnings = 1;
      return r;
    }
    if (statement == "SELECT nothing") {  // a result set with no columns is sent as OK
      r.result_set = ResultSet{};
      return r;
    }
    if (statement.substr(0, 6) == "INSERT") {
      r.affected_rows = 3;
      r.last_insert_id = 9;
      r.info = "Records: 3  Duplicates: 0  Warnings: 0";
      return r;
    }
    if (statement.substr(0, 4) == "ECHO") {
      ResultSet rs;
      rs.AddColumn("length", ValueType::kBigInt);
      rs.rows.push_back({std::to_string(statement.size())});
      r.result_set = std::move(rs);
      return r;
    }
    if (statement == "FAIL") return Status::UnknownTable("Table 'db.t' does not exist");
    if (statement == "NODB") return Status::InvalidArgument("No database selected");
    if (statement == "THROW") throw std::runtime_error("boom");
    if (statement == "SLEEP") {
      std::this_thread::sleep_for(500ms);
      return r;
    }
    return Status::SyntaxError("syntax error at line 1, column 1: unexpected '" + std::string(statement) + "'");
  }
  Result<std::vector<ColumnInfo>> ResultColumns(std::string_view statement) override {
    if (statement == "FAIL") return Status::UnknownTable("Table 'db.t' does not exist");
    if (statement != "SELECT rows") return std::vector<ColumnInfo>{};
    ResultSet rs;
    rs.AddColumn("id", ValueType::kBigInt);
    rs.AddColumn("name");
    rs.AddColumn("ok", ValueType::kBoolean);
    return rs.columns;
  }
  Status UseDatabase(std::string_view db) override {
    if (db == "missing") return Status::UnknownDatabase("Unknown database 'missing'");
    db_ = std::string(db);
    return Status::Ok();
  }
  Result<ResultSet> FieldList(std::string_view table) override {
    if (table != "t") return Status::UnknownTable("Table 't2' does not exist");
    ResultSet rs;
    rs.AddColumn("id", ValueType::kBigInt);
    rs.AddColumn("name");
    return rs;
  }
  const std::string& current_database() const override { return db_; }
  uint32_t connection_id() const override { return id_; }

 private:
  FakeState& state_;
  uint32_t id_;
  std::string db_;
};

class FakeFactory : public SessionFactory {
 public:
  explicit FakeFactory(FakeState& state) : state_(state) {}
  Result<std::unique_ptr<Session>> NewSession(uint32_t id, std::string user, std::string host,
                                              std::string database) override {
    if (database == "missing") return Status::UnknownDatabase("Unknown database 'missing'");
    {
      std::lock_guard<std::mutex> lock(state_.mu);
      state_.last_user = user;
      state_.last_database = database;
    }
    ++state_.sessions_created;
    return std::unique_ptr<Session>(new FakeSession(state_, id, database));
  }

 private:
  FakeState& state_;
};

class MysqlServerTest : public ::testing::Test {
 protected:
  void StartServer(MysqlServer::Options options = {}) {
    options.port = 0;
    if (options.authenticator == nullptr) options.authenticator = &auth_;
    server_ = std::make_unique<MysqlServer>(options, factory_);
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_NE(server_->port(), 0);
  }
  void SetUp() override {}
  void TearDown() override {
    if (server_) server_->Stop();
  }
  // Waits until the server has no open connection (its threads finished).
  bool WaitForNoConnections(std::chrono::milliseconds limit = 5s) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (server_->active_connections() == 0) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  // A fresh client logs in and runs a query: the server still serves everyone else.
  void ExpectServerHealthy() {
    TestClient c;
    ASSERT_TRUE(c.Connect(server_->port()));
    ASSERT_TRUE(c.LoginOk());
    Response r = c.Query("SELECT 1");
    ASSERT_FALSE(r.err) << r.err->message;
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].rows.at(0).at(0), "1");
  }

  FakeState state_;
  FakeFactory factory_{state_};
  test::TestAuthenticator auth_;
  std::unique_ptr<MysqlServer> server_;
};


}  // namespace sluice::server::test
