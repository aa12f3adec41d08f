// Pipes and virtual clusters for the session: resolve the database, hand over to the scheduler.
#include "executor/sql_session.h"

namespace sluice {

namespace {

StatementResult PipeOk() { return StatementResult{}; }

StatementResult PipeRows(ResultSet rs) {
  StatementResult r;
  r.result_set = std::move(rs);
  return r;
}

}  // namespace

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::CreatePipe& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  sql::CreatePipe stmt = s;
  stmt.creator = user_;
  if (s.volume_copy && !s.volume_copy->select_list.empty()) {
    // The transform form's SELECT list and WHERE run in DuckDB, as for a one-shot COPY INTO.
    auto copy = std::make_shared<sql::CopyIntoFromVolume>(*s.volume_copy);
    ASSIGN_OR_RETURN(copy->select_list, TranslateLoadSql(copy->select_list));
    if (!copy->where.empty()) {
      ASSIGN_OR_RETURN(copy->where, TranslateLoadSql(copy->where));
    }
    stmt.volume_copy = std::move(copy);
  }
  RETURN_IF_ERROR(routine_loads_.CreatePipe(stmt, db));
  return PipeOk();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::DropPipe& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  RETURN_IF_ERROR(routine_loads_.DropPipe(s, db));
  return PipeOk();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::AlterPipe& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  RETURN_IF_ERROR(routine_loads_.AlterPipe(s, db));
  return PipeOk();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::ShowPipes& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  ASSIGN_OR_RETURN(ResultSet rs, routine_loads_.ShowPipes(s, db));
  FilterVisiblePipes(rs, db);
  return PipeRows(std::move(rs));
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::DescPipe& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  ASSIGN_OR_RETURN(ResultSet rs, routine_loads_.DescPipe(s, db));
  return PipeRows(std::move(rs));
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::CreateVcluster& s) {
  RETURN_IF_ERROR(routine_loads_.CreateVcluster(s));
  return PipeOk();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::AlterVcluster& s) {
  RETURN_IF_ERROR(routine_loads_.AlterVcluster(s));
  return PipeOk();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::DropVcluster& s) {
  RETURN_IF_ERROR(routine_loads_.DropVcluster(s));
  return PipeOk();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::ShowVclusters& s) {
  ASSIGN_OR_RETURN(ResultSet rs, routine_loads_.ShowVclusters(s));
  return PipeRows(std::move(rs));
}

}  // namespace sluice
