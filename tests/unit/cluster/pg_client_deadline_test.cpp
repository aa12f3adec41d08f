// PgClient against a PostgreSQL that hangs instead of refusing (SIGSTOP of the postmaster and its backends, see
// test_postgres.h): on loopback the kernel still accepts and acknowledges everything, so only the client's own
// deadline ends the wait. A statement answers Unavailable within the deadline, a reconnect within
// connect_timeout, and a statement whose answer never came cannot land after the client reconnected.
#include "cluster/pg_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "test_postgres.h"

namespace sluice::cluster {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

TEST(PgClientDeadlineTest, AHungPostgresAnswersUnavailableWithinTheDeadlineAndTheClientComesBack) {
  testing::TestPostgres pg;
  ASSERT_TRUE(pg.ok()) << pg.error();
  auto client = PgClient::Connect(pg.uri());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ASSERT_TRUE((*client)->Exec("SELECT 1").ok());

  ASSERT_TRUE(pg.Freeze());
  auto began = Clock::now();
  auto hung = (*client)->Exec("SELECT 1");
  double waited = SecondsSince(began);
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.status().code(), StatusCode::kUnavailable) << hung.status().ToString();
  EXPECT_NE(hung.status().message().find("cannot be reached"), std::string::npos) << hung.status().message();
  const double deadline = std::chrono::duration<double>((*client)->deadline()).count();
  EXPECT_GE(waited, deadline - 0.5);
  EXPECT_LT(waited, deadline + 2.0);
  // Still hung: the next call reconnects, and connecting is bounded by connect_timeout (3 s).
  began = Clock::now();
  auto again = (*client)->Exec("SELECT 1");
  EXPECT_EQ(again.status().code(), StatusCode::kUnavailable) << again.status().ToString();
  EXPECT_LT(SecondsSince(began), 5.0);
  // A new connection, too.
  began = Clock::now();
  auto fresh = PgClient::Connect(pg.uri());
  EXPECT_EQ(fresh.status().code(), StatusCode::kUnavailable);
  EXPECT_LT(SecondsSince(began), 5.0);

  ASSERT_TRUE(pg.Thaw());
  auto back = (*client)->Exec("SELECT 40 + 2");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->rows.at(0).at(0).value_or(""), "42");
}

TEST(PgClientDeadlineTest, AStatementWhoseAnswerNeverCameCannotLandAfterTheReconnect) {
  testing::TestPostgres pg;
  ASSERT_TRUE(pg.ok()) << pg.error();
  auto client = PgClient::Connect(pg.uri());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ASSERT_TRUE((*client)->Exec("CREATE TABLE t (v INT)").ok());
  ASSERT_TRUE((*client)->Exec("INSERT INTO t VALUES (0)").ok());

  // The server stops before it reads the update; once it wakes it would run it (taking 3 s), after the client
  // had already looked -- unless the client ends that session first.
  ASSERT_TRUE(pg.Freeze());
  auto lost = (*client)->Exec("UPDATE t SET v = v + 1 FROM pg_sleep(3)");
  ASSERT_EQ(lost.status().code(), StatusCode::kUnavailable) << lost.status().ToString();
  ASSERT_TRUE(pg.Thaw());
  auto seen = (*client)->Exec("SELECT v FROM t");
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_EQ(seen->rows.at(0).at(0).value_or(""), "0") << "the unanswered update must have been ended";
  std::this_thread::sleep_for(4s);  // the update, had it gone on, would have committed by now
  auto later = (*client)->Exec("SELECT v FROM t");
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(later->rows.at(0).at(0).value_or(""), "0");
}

}  // namespace
}  // namespace sluice::cluster
