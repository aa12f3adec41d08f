#include "cluster/pg_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <libpq-fe.h>

#include "pgconn/deadlines.h"

namespace sluice::cluster {

namespace {

std::string Oneline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s;
}

// Every statement is bounded twice: by the server (statement, lock and idle timeouts) while it runs, and by the
// client's deadline (PgClient::deadline(), pgconn/deadlines.h) and TCP bounds when it hangs or its machine is gone,
// so that a PostgreSQL that stops answering (not only one that refuses connections) cannot hold the heartbeat
// thread, a lease call or SHOW NODES for long.
std::string SessionOptions(const pgconn::Deadlines& d) {
  return fmt::format("-c statement_timeout={} -c lock_timeout={} -c idle_in_transaction_session_timeout={}",
                     d.cluster_statement_timeout().count(), d.cluster_lock_timeout().count(),
                     std::max<int64_t>(10000, d.cluster_answer.count() + 3000));
}

}  // namespace

Status PgClient::CheckUri(const std::string& uri) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &error);
  if (options == nullptr) {
    std::string why = error ? Oneline(error) : "libpq could not read it";
    if (error) PQfreemem(error);
    return Status::InvalidArgument("--cluster is not a PostgreSQL connection string or URI (" + why +
                                   "); write it as 'postgresql://user@host:5432/dbname' or "
                                   "'host=... port=... dbname=... user=...'");
  }
  // libpq reads a port only when it connects; a typo there would otherwise be retried forever.
  std::string bad_port;
  for (PQconninfoOption* o = options; o->keyword != nullptr; o++) {
    if (o->val == nullptr || std::string(o->keyword) != "port") continue;
    std::string ports = o->val;
    size_t start = 0;
    while (start <= ports.size()) {
      size_t end = ports.find(',', start);
      std::string port = ports.substr(start, end == std::string::npos ? std::string::npos : end - start);
      bool digits = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
      if (!port.empty() && (!digits || std::stoi(port) == 0 || std::stoi(port) > 65535)) bad_port = port;
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  PQconninfoFree(options);
  if (!bad_port.empty())
    return Status::InvalidArgument("--cluster is not a PostgreSQL connection string or URI (its port '" + bad_port +
                                   "' is not a number from 1 to 65535)");
  return Status::Ok();
}

std::string PgClient::Describe(const std::string& uri) {
  std::string host, port = "5432", db;
  if (PQconninfoOption* options = PQconninfoParse(uri.c_str(), nullptr)) {
    for (PQconninfoOption* o = options; o->keyword != nullptr; o++) {
      if (o->val == nullptr || *o->val == '\0') continue;
      std::string key = o->keyword;
      if (key == "host" || (key == "hostaddr" && host.empty())) host = o->val;
      else if (key == "port") port = o->val;
      else if (key == "dbname") db = o->val;
    }
    PQconninfoFree(options);
  }
  return fmt::format("{}:{}/{}", host.empty() ? "localhost" : host, port, db);
}

Result<std::unique_ptr<PgClient>> PgClient::Connect(const std::string& uri) {
  const pgconn::Deadlines& deadlines = pgconn::CurrentDeadlines();
  const std::string connect_timeout = std::to_string(deadlines.cluster_connect.count());
  const std::string session_options = SessionOptions(deadlines);
  std::vector<const char*> keys = {"dbname", "connect_timeout", "application_name", "options"};
  std::vector<const char*> values = {uri.c_str(), connect_timeout.c_str(), "sluice-cluster", session_options.c_str()};
  pgconn::AddTcpBounds(keys, values);
  keys.push_back(nullptr);
  values.push_back(nullptr);
  // expand_dbname = 1: "dbname" holding a connection string or URI is expanded; the keys after it override it.
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), 1);
  if (conn == nullptr) return Status::Internal("libpq could not allocate a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = Oneline(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::Unavailable(fmt::format("cannot connect to the cluster's PostgreSQL at {}: {}", Describe(uri), msg));
  }
  // CREATE TABLE IF NOT EXISTS answers with NOTICEs, which libpq would print on stderr.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<PgClient>(new PgClient(conn, Describe(uri), deadlines.cluster_answer));
}

PgClient::~PgClient() = default;

Result<PgRows> PgClient::Exec(const std::string& sql, const std::vector<std::string>& params) {
  if (transaction_lost_)
    return Status::Unavailable(fmt::format("the connection to the cluster's PostgreSQL at {} was lost inside a "
                                           "transaction; roll it back and start again", where_));
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  for (int attempt = 0; attempt < 2; attempt++) {
    if (!db_.ok()) {
      if (in_transaction_) {
        transaction_lost_ = true;
        return Status::Unavailable(fmt::format("the connection to the cluster's PostgreSQL at {} was lost inside a "
                                               "transaction", where_));
      }
      if (!db_.Reset())
        return Status::Unavailable(fmt::format("the cluster's PostgreSQL at {} cannot be reached: {}", where_,
                                               Oneline(PQerrorMessage(db_.get()))));
      PQsetNoticeProcessor(db_.get(), [](void*, const char*) {}, nullptr);
    }
    bool timed_out = false;
    PGresult* r = db_.Exec(sql, values, &timed_out);
    if (timed_out) {
      // No answer within the deadline: the server hangs. Not retried (a reconnect would wait as long again); the
      // next call reconnects, and ends the session this statement may still be waiting in first.
      if (in_transaction_) transaction_lost_ = true;
      return Status::Unavailable(fmt::format("the cluster's PostgreSQL at {} cannot be reached: no answer within "
                                             "{:g} s", where_, db_.deadline().count() / 1000.0));
    }
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
      PgRows out;
      for (int i = 0; i < PQntuples(r); i++) {
        std::vector<std::optional<std::string>> row;
        for (int c = 0; c < PQnfields(r); c++) {
          if (PQgetisnull(r, i, c)) row.emplace_back(std::nullopt);
          else row.emplace_back(std::string(PQgetvalue(r, i, c), static_cast<size_t>(PQgetlength(r, i, c))));
        }
        out.rows.push_back(std::move(row));
      }
      const char* tuples = PQcmdTuples(r);
      out.affected = tuples && *tuples ? std::stoll(tuples) : 0;
      out.command = PQcmdStatus(r);
      PQclear(r);
      return out;
    }
    const char* state_field = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    std::string state = state_field ? state_field : "";
    std::string msg = Oneline(r ? PQresultErrorMessage(r) : PQerrorMessage(db_.get()));
    PQclear(r);
    bool lost = PQstatus(db_.get()) != CONNECTION_OK;
    if (lost && in_transaction_) transaction_lost_ = true;
    // A statement that failed because the connection broke is tried once more on a new connection. Statements
    // here are single-statement and idempotent or checked by their WHERE, so running one twice is harmless.
    if (lost && attempt == 0 && !in_transaction_) continue;
    if (lost || state.rfind("08", 0) == 0 || state == "57P01" || state == "57P03")
      return Status::Unavailable(fmt::format("the cluster's PostgreSQL at {} cannot be reached: {}", where_, msg));
    if (state == "40001" || state == "40P01" || state == "55P03" || state == "57014")
      return Status::Conflict(fmt::format("the cluster's PostgreSQL at {}: {}", where_, msg));
    return Status::Internal(fmt::format("the cluster's PostgreSQL at {} refused a statement: {}", where_, msg));
  }
  return Status::Unavailable(fmt::format("the cluster's PostgreSQL at {} cannot be reached", where_));
}

Status PgClient::Begin() {
  if (in_transaction_) return Status::Internal("PgClient::Begin inside a transaction");
  auto r = Exec("BEGIN");
  if (!r.ok()) return r.status();
  in_transaction_ = true;
  transaction_lost_ = false;
  return Status::Ok();
}

Status PgClient::Commit() {
  if (!in_transaction_) return Status::Internal("PgClient::Commit outside a transaction");
  if (transaction_lost_) {
    in_transaction_ = transaction_lost_ = false;
    return Status::Unavailable(fmt::format("the connection to the cluster's PostgreSQL at {} was lost inside the "
                                           "transaction: nothing was committed", where_));
  }
  auto r = Exec("COMMIT");
  in_transaction_ = transaction_lost_ = false;
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kUnavailable)
      return Status::Unavailable(fmt::format("the connection to the cluster's PostgreSQL at {} was lost during "
                                             "COMMIT: whether it committed is unknown", where_));
    return r.status();
  }
  // COMMIT of a transaction in which a statement failed answers ROLLBACK.
  if (r->command == "ROLLBACK")
    return Status::Conflict(fmt::format("the cluster's PostgreSQL at {} rolled the transaction back", where_));
  return Status::Ok();
}

void PgClient::Rollback() {
  if (!in_transaction_) return;
  if (!transaction_lost_) (void)Exec("ROLLBACK");
  in_transaction_ = false;
  transaction_lost_ = false;
}

}  // namespace sluice::cluster
