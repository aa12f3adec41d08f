#include "iceberg/jdbc_catalog.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cctype>
#include <cstdlib>
#include <optional>

#include "common/egress_policy.h"
#include "pgconn/deadlines.h"

namespace sluice::iceberg {

struct JdbcCatalog::QueryResult {
  std::vector<std::vector<std::optional<std::string>>> rows;
  int64_t affected = 0;
};

namespace {

constexpr const char* kCreateTables =
    "CREATE TABLE IF NOT EXISTS iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) "
    "NOT NULL, table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location "
    "VARCHAR(1000), PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr const char* kCreateNamespaceProperties =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL, namespace "
    "VARCHAR(255) NOT NULL, property_key VARCHAR(255), property_value VARCHAR(1000), PRIMARY KEY (catalog_name, "
    "namespace, property_key))";

std::string Sqlstate(PGresult* r) {
  const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  return s ? s : "";
}

std::string Oneline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

}  // namespace

JdbcCatalog::JdbcCatalog(pg_conn* conn, std::string catalog_name, std::string where)
    : db_(conn, pgconn::CurrentDeadlines().catalog_answer), conn_(conn), catalog_name_(std::move(catalog_name)), where_(std::move(where)) {}

JdbcCatalog::~JdbcCatalog() = default;

namespace {

struct JdbcTarget {
  std::string host, hostaddr;
  int port = 5432;
};

bool IsServerFileKeyword(const std::string& key) {
  static const char* const kFiles[] = {"passfile", "service", "sslcert", "sslkey", "sslrootcert", "sslcrl",
                                       "sslcrldir", "sslkeylogfile"};
  for (const char* k : kFiles)
    if (key == k) return true;
  return false;
}

Result<JdbcTarget> ParseJdbcTarget(const std::string& uri) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &error);
  if (options == nullptr) {
    std::string why = error ? Oneline(error) : "libpq could not read it";
    if (error) PQfreemem(error);
    return Status::InvalidArgument("iceberg.catalog.uri is not a PostgreSQL connection string or URI: " + why);
  }
  JdbcTarget target;
  for (PQconninfoOption* o = options; o->keyword != nullptr; o++) {
    if (o->val == nullptr) continue;
    std::string key = o->keyword;
    // libpq would read these files of the server's own (its keys, certificates, password and service files): a
    // catalog definition must not make the server use them, nor tell whether they exist.
    if (IsServerFileKeyword(key)) {
      PQconninfoFree(options);
      return Status::AccessDenied("Access denied: iceberg.catalog.uri may not set '" + key + "': it names a file "
                                  "on the Sluice server; give the catalog's user and password in "
                                  "iceberg.catalog.jdbc.user / iceberg.catalog.jdbc.password instead");
    }
    if (key == "host") target.host = o->val;
    else if (key == "hostaddr") target.hostaddr = o->val;
    else if (key == "port" && *o->val) target.port = std::atoi(o->val);
  }
  PQconninfoFree(options);
  return target;
}

std::string WithoutJdbcPrefix(const std::string& uri) { return uri.rfind("jdbc:", 0) == 0 ? uri.substr(5) : uri; }

// The address to connect to (hostaddr) when the egress list applies to the name; nothing to connect by name.
Result<std::optional<std::string>> JdbcEgress(const std::string& raw_uri) {
  Result<JdbcTarget> parsed = ParseJdbcTarget(WithoutJdbcPrefix(raw_uri));
  // Text libpq cannot read at all reaches nothing; with egress unrestricted it is reported when the catalog is
  // first connected to, after CREATE EXTERNAL CATALOG's own checks of its properties.
  if (!parsed.ok() && parsed.status().code() == StatusCode::kInvalidArgument &&
      egress::CurrentEgressPolicy().unrestricted())
    return std::optional<std::string>();
  if (!parsed.ok()) return parsed.status();
  const JdbcTarget& t = *parsed;
  const char* what = "Iceberg JDBC catalog (PostgreSQL)";
  // Over a Unix socket PostgreSQL may take the server's own OS user for the catalog's (peer authentication), and
  // without a host libpq uses that socket.
  if (t.hostaddr.empty() && (t.host.empty() || t.host[0] == '/' || t.host[0] == '@'))
    return Status::AccessDenied("Access denied: " + std::string(what) + ": iceberg.catalog.uri must name a TCP "
                                "host (e.g. jdbc:postgresql://127.0.0.1:5432/iceberg); a Unix socket of the Sluice "
                                "server is not allowed");
  if (egress::CurrentEgressPolicy().unrestricted()) return std::optional<std::string>();
  if (t.host.find(',') != std::string::npos || t.hostaddr.find(',') != std::string::npos)
    return Status::NotSupported(std::string(what) + ": name one host in iceberg.catalog.uri while the server "
                                "restricts egress (--allow-egress)");
  if (!t.hostaddr.empty()) {
    RETURN_IF_ERROR(egress::CurrentEgressPolicy().CheckTarget(what, t.hostaddr, t.port));
    return std::optional<std::string>();
  }
  return egress::AllowedAddressFor(what, t.host, t.port);
}

}  // namespace

Status CheckJdbcEgress(const std::string& uri) { return JdbcEgress(uri).status(); }

Result<std::unique_ptr<JdbcCatalog>> JdbcCatalog::Connect(const std::string& raw_uri, const std::string& catalog_name,
                                                          const std::string& user, const std::string& password) {
  std::string uri = raw_uri.rfind("jdbc:", 0) == 0 ? raw_uri.substr(5) : raw_uri;
  // passfile: never the server user's ~/.pgpass, whose passwords a catalog naming that host would borrow.
  // Bounded on the client: connecting (connect_timeout), a peer gone (TCP keepalives, tcp_user_timeout) and a
  // server that hangs (the answer deadline, in Exec); both set by `sluice serve` (pgconn/deadlines.h).
  const std::string connect_timeout = std::to_string(pgconn::CurrentDeadlines().catalog_connect.count());
  std::vector<const char*> keys = {"dbname", "connect_timeout", "application_name", "passfile"};
  std::vector<const char*> values = {uri.c_str(), connect_timeout.c_str(), "sluice", "/dev/null"};
  sluice::pgconn::AddTcpBounds(keys, values);
  if (!user.empty()) {
    keys.push_back("user");
    values.push_back(user.c_str());
  }
  if (!password.empty()) {
    keys.push_back("password");
    values.push_back(password.c_str());
  }
  // Behind the egress list the connection goes to the address checked, never to what the name resolves to later.
  ASSIGN_OR_RETURN(std::optional<std::string> hostaddr, JdbcEgress(raw_uri));
  if (hostaddr) {
    keys.push_back("hostaddr");
    values.push_back(hostaddr->c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  // expand_dbname = 1: "dbname" holding a connection string or URI is expanded, later keys override it.
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), 1);
  if (conn == nullptr) return Status::Internal("libpq could not allocate a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = Oneline(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::Unavailable(fmt::format(
        "cannot connect to the Iceberg JDBC catalog's PostgreSQL: {} (check iceberg.catalog.uri, the user and "
        "password, and that PostgreSQL accepts connections from this host)", msg));
  }
  // CREATE TABLE IF NOT EXISTS answers with NOTICEs, which libpq would print on stderr.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  std::string where = fmt::format("{}:{}/{}", PQhost(conn) ? PQhost(conn) : "", PQport(conn) ? PQport(conn) : "",
                                  PQdb(conn) ? PQdb(conn) : "");
  auto catalog = std::unique_ptr<JdbcCatalog>(new JdbcCatalog(conn, catalog_name, where));
  RETURN_IF_ERROR(catalog->EnsureTables());
  return catalog;
}

Result<JdbcCatalog::QueryResult> JdbcCatalog::Exec(const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  for (int attempt = 0; attempt < 2; attempt++) {
    if (!db_.ok()) {
      // Still no connection (PostgreSQL down, restarting, cut off, hanging): say so with libpq's reason, not the
      // "no connection to the server" a statement on a dead connection would answer.
      if (!db_.Reset()) {
        return Status::Unavailable(fmt::format("Iceberg JDBC catalog at {} cannot be reached: {}; retry once its "
                                               "PostgreSQL answers", where_, Oneline(PQerrorMessage(conn_))));
      }
    }
    bool timed_out = false;
    PGresult* r = db_.Exec(sql, values, &timed_out);
    if (timed_out) {
      // No answer: the server hangs. Like a lost connection, tried once more on a new one -- whose Reset ends
      // the session this statement may still wait in, so a swap retried there cannot be overtaken by it.
      if (attempt == 0) continue;
      return Status::Unavailable(fmt::format("Iceberg JDBC catalog at {} cannot be reached: no answer within {:g} s; "
                                             "retry once its PostgreSQL answers", where_,
                                             db_.deadline().count() / 1000.0));
    }
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
      QueryResult out;
      for (int i = 0; i < PQntuples(r); i++) {
        std::vector<std::optional<std::string>> row;
        for (int c = 0; c < PQnfields(r); c++) {
          if (PQgetisnull(r, i, c)) {
            row.emplace_back(std::nullopt);
          } else {
            row.emplace_back(std::string(PQgetvalue(r, i, c), static_cast<size_t>(PQgetlength(r, i, c))));
          }
        }
        out.rows.push_back(std::move(row));
      }
      const char* tuples = PQcmdTuples(r);
      out.affected = tuples && *tuples ? std::stoll(tuples) : 0;
      PQclear(r);
      return out;
    }
    std::string state = r ? Sqlstate(r) : "";
    std::string msg = Oneline(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
    PQclear(r);
    if (!db_.ok() && attempt == 0) continue;  // lost connection: reconnect and retry once
    if (state == "23505") return Status::AlreadyExists(msg);
    if (state.rfind("08", 0) == 0 || !db_.ok()) {
      return Status::Unavailable(fmt::format("Iceberg JDBC catalog at {}: {}", where_, msg));
    }
    if (state == "42501") {
      return Status::AccessDenied(fmt::format(
          "Iceberg JDBC catalog at {}: {} (the catalog's user needs SELECT, INSERT, UPDATE, DELETE on iceberg_tables "
          "and iceberg_namespace_properties, and CREATE the first time)", where_, msg));
    }
    return Status::Internal(fmt::format("Iceberg JDBC catalog at {}: {}", where_, msg));
  }
  return Status::Unavailable(fmt::format("Iceberg JDBC catalog at {}: the connection was lost", where_));
}

Status JdbcCatalog::EnsureTables() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const char* ddl : {kCreateTables, kCreateNamespaceProperties}) {
    auto r = Exec(ddl, {});
    // Two processes creating the tables at once: one of them sees a duplicate key in pg_type; the tables exist.
    if (!r.ok() && r.status().code() != StatusCode::kAlreadyExists) return r.status();
  }
  auto cols = Exec("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND "
                   "table_name = 'iceberg_tables' AND column_name = 'iceberg_type'", {});
  if (!cols.ok()) return cols.status();
  has_iceberg_type_ = !cols->rows.empty();
  return Status::Ok();
}

Result<std::string> JdbcCatalog::LoadTable(const TableIdent& table) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string sql =
      "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND "
      "table_name = $3";
  if (has_iceberg_type_) sql += " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
  ASSIGN_OR_RETURN(QueryResult r, Exec(sql, {catalog_name_, table.NamespaceString(), table.name}));
  if (r.rows.empty() || !r.rows[0][0]) {
    return Status::UnknownTable(fmt::format("Iceberg table {} does not exist in catalog {}", table.ToString(),
                                            catalog_name_));
  }
  return *r.rows[0][0];
}

Result<bool> JdbcCatalog::NamespaceExists(const std::vector<std::string>& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  TableIdent t{ns, ""};
  // As Java's JdbcUtil.namespaceExists: a namespace exists when it has properties or tables.
  ASSIGN_OR_RETURN(QueryResult r,
                   Exec("SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2 "
                        "UNION ALL SELECT 1 FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 "
                        "LIMIT 1",
                        {catalog_name_, t.NamespaceString()}));
  return !r.rows.empty();
}

Result<std::vector<std::string>> JdbcCatalog::ListNamespaces() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(QueryResult r,
                   Exec("SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = $1 UNION "
                        "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = $1 ORDER BY 1",
                        {catalog_name_}));
  std::vector<std::string> out;
  for (const auto& row : r.rows)
    if (row[0]) out.push_back(*row[0]);
  return out;
}

Status JdbcCatalog::DropNamespace(const std::vector<std::string>& ns) {
  ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  TableIdent t{ns, ""};
  if (!exists) {
    return Status::UnknownDatabase(fmt::format("Iceberg namespace {} does not exist in catalog {}",
                                               t.NamespaceString(), catalog_name_));
  }
  ASSIGN_OR_RETURN(auto tables, ListTables(ns));
  if (!tables.empty()) {
    return Status::InvalidArgument(fmt::format("Iceberg namespace {} still has {} table(s): drop them first",
                                               t.NamespaceString(), tables.size()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto r = Exec("DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2",
                {catalog_name_, t.NamespaceString()});
  return r.status();
}

Status JdbcCatalog::CreateNamespace(const std::vector<std::string>& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  TableIdent t{ns, ""};
  // Java's JdbcCatalog marks a namespace with the property exists = true.
  auto r = Exec("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) "
                "VALUES ($1, $2, 'exists', 'true')",
                {catalog_name_, t.NamespaceString()});
  if (!r.ok() && r.status().code() == StatusCode::kAlreadyExists) {
    return Status::DatabaseExists(fmt::format("Iceberg namespace {} already exists in catalog {}",
                                              t.NamespaceString(), catalog_name_));
  }
  return r.status();
}

Status JdbcCatalog::CreateTable(const TableIdent& table, const std::string& metadata_location) {
  ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(table.ns));
  if (!ns_exists) {
    return Status::UnknownDatabase(fmt::format("Iceberg namespace {} does not exist in catalog {}: create it first",
                                               table.NamespaceString(), catalog_name_));
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::string sql = has_iceberg_type_
                        ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
                          "previous_metadata_location, iceberg_type) VALUES ($1, $2, $3, $4, NULL, 'TABLE')"
                        : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
                          "previous_metadata_location) VALUES ($1, $2, $3, $4, NULL)";
  auto r = Exec(sql, {catalog_name_, table.NamespaceString(), table.name, metadata_location});
  if (!r.ok() && r.status().code() == StatusCode::kAlreadyExists) {
    return Status::TableExists(fmt::format("Iceberg table {} already exists in catalog {}", table.ToString(),
                                           catalog_name_));
  }
  return r.status();
}

Result<CommitOutcome> JdbcCatalog::CommitTable(const TableIdent& table, const std::string& expected_metadata_location,
                                               const std::string& new_metadata_location) {
  ASSIGN_OR_RETURN(CommitResult r, CommitTableGuarded(table, expected_metadata_location, new_metadata_location, {}));
  return r.outcome;
}

namespace {

// A guard's SQL with its parameters $1..$n renumbered to $(1 + offset)..$(n + offset), to run beside the swap's own.
std::string RenumberParams(const std::string& sql, size_t offset) {
  std::string out;
  for (size_t i = 0; i < sql.size(); i++) {
    if (sql[i] == '$' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      size_t j = i + 1;
      while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) j++;
      out += "$" + std::to_string(std::stoul(sql.substr(i + 1, j - i - 1)) + offset);
      i = j - 1;
      continue;
    }
    out += sql[i];
  }
  return out;
}

}  // namespace

Result<bool> JdbcCatalog::RunsGuards(const CommitGuard& witness) {
  std::lock_guard<std::mutex> lock(mu_);
  auto r = Exec(witness.sql, witness.params);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kUnavailable) return r.status();
    return false;  // no such table or no privilege here: another database, as far as guards go
  }
  return !r->rows.empty();
}

Result<CommitResult> JdbcCatalog::CommitTableGuarded(const TableIdent& table,
                                                     const std::string& expected_metadata_location,
                                                     const std::string& new_metadata_location,
                                                     const std::vector<CommitGuard>& guards) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> params = {new_metadata_location, expected_metadata_location, catalog_name_,
                                     table.NamespaceString(), table.name};
  std::string sql =
      "UPDATE iceberg_tables SET metadata_location = $1, previous_metadata_location = $2 WHERE "
      "catalog_name = $3 AND table_namespace = $4 AND table_name = $5 AND metadata_location = $2";
  // Each guard in the same statement: PostgreSQL takes its row locks before it updates the row, and an autocommit
  // statement holds them until it has committed, so no one changes a guarded row between the check and the swap.
  for (const auto& g : guards) {
    sql += " AND EXISTS (" + RenumberParams(g.sql, params.size()) + ")";
    params.insert(params.end(), g.params.begin(), g.params.end());
  }
  ASSIGN_OR_RETURN(QueryResult r, Exec(sql, params));
  CommitResult result;
  if (r.affected == 1) {
    result.outcome = CommitOutcome::kCommitted;
    return result;
  }
  // Nothing updated: another writer moved the table on, or the table is gone -- or this very swap landed and its
  // answer was lost with the connection (PostgreSQL went away after the commit), and Exec's retry found the table
  // already at new_metadata_location. Metadata file names are unique (a UUID each), so a table that points at
  // ours was swapped by us: that is a commit, and calling it a conflict would make the caller delete the
  // metadata the table now points to.
  ASSIGN_OR_RETURN(QueryResult current, Exec("SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 "
                                             "AND table_namespace = $2 AND table_name = $3",
                                             {catalog_name_, table.NamespaceString(), table.name}));
  if (current.rows.empty()) {
    return Status::UnknownTable(fmt::format("Iceberg table {} was dropped from catalog {} during the commit",
                                            table.ToString(), catalog_name_));
  }
  if (current.rows[0][0] && *current.rows[0][0] == new_metadata_location) {
    result.outcome = CommitOutcome::kCommitted;
    return result;
  }
  // Not ours: a guard that no longer holds refused it (what the caller must hear: its right to commit is gone);
  // otherwise another writer committed first.
  for (const auto& g : guards) {
    ASSIGN_OR_RETURN(QueryResult held, Exec(g.sql, g.params));
    if (held.rows.empty()) {
      result.outcome = CommitOutcome::kRefused;
      result.refused = g.refused;
      return result;
    }
  }
  result.outcome = CommitOutcome::kConflict;
  return result;
}

Result<std::vector<TableIdent>> JdbcCatalog::ListTables(const std::vector<std::string>& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  TableIdent t{ns, ""};
  std::string sql = "SELECT table_name FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2";
  if (has_iceberg_type_) sql += " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
  sql += " ORDER BY table_name";
  ASSIGN_OR_RETURN(QueryResult r, Exec(sql, {catalog_name_, t.NamespaceString()}));
  std::vector<TableIdent> out;
  for (const auto& row : r.rows) {
    if (row[0]) out.push_back(TableIdent{ns, *row[0]});
  }
  return out;
}

Status JdbcCatalog::DropTable(const TableIdent& table) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(QueryResult r, Exec("DELETE FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 "
                                       "AND table_name = $3",
                                       {catalog_name_, table.NamespaceString(), table.name}));
  if (r.affected == 0) {
    return Status::UnknownTable(fmt::format("Iceberg table {} does not exist in catalog {}", table.ToString(),
                                            catalog_name_));
  }
  return Status::Ok();
}

}  // namespace sluice::iceberg
