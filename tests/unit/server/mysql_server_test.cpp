// Loopback tests: a real MysqlServer on an ephemeral port with a fake SessionFactory, driven by a raw-socket
// client. They cover the protocol end to end and the bad-input cases of issue 2 part 7.
#include "server/mysql_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "loopback_fixture.h"
#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server {
namespace {

using LoginOptions = test::TestClient::LoginOptions;
using test::Response;
using test::TestClient;
using test::MysqlServerTest;
using namespace std::chrono_literals;

TEST_F(MysqlServerTest, GreetingAdvertisesTheProtocol) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto g = c.ReadGreeting();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->protocol, 10);
  EXPECT_NE(g->version.find("Sluice"), std::string::npos);
  EXPECT_EQ(g->scramble.size(), 20u);
  EXPECT_EQ(g->plugin, "mysql_native_password");
  EXPECT_NE(g->connection_id, 0u);
  for (uint32_t flag : {cap::kProtocol41, cap::kSecureConnection, cap::kPluginAuth, cap::kConnectWithDb,
                        cap::kMultiStatements, cap::kMultiResults, cap::kDeprecateEof,
                        cap::kPluginAuthLenencClientData, cap::kTransactions}) {
    EXPECT_TRUE(g->capabilities & flag) << flag;
  }
  EXPECT_FALSE(g->capabilities & cap::kSsl);
  EXPECT_TRUE(g->status & status_flag::kAutocommit);
}

TEST_F(MysqlServerTest, LoginAndResultSetWithDeprecateEof) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  LoginOptions o;
  o.database = "example_db";
  auto ok = c.Login(o);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->payload[0], 0x00);
  EXPECT_EQ(ok->seq, 2);
  {
    std::lock_guard<std::mutex> lock(state_.mu);
    EXPECT_EQ(state_.last_user, "root");
    EXPECT_EQ(state_.last_database, "example_db");
  }

  Response r = c.Query("SELECT rows");
  ASSERT_FALSE(r.err);
  ASSERT_EQ(r.results.size(), 1u);
  const auto& d = r.results[0];
  EXPECT_EQ(d.column_names, (std::vector<std::string>{"id", "name", "ok"}));
  EXPECT_EQ(d.column_types, (std::vector<uint8_t>{0x08, 0xfd, 0x01}));
  EXPECT_EQ(d.column_charsets, (std::vector<uint16_t>{63, 45, 63}));
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[0][1], "Johann Georg Faust");
  EXPECT_EQ(d.rows[0][2], "1");
  EXPECT_EQ(d.rows[1][1], std::nullopt);
  EXPECT_EQ(d.rows[1][2], "0");
  EXPECT_EQ(d.rows[2][1], "");
  EXPECT_EQ(d.rows[2][2], std::nullopt);
  EXPECT_EQ(d.warnings, 1);
  EXPECT_TRUE(d.status & status_flag::kAutocommit);
}

TEST_F(MysqlServerTest, ResultSetWithoutDeprecateEof) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  LoginOptions o;
  o.capabilities &= ~cap::kDeprecateEof;
  ASSERT_TRUE(c.LoginOk(o));
  Response r = c.Query("SELECT rows");
  ASSERT_FALSE(r.err);
  ASSERT_FALSE(r.io_error);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].rows.size(), 3u);
  EXPECT_EQ(r.results[0].warnings, 1);
  // The connection is still in step.
  EXPECT_EQ(c.Query("SELECT 1").results.size(), 1u);
}

TEST_F(MysqlServerTest, OkPacketCarriesCounts) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  Response r = c.Query("INSERT INTO t VALUES (1), (2), (3)");
  ASSERT_FALSE(r.err);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(r.results[0].is_ok);
  EXPECT_EQ(r.results[0].affected_rows, 3u);
  EXPECT_EQ(r.results[0].last_insert_id, 9u);
  EXPECT_EQ(r.results[0].info, "Records: 3  Duplicates: 0  Warnings: 0");
  Response none = c.Query("SELECT nothing");
  ASSERT_EQ(none.results.size(), 1u);
  EXPECT_TRUE(none.results[0].is_ok);
}

TEST_F(MysqlServerTest, PasswordChecks) {
  auth_.Add("root", {"s3cret"});
  StartServer();
  {
    TestClient c;
    ASSERT_TRUE(c.Connect(server_->port()));
    LoginOptions lo;
    lo.password = "s3cret";
    ASSERT_TRUE(c.LoginOk(lo));
  }
  struct Case {
    std::string user, password, message;
  };
  for (const Case& k : {Case{"root", "wrong", "Access denied for user 'root'@'127.0.0.1' (using password: YES)"},
                        Case{"root", "", "Access denied for user 'root'@'127.0.0.1' (using password: NO)"},
                        Case{"bob", "s3cret", "Access denied for user 'bob'@'127.0.0.1' (using password: YES)"}}) {
    TestClient c;
    ASSERT_TRUE(c.Connect(server_->port()));
    LoginOptions lo;
    lo.user = k.user;
    lo.password = k.password;
    auto reply = c.Login(lo);
    ASSERT_TRUE(reply);
    ASSERT_EQ(static_cast<uint8_t>(reply->payload[0]), 0xff);
    auto e = test::ParseErr(reply->payload);
    EXPECT_EQ(e.code, 1045);
    EXPECT_EQ(e.sqlstate, "28000");
    EXPECT_EQ(e.message, k.message);
    EXPECT_TRUE(c.ServerClosed());
  }
  EXPECT_EQ(state_.sessions_created.load(), 1);
}

TEST_F(MysqlServerTest, OtherAuthPluginGetsSwitchedToNativePassword) {
  auth_.Add("root", {"pw"});
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  LoginOptions lo;
  lo.password = "pw";
  lo.plugin = "client_ed25519";
  auto reply = c.Login(lo);
  ASSERT_TRUE(reply);
  EXPECT_EQ(c.switched_to(), "mysql_native_password");
  EXPECT_EQ(reply->payload[0], 0x00);
  EXPECT_EQ(reply->seq, 4);  // greeting 0, response 1, switch 2, answer 3, OK 4
  EXPECT_EQ(c.Query("SELECT 1").results.size(), 1u);
}

TEST_F(MysqlServerTest, UnknownDatabaseAtConnect) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  LoginOptions lo;
  lo.database = "missing";
  auto reply = c.Login(lo);
  ASSERT_TRUE(reply);
  auto e = test::ParseErr(reply->payload);
  EXPECT_EQ(e.code, 1049);
  EXPECT_EQ(e.sqlstate, "42000");
  EXPECT_TRUE(c.ServerClosed());
}

TEST_F(MysqlServerTest, ErrorsCarryMysqlNumbersAndConnectionSurvives) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  struct Case {
    std::string sql;
    uint16_t code;
    std::string sqlstate;
  };
  for (const Case& k : {Case{"FAIL", 1146, "42S02"}, Case{"NODB", 1046, "3D000"}, Case{"bogus", 1064, "42000"},
                        Case{"THROW", 1105, "HY000"}, Case{"", 1065, "42000"}, Case{"  \n ", 1065, "42000"},
                        Case{";", 1065, "42000"}}) {
    Response r = c.Query(k.sql);
    ASSERT_TRUE(r.err) << k.sql;
    EXPECT_EQ(r.err->code, k.code) << k.sql;
    EXPECT_EQ(r.err->sqlstate, k.sqlstate) << k.sql;
    EXPECT_EQ(c.Query("SELECT 1").results.size(), 1u) << "after " << k.sql;
  }
}

TEST_F(MysqlServerTest, MultiStatements) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  LoginOptions lo;
  lo.capabilities |= cap::kMultiStatements;
  ASSERT_TRUE(c.LoginOk(lo));

  Response r = c.Query("SELECT 1; INSERT INTO t VALUES (1); SELECT rows");
  ASSERT_FALSE(r.err);
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_TRUE(r.results[0].status & status_flag::kMoreResultsExist);
  EXPECT_TRUE(r.results[1].is_ok);
  EXPECT_TRUE(r.results[1].status & status_flag::kMoreResultsExist);
  EXPECT_FALSE(r.results[2].status & status_flag::kMoreResultsExist);
  EXPECT_EQ(r.results[2].rows.size(), 3u);

  // The first error ends the chain; later statements do not run.
  state_.executed.clear();
  Response e = c.Query("SELECT 1; FAIL; INSERT INTO never");
  ASSERT_EQ(e.results.size(), 1u);
  ASSERT_TRUE(e.err);
  EXPECT_EQ(e.err->code, 1146);
  EXPECT_EQ(state_.Executed(), (std::vector<std::string>{"SELECT 1", "FAIL"}));
  EXPECT_EQ(c.Query("SELECT 1").results.size(), 1u);
}

TEST_F(MysqlServerTest, MultiStatementsNeedTheClientFlag) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  Response r = c.Query("SELECT 1; SELECT 1");
  ASSERT_TRUE(r.err);
  EXPECT_EQ(r.err->code, 1064);
  EXPECT_TRUE(state_.Executed().empty());
  // One statement with a trailing ';' is fine.
  EXPECT_EQ(c.Query("SELECT 1;").results.size(), 1u);

  // COM_SET_OPTION turns multi statements on (0) and off (1).
  ASSERT_TRUE(c.SendCommand(CommandCode::kSetOption, std::string("\0\0", 2)));
  auto eof = c.ReadPacket();
  ASSERT_TRUE(eof);
  EXPECT_EQ(static_cast<uint8_t>(eof->payload[0]), 0xfe);
  EXPECT_EQ(c.Query("SELECT 1; SELECT 1").results.size(), 2u);
  ASSERT_TRUE(c.SendCommand(CommandCode::kSetOption, std::string("\1\0", 2)));
  ASSERT_TRUE(c.ReadPacket());
  EXPECT_TRUE(c.Query("SELECT 1; SELECT 1").err);
}

TEST_F(MysqlServerTest, SimpleCommands) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());

  ASSERT_TRUE(c.SendCommand(CommandCode::kPing));
  auto pong = c.ReadPacket();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->payload[0], 0x00);
  EXPECT_EQ(pong->seq, 1);

  ASSERT_TRUE(c.SendCommand(CommandCode::kInitDb, "other"));
  EXPECT_EQ(c.ReadResponse().results.size(), 1u);
  ASSERT_TRUE(c.SendCommand(CommandCode::kInitDb, "missing"));
  Response bad_db = c.ReadResponse();
  ASSERT_TRUE(bad_db.err);
  EXPECT_EQ(bad_db.err->code, 1049);

  ASSERT_TRUE(c.SendCommand(CommandCode::kStatistics));
  auto stats = c.ReadPacket();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->payload.rfind("Uptime: ", 0), 0u) << stats->payload;

  // COM_FIELD_LIST: column definitions, then the end marker.
  ASSERT_TRUE(c.SendCommand(CommandCode::kFieldList, std::string("t\0", 2)));
  int defs = 0;
  for (;;) {
    auto p = c.ReadPacket();
    ASSERT_TRUE(p);
    if (static_cast<uint8_t>(p->payload[0]) == 0xfe) break;
    ++defs;
  }
  EXPECT_EQ(defs, 2);
  ASSERT_TRUE(c.SendCommand(CommandCode::kFieldList, std::string("t2\0", 3)));
  Response no_table = c.ReadResponse();
  ASSERT_TRUE(no_table.err);
  EXPECT_EQ(no_table.err->code, 1146);

  // COM_STMT_PREPARE: the OK with the statement id and one parameter, its definition (DEPRECATE_EOF: no EOF).
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtPrepare, "SELECT ? + 1"));
  auto prep = c.ReadPacket();
  ASSERT_TRUE(prep);
  ASSERT_EQ(prep->payload.size(), 12u);
  EXPECT_EQ(static_cast<uint8_t>(prep->payload[0]), 0x00);
  EXPECT_EQ(static_cast<uint8_t>(prep->payload[1]), 1);  // the first statement id
  EXPECT_EQ(static_cast<uint8_t>(prep->payload[7]), 1);  // parameters
  auto param = c.ReadPacket();
  ASSERT_TRUE(param);
  EXPECT_NE(param->payload.find('?'), std::string::npos);
  // A statement the session refuses at prepare (an unknown table) gets the ERR, and no statement id.
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtPrepare, "FAIL"));
  Response refused = c.ReadResponse();
  ASSERT_TRUE(refused.err);
  EXPECT_EQ(refused.err->code, 1146);
  EXPECT_EQ(refused.err->sqlstate, "42S02");
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtExecute, std::string("\x07\0\0\0\0\1\0\0\0", 9)));
  Response unknown_statement = c.ReadResponse();
  ASSERT_TRUE(unknown_statement.err);
  EXPECT_EQ(unknown_statement.err->code, 1243);

  // COM_STMT_CLOSE has no reply: the next reply is the ping's.
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtClose, std::string("\1\0\0\0", 4)));
  ASSERT_TRUE(c.SendCommand(CommandCode::kPing));
  auto after_close = c.ReadPacket();
  ASSERT_TRUE(after_close);
  EXPECT_EQ(after_close->payload[0], 0x00);

  ASSERT_TRUE(c.SendCommand(static_cast<CommandCode>(0x7a), "whatever"));
  Response unknown = c.ReadResponse();
  ASSERT_TRUE(unknown.err);
  EXPECT_EQ(unknown.err->code, 1047);
  EXPECT_EQ(unknown.err->message, "Unknown command");

  ASSERT_TRUE(c.SendCommand(CommandCode::kResetConnection));
  EXPECT_EQ(c.ReadResponse().results.size(), 1u);
  EXPECT_EQ(state_.live_sessions.load(), 1);

  ASSERT_TRUE(c.SendCommand(CommandCode::kQuit));
  EXPECT_TRUE(c.ServerClosed());
  EXPECT_TRUE(WaitForNoConnections());
  EXPECT_EQ(state_.live_sessions.load(), 0);
}

TEST_F(MysqlServerTest, ChangeUser) {
  auth_.Add("root", {"pw"});
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  LoginOptions lo;
  lo.password = "pw";
  ASSERT_TRUE(c.LoginOk(lo));
  auto change = [&](std::string_view user, std::string_view password) {
    std::string body;
    PutNulString(body, user);
    std::string auth = NativePasswordResponse(password, c.greeting().scramble);
    PutU8(body, static_cast<uint8_t>(auth.size()));
    body += auth;
    PutNulString(body, "db2");
    PutU16(body, 45);
    PutNulString(body, "mysql_native_password");
    return c.SendCommand(CommandCode::kChangeUser, body);
  };
  ASSERT_TRUE(change("root", "pw"));
  Response ok = c.ReadResponse();
  ASSERT_FALSE(ok.err);
  {
    std::lock_guard<std::mutex> lock(state_.mu);
    EXPECT_EQ(state_.last_database, "db2");
  }
  EXPECT_EQ(state_.live_sessions.load(), 1);
  ASSERT_TRUE(change("root", "nope"));
  Response denied = c.ReadResponse();
  ASSERT_TRUE(denied.err);
  EXPECT_EQ(denied.err->code, 1045);
  EXPECT_TRUE(c.ServerClosed());
}

TEST_F(MysqlServerTest, PipelinedCommandsInOneWrite) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  std::string wire;
  uint8_t seq = 0;
  AppendFrames(wire, "\x03SELECT 1", &seq);
  seq = 0;
  AppendFrames(wire, "\x0e", &seq);
  seq = 0;
  AppendFrames(wire, "\x03SELECT rows", &seq);
  ASSERT_TRUE(c.SendRaw(wire));
  EXPECT_EQ(c.ReadResponse().results.at(0).rows.size(), 1u);
  EXPECT_TRUE(c.ReadResponse().results.at(0).is_ok);
  EXPECT_EQ(c.ReadResponse().results.at(0).rows.size(), 3u);
}

TEST_F(MysqlServerTest, QueryLargerThanOneFrame) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port(), 30000));
  ASSERT_TRUE(c.LoginOk());
  std::string sql = "ECHO " + std::string(kMaxFramePayload + 100, 'x');
  Response r = c.Query(sql);
  ASSERT_FALSE(r.err);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].rows.at(0).at(0), std::to_string(sql.size()));
}

TEST_F(MysqlServerTest, OversizedPacketGetsErrorAndClose) {
  MysqlServer::Options o;
  o.max_packet_bytes = 4096;
  StartServer(o);
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  // Only the header: the server refuses before the body arrives.
  std::string header("\x00\x00\x10\x00", 4);
  ASSERT_TRUE(c.SendRaw(header));
  Response r = c.ReadResponse();
  ASSERT_TRUE(r.err);
  EXPECT_EQ(r.err->code, 1153);
  EXPECT_TRUE(c.ServerClosed());
  ExpectServerHealthy();
}

TEST_F(MysqlServerTest, MalformedCommandsGetErrors) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  ASSERT_TRUE(c.SendPacket("", 0));  // empty command packet
  Response empty = c.ReadResponse();
  ASSERT_TRUE(empty.err);
  EXPECT_EQ(empty.err->code, 1835);
  ASSERT_TRUE(c.SendCommand(CommandCode::kSetOption, "\1"));  // needs 2 bytes
  Response short_option = c.ReadResponse();
  ASSERT_TRUE(short_option.err);
  EXPECT_EQ(short_option.err->code, 1835);
  ASSERT_TRUE(c.SendCommand(CommandCode::kChangeUser, "no-terminator"));
  Response bad_change = c.ReadResponse();
  ASSERT_TRUE(bad_change.err);
  EXPECT_EQ(bad_change.err->code, 1835);
  EXPECT_EQ(c.Query("SELECT 1").results.size(), 1u);
}

TEST_F(MysqlServerTest, GarbageInsteadOfHandshake) {
  StartServer();
  TestClient healthy;
  ASSERT_TRUE(healthy.Connect(server_->port()));
  ASSERT_TRUE(healthy.LoginOk());

  {
    // An HTTP request: "GET " reads as a 5.5 MB packet, far over the handshake limit.
    TestClient http;
    ASSERT_TRUE(http.Connect(server_->port()));
    ASSERT_TRUE(http.ReadGreeting());
    ASSERT_TRUE(http.SendRaw("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    auto reply = http.ReadPacket();
    ASSERT_TRUE(reply);
    auto e = test::ParseErr(reply->payload);
    EXPECT_EQ(e.code, 1043);
    EXPECT_TRUE(http.ServerClosed());
  }
  // Random bytes (a fixed pseudo-random stream), in well-formed and broken framing.
  uint32_t x = 12345;
  for (int round = 0; round < 20; ++round) {
    TestClient junk;
    ASSERT_TRUE(junk.Connect(server_->port()));
    ASSERT_TRUE(junk.ReadGreeting());
    std::string bytes;
    for (int i = 0; i < 200; ++i) {
      x = x * 1103515245 + 12345;
      bytes.push_back(static_cast<char>(x >> 16));
    }
    if (round % 2 == 0) {
      uint8_t seq = 1;
      std::string framed;
      AppendFrames(framed, bytes, &seq);
      bytes = framed;
    }
    ASSERT_TRUE(junk.SendRaw(bytes));
    // An ERR and a close, a close at the handshake timeout (for a huge announced length), or -- when the bytes
    // happen to parse as a response naming another auth plugin -- an auth switch; never a login.
    auto reply = junk.ReadPacket();
    if (reply) {
      auto header = static_cast<uint8_t>(reply->payload[0]);
      EXPECT_TRUE(header == 0xff || header == 0xfe) << round << ": " << int(header);
    }
  }
  // Bytes before the greeting was even read; then the client vanishes.
  {
    TestClient early;
    ASSERT_TRUE(early.Connect(server_->port()));
    ASSERT_TRUE(early.SendRaw(std::string(100, '\xff')));
  }
  EXPECT_EQ(healthy.Query("SELECT rows").results.at(0).rows.size(), 3u);
  ExpectServerHealthy();
}

TEST_F(MysqlServerTest, SslRequestIsRefused) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.ReadGreeting());
  std::string ssl;
  PutU32(ssl, cap::kProtocol41 | cap::kSsl | cap::kSecureConnection);
  PutU32(ssl, 1 << 24);
  PutU8(ssl, 45);
  ssl.append(23, '\0');
  ASSERT_TRUE(c.SendPacket(ssl, 1));
  auto reply = c.ReadPacket();
  ASSERT_TRUE(reply);
  EXPECT_EQ(test::ParseErr(reply->payload).code, 1043);
  EXPECT_TRUE(c.ServerClosed());
}

TEST_F(MysqlServerTest, SilentClientIsDroppedAfterHandshakeTimeout) {
  MysqlServer::Options o;
  o.handshake_timeout_s = 1;
  StartServer(o);
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.ReadGreeting());
  auto start = std::chrono::steady_clock::now();
  // A slowloris: one byte, then silence.
  ASSERT_TRUE(c.SendRaw("\x50"));
  EXPECT_TRUE(c.ServerClosed());
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 4s);
  EXPECT_TRUE(WaitForNoConnections());
}

TEST_F(MysqlServerTest, IdleConnectionIsClosed) {
  MysqlServer::Options o;
  o.idle_timeout_s = 1;
  StartServer(o);
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  EXPECT_TRUE(c.ServerClosed());
  EXPECT_TRUE(WaitForNoConnections());
  EXPECT_EQ(state_.live_sessions.load(), 0);
}

TEST_F(MysqlServerTest, ClientDisconnectsMidQuery) {
  StartServer();
  for (int i = 0; i < 3; ++i) {
    TestClient c;
    ASSERT_TRUE(c.Connect(server_->port()));
    ASSERT_TRUE(c.LoginOk());
    ASSERT_TRUE(c.SendCommand(CommandCode::kQuery, "SLEEP"));
    // Abortive close (RST), like a killed client.
    linger lg{1, 0};
    ::setsockopt(c.fd(), SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    c.Close();
  }
  EXPECT_TRUE(WaitForNoConnections());
  EXPECT_EQ(state_.live_sessions.load(), 0);
  ExpectServerHealthy();
}

size_t ThreadCount() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST_F(MysqlServerTest, ConnectionThreadsAreJoined) {
  StartServer();
  size_t baseline = ThreadCount();
  for (int i = 0; i < 20; ++i) {
    TestClient c;
    ASSERT_TRUE(c.Connect(server_->port()));
    if (i % 3 == 0) {
      ASSERT_TRUE(c.LoginOk());
    } else if (i % 3 == 1) {
      ASSERT_TRUE(c.ReadGreeting());
      ASSERT_TRUE(c.SendRaw("garbage!"));
    }
  }
  EXPECT_TRUE(WaitForNoConnections());
  // Finished threads are joined by the accept loop within about a second.
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (ThreadCount() > baseline && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(ThreadCount(), baseline);
}

TEST_F(MysqlServerTest, TooManyConnections) {
  // max_connections counts logged-in connections; an administrator (root here) may take one more.
  auth_.Add("app", {"pw"});
  MysqlServer::Options o;
  o.max_connections = 2;
  StartServer(o);
  LoginOptions app;
  app.user = "app";
  app.password = "pw";
  TestClient a, b, c;
  ASSERT_TRUE(a.Connect(server_->port()));
  ASSERT_TRUE(a.LoginOk(app));
  ASSERT_TRUE(b.Connect(server_->port()));
  ASSERT_TRUE(b.LoginOk(app));
  ASSERT_TRUE(c.Connect(server_->port()));
  auto refused = c.Login(app);
  ASSERT_TRUE(refused);
  auto e = test::ParseErr(refused->payload);
  EXPECT_EQ(e.code, 1040);
  EXPECT_EQ(e.message, "Too many connections");
  EXPECT_TRUE(c.ServerClosed());

  TestClient admin, admin2;
  ASSERT_TRUE(admin.Connect(server_->port()));
  ASSERT_TRUE(admin.LoginOk());  // the administrator's extra slot
  ASSERT_TRUE(admin2.Connect(server_->port()));
  auto second_admin = admin2.Login(LoginOptions{});
  ASSERT_TRUE(second_admin);
  EXPECT_EQ(test::ParseErr(second_admin->payload).code, 1040);
  EXPECT_EQ(server_->logged_in_connections(), 3u);

  ASSERT_TRUE(a.SendCommand(CommandCode::kQuit));
  EXPECT_TRUE(a.ServerClosed());
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server_->logged_in_connections() > 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  TestClient d;
  ASSERT_TRUE(d.Connect(server_->port()));
  EXPECT_FALSE(d.LoginOk(app));  // root's extra connection still counts: 2 logged in, the cap
  TestClient f;
  ASSERT_TRUE(b.SendCommand(CommandCode::kQuit));
  EXPECT_TRUE(b.ServerClosed());
  deadline = std::chrono::steady_clock::now() + 5s;
  while (server_->logged_in_connections() > 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(f.Connect(server_->port()));
  EXPECT_TRUE(f.LoginOk(app));
}

TEST_F(MysqlServerTest, PortInUse) {
  StartServer();
  MysqlServer::Options o;
  o.port = server_->port();
  o.authenticator = &auth_;
  MysqlServer second(o, factory_);
  Status st = second.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("already in use"), std::string::npos) << st.message();
}

TEST_F(MysqlServerTest, StopClosesOpenConnections) {
  StartServer();
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(std::make_unique<TestClient>());
    ASSERT_TRUE(clients.back()->Connect(server_->port()));
    if (i % 2 == 0) {
      ASSERT_TRUE(clients.back()->LoginOk());  // the others stay in the handshake
    }
  }
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  for (auto& c : clients) EXPECT_TRUE(c->ServerClosed());
  EXPECT_EQ(state_.live_sessions.load(), 0);
  server_->Stop();  // idempotent
}

TEST_F(MysqlServerTest, FiftyConcurrentClients) {
  StartServer();
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 50; ++t) {
    threads.emplace_back([&] {
      TestClient c;
      if (!c.Connect(server_->port()) || !c.LoginOk()) return;
      for (int i = 0; i < 20; ++i) {
        Response r = c.Query(i % 2 ? "SELECT rows" : "INSERT INTO t VALUES (1)");
        if (r.err || r.io_error || r.results.size() != 1) return;
      }
      good.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 50);
  EXPECT_TRUE(WaitForNoConnections());
}

// Prepared statements over the wire: binary rows, then a read-only cursor read with COM_STMT_FETCH.
TEST_F(MysqlServerTest, PreparedStatementRowsAndCursor) {
  StartServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.LoginOk());
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtPrepare, "SELECT rows"));
  auto prep = c.ReadPacket();
  ASSERT_TRUE(prep);
  ASSERT_EQ(static_cast<uint8_t>(prep->payload[0]), 0x00);
  const std::string id = prep->payload.substr(1, 4);
  EXPECT_EQ(prep->payload.substr(5, 2), std::string("\3\0", 2));  // the session described three columns
  EXPECT_EQ(prep->payload.substr(7, 2), std::string("\0\0", 2));  // no parameters: the columns follow at once
  // DEPRECATE_EOF: three column definitions and no EOF; the next packet is the execute's.
  for (const char* name : {"id", "name", "ok"}) {
    auto def = c.ReadPacket();
    ASSERT_TRUE(def);
    EXPECT_NE(def->payload.find(name), std::string::npos) << name;
  }

  auto read_head = [&](int columns) {
    auto count = c.ReadPacket();
    ASSERT_TRUE(count);
    EXPECT_EQ(static_cast<uint8_t>(count->payload[0]), columns);
    for (int i = 0; i < columns; ++i) ASSERT_TRUE(c.ReadPacket());
  };
  // Without a cursor: three binary rows, then the end.
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtExecute, id + std::string("\0\1\0\0\0", 5)));
  read_head(3);
  auto first = c.ReadPacket();
  ASSERT_TRUE(first);
  // header, a 1-byte NULL bitmap (3 columns + 2), BIGINT 1, "Johann Georg Faust", TINY 1
  EXPECT_EQ(first->payload, std::string("\0\0\1\0\0\0\0\0\0\0\x12Johann Georg Faust\1", 30));
  auto second = c.ReadPacket();
  ASSERT_TRUE(second);
  EXPECT_EQ(static_cast<uint8_t>(second->payload[1]), 1u << 3);  // column 1 (name) is NULL
  ASSERT_TRUE(c.ReadPacket());
  auto end = c.ReadPacket();
  ASSERT_TRUE(end);
  EXPECT_EQ(static_cast<uint8_t>(end->payload[0]), 0xfe);

  // With a cursor: the columns now, the rows by COM_STMT_FETCH.
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtExecute, id + std::string("\1\1\0\0\0", 5)));
  read_head(3);
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtFetch, id + std::string("\2\0\0\0", 4)));
  ASSERT_TRUE(c.ReadPacket());
  ASSERT_TRUE(c.ReadPacket());
  auto more = c.ReadPacket();
  ASSERT_TRUE(more);
  ASSERT_EQ(static_cast<uint8_t>(more->payload[0]), 0xfe);
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtFetch, id + std::string("\2\0\0\0", 4)));
  ASSERT_TRUE(c.ReadPacket());
  auto last = c.ReadPacket();
  ASSERT_TRUE(last);
  ASSERT_EQ(static_cast<uint8_t>(last->payload[0]), 0xfe);
  // OK-as-EOF: header, affected rows 0, insert id 0, then the status flags with LAST_ROW_SENT (0x80).
  EXPECT_TRUE(static_cast<uint8_t>(last->payload[3]) & 0x80) << "last row sent";
  ASSERT_TRUE(c.SendCommand(CommandCode::kStmtFetch, id + std::string("\2\0\0\0", 4)));
  Response no_cursor = c.ReadResponse();
  ASSERT_TRUE(no_cursor.err);
  EXPECT_EQ(no_cursor.err->code, 1421);
}


}  // namespace
}  // namespace sluice::server
