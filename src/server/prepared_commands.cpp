// Prepared statements over the MySQL protocol: COM_STMT_PREPARE, _EXECUTE, _SEND_LONG_DATA, _RESET, _CLOSE and
// _FETCH. Sluice does not keep a plan from prepare time: it keeps the text and the positions of its `?` markers,
// and at each execute binds the parameters as literals (statement_params.h) and runs the text through the session
// like COM_QUERY -- the same parser, privilege checks, sandbox and translation. A prepare announces a query's result
// columns as MySQL does (drivers read them before the first execute: JDBC's getMetaData(), mysql2's prepare()),
// from the session's description of the text with every marker bound as NULL, and refuses a statement naming an
// unknown table or column, or one the account may not run, as MySQL's prepare does; every execute that returns rows
// sends its column definitions again, then binary rows.
#include <fmt/format.h>

#include "common/log.h"
#include "common/secret_redaction.h"
#include "server/binary_row.h"
#include "server/connection.h"
#include "server/ok_err.h"
#include "server/protocol.h"
#include "server/result_encoder.h"
#include "server/wire.h"
#include "sql/parser.h"
#include "sql/placeholders.h"

namespace sluice::server {

namespace {

constexpr uint8_t kCursorTypeReadOnly = 0x01;

Result<uint32_t> StatementId(WireReader& r) {
  Result<uint32_t> id = r.U32();
  if (!id.ok()) return Status::InvalidArgument("malformed packet: no statement id");
  return id;
}

}  // namespace

Status Connection::HandleStmtPrepare(std::string_view sql) {
  if (log::Enabled(log::Level::kDebug))
    log::Debug("server", "conn {}: prepare: {}", id_, ForLog(RedactSecrets(sql), 1024));
  std::vector<std::string> statements = sql::SplitStatements(sql);
  if (statements.empty()) return SendError(er::kEmptyQuery, "42000", "Query was empty");
  if (statements.size() > 1)
    return SendError(er::kSyntaxError, "42000",
                     "a prepared statement holds one statement: prepare each of them on its own");
  PreparedStatement statement;
  statement.sql = std::move(statements[0]);
  statement.markers = sql::FindPlaceholders(statement.sql);
  if (statement.markers.size() > 0xffff)
    return SendError(er::kSyntaxError, "42000", "a prepared statement may have at most 65535 parameters");
  const uint16_t params = static_cast<uint16_t>(statement.markers.size());
  Result<std::vector<ColumnInfo>> described = ResultColumnsAtPrepare(statement);
  if (!described.ok()) {  // MySQL too refuses such a prepare: no statement id
    if (log::Enabled(log::Level::kDebug))
      log::Debug("server", "conn {}: prepare refused: {}: {}", id_, ForLog(RedactSecrets(statement.sql), 1024),
                 described.status().message());
    return SendError(described.status());
  }
  std::vector<ColumnInfo> columns = std::move(*described);
  if (columns.size() > 0xffff) columns.clear();  // more than the OK can count: the execute sends them
  uint32_t id = statements_.Add(std::move(statement));
  if (id == 0)
    return SendError(er::kTooManyPreparedStatements, "42000",
                     fmt::format("this connection holds {} prepared statements already: close some "
                                 "(COM_STMT_CLOSE, or deallocate them in the driver)",
                                 PreparedStatements::kMaxPerConnection));
  std::string ok;
  PutU8(ok, kOkHeader);
  PutU32(ok, id);
  PutU16(ok, static_cast<uint16_t>(columns.size()));
  PutU16(ok, params);
  PutU8(ok, 0);   // reserved
  PutU16(ok, 0);  // warnings
  RETURN_IF_ERROR(channel_.Write(ok));
  // The parameters' definitions, then the columns', each list ended by an EOF unless CLIENT_DEPRECATE_EOF.
  const bool eof = !(capabilities_ & cap::kDeprecateEof);
  if (params > 0) {
    ColumnInfo param;
    param.name = "?";
    param.type = ValueType::kVarchar;
    for (uint16_t i = 0; i < params; ++i) RETURN_IF_ERROR(channel_.Write(EncodeColumnDefinition(param)));
    if (eof) RETURN_IF_ERROR(channel_.Write(EncodeEof(0, StatusFlags())));
  }
  if (!columns.empty()) {
    for (const ColumnInfo& column : columns) RETURN_IF_ERROR(channel_.Write(EncodeColumnDefinition(column)));
    if (eof) RETURN_IF_ERROR(channel_.Write(EncodeEof(0, StatusFlags())));
  }
  return Status::Ok();
}

Result<std::vector<ColumnInfo>> Connection::ResultColumnsAtPrepare(const PreparedStatement& statement) {
  const std::vector<std::string> nulls(statement.markers.size(), "NULL");
  Result<std::string> text = sql::BindPlaceholders(statement.sql, statement.markers, nulls);
  if (!text.ok()) return std::vector<ColumnInfo>{};
  try {
    return session_->ResultColumns(*text);
  } catch (const std::exception& e) {
    log::Error("server", "conn {}: describing a prepared statement failed with an exception: {}", id_, e.what());
    return std::vector<ColumnInfo>{};
  }
}

Status Connection::HandleStmtExecute(std::string_view body) {
  WireReader r(body);
  Result<uint32_t> id = StatementId(r);
  if (!id.ok()) return SendError(er::kMalformedPacket, "HY000", id.status().message());
  PreparedStatement* statement = statements_.Find(*id);
  if (statement == nullptr)
    return SendError(er::kUnknownStatementHandler, "HY000",
                     fmt::format("Unknown prepared statement handler ({}) given to mysqld_stmt_execute", *id));
  Result<uint8_t> flags = r.U8();
  Status skipped = r.Skip(4);  // iteration count: always 1
  if (!flags.ok() || !skipped.ok())
    return SendError(er::kMalformedPacket, "HY000", "malformed packet: a COM_STMT_EXECUTE without flags");
  Result<std::vector<std::string>> literals =
      DecodeParamLiterals(r, statement->markers.size(), statement->param_types, statement->long_data);
  statement->long_data.clear();
  statement->cursor.reset();
  if (!literals.ok()) return SendError(er::kMalformedPacket, "HY000", literals.status().message());
  Result<std::string> text = sql::BindPlaceholders(statement->sql, statement->markers, *literals);
  if (!text.ok()) return SendError(text.status());

  counters_.questions.fetch_add(1, std::memory_order_relaxed);
  if (log::Enabled(log::Level::kDebug))
    log::Debug("server", "conn {}: execute {}: {}", id_, *id, ForLog(RedactSecrets(*text), 1024));
  Result<StatementResult> result = ExecuteInSession(*text);
  if (!result.ok()) return SendError(result.status());
  const bool has_rows = result->result_set && !result->result_set->columns.empty();
  if (!has_rows || !(*flags & kCursorTypeReadOnly)) {
    bool failed = false;
    return SendStatementResult(*result, StatusFlags(), &failed, /*binary_rows=*/true);
  }

  // A cursor: the rows wait here for COM_STMT_FETCH; the client gets the columns now.
  ResultSet rows = std::move(*result->result_set);
  std::vector<Row> more;
  while (result->stream) {
    Result<bool> next = result->stream->Next(&more);
    if (!next.ok()) return SendError(next.status());
    if (!*next) break;
    for (Row& row : more) rows.rows.push_back(std::move(row));
  }
  auto emit = [this](std::string_view packet) { return channel_.Write(packet); };
  RETURN_IF_ERROR(EncodeResultSetHead(rows.columns, capabilities_, StatusFlags() | status_flag::kCursorExists, emit));
  statement->cursor = std::move(rows);
  statement->cursor_position = 0;
  return Status::Ok();
}

Status Connection::HandleStmtFetch(std::string_view body) {
  WireReader r(body);
  Result<uint32_t> id = StatementId(r);
  Result<uint32_t> count = r.U32();
  if (!id.ok() || !count.ok())
    return SendError(er::kMalformedPacket, "HY000", "malformed packet: COM_STMT_FETCH wants an id and a row count");
  PreparedStatement* statement = statements_.Find(*id);
  if (statement == nullptr)
    return SendError(er::kUnknownStatementHandler, "HY000",
                     fmt::format("Unknown prepared statement handler ({}) given to mysqld_stmt_fetch", *id));
  if (!statement->cursor)
    return SendError(er::kNoOpenCursor, "HY000", fmt::format("The statement ({}) has no open cursor", *id));
  const ResultSet& rows = *statement->cursor;
  size_t& at = statement->cursor_position;
  for (uint32_t n = 0; n < *count && at < rows.rows.size(); ++n, ++at)
    RETURN_IF_ERROR(channel_.Write(EncodeBinaryRow(rows.columns, rows.rows[at])));
  uint16_t flags = StatusFlags() | status_flag::kCursorExists;
  if (at >= rows.rows.size()) {
    flags |= status_flag::kLastRowSent;
    statement->cursor.reset();
  }
  return channel_.Write(EncodeEndOfRows(capabilities_, 0, flags));
}

void Connection::HandleStmtSendLongData(std::string_view body) {
  WireReader r(body);
  Result<uint32_t> id = StatementId(r);
  Result<uint16_t> param = r.U16();
  if (!id.ok() || !param.ok()) return;  // no reply exists to report it; the execute will miss the value
  PreparedStatement* statement = statements_.Find(*id);
  if (statement == nullptr || *param >= statement->markers.size()) return;
  statement->long_data[*param].append(r.Rest());
}

Status Connection::HandleStmtReset(std::string_view body) {
  WireReader r(body);
  Result<uint32_t> id = StatementId(r);
  if (!id.ok()) return SendError(er::kMalformedPacket, "HY000", id.status().message());
  PreparedStatement* statement = statements_.Find(*id);
  if (statement == nullptr)
    return SendError(er::kUnknownStatementHandler, "HY000",
                     fmt::format("Unknown prepared statement handler ({}) given to mysqld_stmt_reset", *id));
  statement->long_data.clear();
  statement->cursor.reset();
  return SendOk();
}

void Connection::HandleStmtClose(std::string_view body) {
  WireReader r(body);
  if (Result<uint32_t> id = StatementId(r); id.ok()) statements_.Close(*id);
}

}  // namespace sluice::server
