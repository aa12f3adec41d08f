// Runaway work: the bracket around every statement that KILL QUERY, query_timeout, a vanished client and shutdown
// act on (SessionActivity), KILL itself, and SHOW PROCESSLIST.
#include <charconv>
#include <utility>

#include "catalog/server_settings.h"
#include "common/secret_redaction.h"
#include "executor/sql_session.h"

namespace sluice {

namespace {

// SHOW PROCESSLIST shows this much of a statement unless FULL, as MySQL does.
constexpr size_t kProcesslistInfoLength = 100;

// A streamed result keeps its statement running until the last row is fetched: the stream ends it, and reports an
// interruption with the same error a materialized result would.
class SupervisedStream final : public ResultRowStream {
 public:
  SupervisedStream(std::shared_ptr<ResultRowStream> inner, std::shared_ptr<SessionActivity> activity)
      : inner_(std::move(inner)), activity_(std::move(activity)) {}
  ~SupervisedStream() override { End(); }

  Result<bool> Next(std::vector<Row>* rows) override {
    rows->clear();
    if (!inner_) return false;
    if (!sending_) {
      activity_->SetState("sending data");
      sending_ = true;
    }
    Result<bool> more = inner_->Next(rows);
    if (more.ok() && *more) return true;
    StopReason why = End();
    if (!more.ok() && why != StopReason::kNone) return activity_->StopError(why);
    return more;
  }

 private:
  StopReason End() {
    if (!inner_) return StopReason::kNone;
    inner_.reset();  // the query's end in the engine, before the statement counts as over
    return activity_->EndStatement();
  }

  std::shared_ptr<ResultRowStream> inner_;
  std::shared_ptr<SessionActivity> activity_;
  bool sending_ = false;
};

std::optional<int64_t> WholeNumber(std::string_view v) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return n;
}

}  // namespace

void SqlSession::AttachClient(std::function<void()> close, std::function<bool()> client_gone) {
  activity_->SetClientHooks(std::move(close), std::move(client_gone));
}

std::optional<std::pair<std::chrono::milliseconds, std::string>> SqlSession::StatementTimeLimit() const {
  if (auto ms = WholeNumber(variables_.Get("max_execution_time").value_or("0")); ms && *ms > 0) {
    return std::make_pair(std::chrono::milliseconds(*ms),
                          "the statement ran longer than max_execution_time (" + std::to_string(*ms) +
                              " ms); raise it with SET max_execution_time = <milliseconds> (0: use query_timeout)");
  }
  std::optional<std::string> session_value = variables_.Get(catalog::kQueryTimeout);
  int64_t seconds = session_value ? WholeNumber(*session_value).value_or(0) : settings_.QueryTimeoutSeconds();
  if (seconds <= 0) return std::nullopt;
  return std::make_pair(std::chrono::milliseconds(seconds * 1000),
                        "the statement ran longer than query_timeout (" + std::to_string(seconds) +
                            " s); raise it with SET query_timeout = <seconds> for this session or SET GLOBAL "
                            "query_timeout = <seconds> for every session");
}

Result<StatementResult> SqlSession::Supervised(std::string_view statement,
                                               const std::function<Result<StatementResult>()>& run) {
  std::optional<SessionActivity::SteadyClock::time_point> deadline;
  std::string advice;
  if (auto limit = StatementTimeLimit()) {
    deadline = SessionActivity::SteadyClock::now() + limit->first;
    advice = std::move(limit->second);
  }
  activity_->BeginStatement(std::string(statement), deadline, std::move(advice));
  Result<StatementResult> result = run();
  if (result.ok() && result->stream) {
    result->stream = std::make_shared<SupervisedStream>(std::move(result->stream), activity_);
    return result;
  }
  StopReason why = activity_->EndStatement();
  // A statement that finished before the interrupt took hold keeps its result: its work is done.
  if (!result.ok() && why != StopReason::kNone) return activity_->StopError(why);
  return result;
}

Result<StatementResult> SqlSession::RunKill(const sql::Kill& s) {
  RETURN_IF_ERROR(registry_.Kill(s.connection_id, s.connection, user_));
  return StatementResult{};
}

ResultSet SqlSession::ShowProcesslist(bool full) const {
  ResultSet rs;
  for (const char* c : {"Id", "User", "Host", "db", "Command", "Time", "State", "Info"}) rs.AddColumn(c);
  rs.columns[0].type = ValueType::kBigInt;
  rs.columns[5].type = ValueType::kInteger;
  for (const auto& p : registry_.List()) {
    // Like MySQL without the PROCESS privilege: one sees the sessions one may kill.
    if (!registry_.MayKill(user_, p.user)) continue;
    std::optional<std::string> info;
    if (p.running) {
      std::string text = RedactSecrets(p.statement);
      if (!full && text.size() > kProcesslistInfoLength) {
        size_t n = kProcesslistInfoLength;
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) n--;  // not inside a UTF-8 character
        text.resize(n);
      }
      info = std::move(text);
    }
    rs.rows.push_back({std::to_string(p.connection_id), p.user, p.host,
                       p.db.empty() ? std::nullopt : std::optional<std::string>(p.db),
                       std::string(p.running ? "Query" : "Sleep"), std::to_string(p.seconds_in_state), p.state,
                       std::move(info)});
  }
  return rs;
}

}  // namespace sluice
