#include "catalog/routine_load_store.h"

#include "catalog/load_history.h"
#include "common/secret_names.h"
#include "common/secret_redaction.h"
#include "common/test_points.h"
#include "source/kafka_source.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

using sql::QuoteLiteral;

std::string Str(int64_t v) { return std::to_string(v); }

// A BLOB literal for any bytes: DuckDB's from_hex keeps them exact.
std::string BlobLiteral(const std::string& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return "from_hex('" + hex + "')";
}

}  // namespace

std::string SealDefinition(const SecretBox& secrets, const RoutineLoadDefinition& def) {
  RoutineLoadDefinition sealed = def;
  for (auto& [key, value] : sealed.custom_properties)
    if (IsSecretName(key)) value = secrets.Seal(value);
  if (sealed.schema_registry_url && StripUrlCredentials(*sealed.schema_registry_url) != *sealed.schema_registry_url)
    sealed.schema_registry_url = secrets.Seal(*sealed.schema_registry_url);
  // A pipe's COPY text is for showing only (the properties above run it): kept with its secrets masked.
  if (sealed.pipe) sealed.pipe->copy_statement = RedactSecrets(sealed.pipe->copy_statement);
  return DefinitionToJson(sealed);
}

Result<StoredJob> StoredJobFromRow(const std::vector<std::optional<std::string>>& row,
                                   const std::function<Result<RoutineLoadDefinition>(const std::string&)>& definition) {
  if (row.size() < 7 || !row[0] || !row[1] || !row[4] || !row[5] || !row[6])
    return Status::Internal("a stored routine load row is incomplete");
  StoredJob j;
  j.id = std::stoll(*row[0]);
  ASSIGN_OR_RETURN(j.def, definition(*row[1]));
  j.state = ParseJobState(*row[2]).value_or(JobState::kPaused);
  j.reason = row[3].value_or("");
  j.create_time_ms = std::stoll(*row[4]);
  j.pause_time_ms = std::stoll(*row[5]);
  j.end_time_ms = std::stoll(*row[6]);
  return j;
}

Result<RoutineLoadDefinition> UnsealDefinition(const SecretBox& secrets, const std::string& stored) {
  ASSIGN_OR_RETURN(RoutineLoadDefinition def, DefinitionFromJson(stored));
  for (auto& [key, value] : def.custom_properties) {
    ASSIGN_OR_RETURN(value, secrets.Unseal(value));
  }
  if (def.schema_registry_url) {
    ASSIGN_OR_RETURN(*def.schema_registry_url, secrets.Unseal(*def.schema_registry_url));
  }
  // Catalogs written before the COPY text was masked at creation.
  if (def.pipe) def.pipe->copy_statement = RedactSecrets(def.pipe->copy_statement);
  return def;
}

Result<std::unique_ptr<RoutineLoadStore>> RoutineLoadStore::Open(storage::Database& db,
                                                                const std::string& secrets_key_file) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  ASSIGN_OR_RETURN(auto secrets, SecretBox::Open(secrets_key_file));
  auto store = std::unique_ptr<RoutineLoadStore>(new RoutineLoadStore(std::move(con), std::move(secrets)));
  RETURN_IF_ERROR(storage::InTransaction(*store->con_, [&] {
    return store->con_->Execute(
        "CREATE SCHEMA IF NOT EXISTS __sluice;"
        "CREATE SEQUENCE IF NOT EXISTS __sluice.routine_load_ids START 10001;"
        "CREATE SEQUENCE IF NOT EXISTS __sluice.rejected_row_ids;"
        "CREATE TABLE IF NOT EXISTS __sluice.routine_loads (id BIGINT NOT NULL, db VARCHAR NOT NULL, "
        "name VARCHAR NOT NULL, definition VARCHAR NOT NULL, state VARCHAR NOT NULL, reason VARCHAR NOT NULL, "
        "create_time BIGINT NOT NULL, pause_time BIGINT NOT NULL, end_time BIGINT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS __sluice.routine_load_progress (job_id BIGINT NOT NULL, "
        "kafka_partition INTEGER NOT NULL, next_offset BIGINT NOT NULL, loaded_rows BIGINT NOT NULL DEFAULT 0, "
        "error_rows BIGINT NOT NULL DEFAULT 0, unselected_rows BIGINT NOT NULL DEFAULT 0, "
        "received_bytes BIGINT NOT NULL DEFAULT 0, committed_tasks BIGINT NOT NULL DEFAULT 0, "
        "task_execute_ms BIGINT NOT NULL DEFAULT 0);"
        "CREATE TABLE IF NOT EXISTS __sluice.rejected_rows (id BIGINT NOT NULL, job_id BIGINT NOT NULL, "
        "task_id BIGINT NOT NULL, kafka_partition INTEGER, kafka_offset BIGINT, reason VARCHAR NOT NULL, "
        "raw BLOB, created_at BIGINT NOT NULL);"
        // What users query (TrackingSQL in SHOW ROUTINE LOAD points here).
        "CREATE OR REPLACE VIEW __sluice.routine_load_rejected_rows AS SELECT j.db AS DbName, j.name AS JobName, "
        "r.task_id AS TaskId, r.kafka_partition AS \"Partition\", r.kafka_offset AS \"Offset\", r.reason AS Reason, "
        // RawData: the text when the bytes are UTF-8, else with \xNN escapes.
        "coalesce(try(decode(r.raw)), CAST(r.raw AS VARCHAR)) AS RawData, "
        "make_timestamp(r.created_at * 1000) AS CreateTime "
        "FROM __sluice.rejected_rows r JOIN __sluice.routine_loads j ON r.job_id = j.id;");
  }));
  RETURN_IF_ERROR(EnsureLoadHistoryTable(*store->con_));  // tasks write a row per batch (load_history.h)
  return store;
}

Result<int64_t> RoutineLoadStore::CreateJob(const RoutineLoadDefinition& def, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t id = 0;
  RETURN_IF_ERROR(storage::InTransaction(*con_, [&]() -> Status {
    // Prepared once for every CREATE (by parameters): planning them anew cost a few million instructions per job.
    ASSIGN_OR_RETURN(auto taken, con_->QueryPrepared("SELECT count(*) FROM __sluice.routine_loads WHERE db = $1::VARCHAR "
                                                     "AND name = $2::VARCHAR AND state NOT IN ('STOPPED', 'CANCELLED')",
                                                     {def.db, def.name}));
    if (taken.result_set->rows[0][0] != std::optional<std::string>("0"))
      return Status::AlreadyExists("a routine load named '" + def.name + "' already exists in database '" + def.db +
                                   "'; STOP it first or choose another name");
    ASSIGN_OR_RETURN(auto idr, con_->QueryPrepared("SELECT nextval('__sluice.routine_load_ids')"));
    id = std::stoll(*idr.result_set->rows[0][0]);
    ASSIGN_OR_RETURN(auto inserted,
                     con_->QueryPrepared("INSERT INTO __sluice.routine_loads VALUES ($1::BIGINT, $2::VARCHAR, "
                                         "$3::VARCHAR, $4::VARCHAR, 'NEED_SCHEDULE', '', $5::BIGINT, 0, 0)",
                                         {id, def.db, def.name, StoredDefinition(def), now_ms}));
    (void)inserted;
    return Status::Ok();
  }));
  return id;
}

std::string RoutineLoadStore::UpdateJobSql(const StoredJob& job) const {
  return "UPDATE __sluice.routine_loads SET definition = " + QuoteLiteral(StoredDefinition(job.def)) +
         ", state = " + QuoteLiteral(JobStateName(job.state)) + ", reason = " + QuoteLiteral(job.reason) +
         ", pause_time = " + Str(job.pause_time_ms) + ", end_time = " + Str(job.end_time_ms) + " WHERE id = " +
         Str(job.id);
}

Status RoutineLoadStore::UpdateJob(const StoredJob& job) {
  std::lock_guard<std::mutex> lock(mu_);
  return con_->Execute(UpdateJobSql(job));
}

Status RoutineLoadStore::AlterJob(const StoredJob& job, const std::vector<int32_t>& reset_partitions) {
  std::lock_guard<std::mutex> lock(mu_);
  return storage::InTransaction(*con_, [&]() -> Status {
    RETURN_IF_ERROR(ResetProgressLocked(job.id, reset_partitions));
    RETURN_IF_ERROR(TestPoint("alter_routine_load.inside"));  // a crash here leaves the job as it was
    return con_->Execute(UpdateJobSql(job));
  });
}

Result<std::vector<StoredJob>> RoutineLoadStore::LoadJobs() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT id, definition, state, reason, create_time, pause_time, end_time "
                                       "FROM __sluice.routine_loads ORDER BY id"));
  std::vector<StoredJob> out;
  for (const auto& row : r.result_set->rows) {
    ASSIGN_OR_RETURN(StoredJob j,
                     StoredJobFromRow(row, [&](const std::string& stored) { return LoadedDefinition(stored); }));
    out.push_back(std::move(j));
  }
  return out;
}

Result<std::map<int32_t, PartitionProgress>> RoutineLoadStore::ReadProgress(int64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  // Every task of every job reads its progress first: prepared once, the job id a parameter in a CTE (compared with
  // the column directly, it would have DuckDB plan the statement again at every run: Connection::QueryPrepared).
  ASSIGN_OR_RETURN(auto r, con_->QueryPrepared("WITH __sluice_k AS (SELECT $1::BIGINT AS job_id) SELECT "
                                               "kafka_partition, next_offset, loaded_rows, error_rows, "
                                               "unselected_rows, received_bytes, committed_tasks, task_execute_ms "
                                               "FROM __sluice.routine_load_progress JOIN __sluice_k USING (job_id)",
                                               {job_id}));
  std::map<int32_t, PartitionProgress> out;
  for (const auto& row : r.result_set->rows) {
    PartitionProgress p;
    p.next_offset = std::stoll(*row[1]);
    p.loaded_rows = std::stoll(*row[2]);
    p.error_rows = std::stoll(*row[3]);
    p.unselected_rows = std::stoll(*row[4]);
    p.received_bytes = std::stoll(*row[5]);
    p.committed_tasks = std::stoll(*row[6]);
    p.task_execute_ms = std::stoll(*row[7]);
    out[std::stoi(*row[0])] = p;
  }
  return out;
}

Status RoutineLoadStore::InitProgress(int64_t job_id, const std::map<int32_t, int64_t>& next_offsets) {
  std::lock_guard<std::mutex> lock(mu_);
  if (next_offsets.empty()) return Status::Ok();  // every partition continues from its progress
  // Prepared once for all jobs (by parameters, all BIGINT like the values): a job's scheduling planned both
  // statements anew for each of its partitions.
  return storage::InTransaction(*con_, [&]() -> Status {
    for (const auto& [p, off] : next_offsets) {
      const std::vector<storage::StatementParam> params = {job_id, static_cast<int64_t>(p), off};
      ASSIGN_OR_RETURN(auto updated,
                       con_->QueryPrepared("UPDATE __sluice.routine_load_progress SET next_offset = $3::BIGINT "
                                           "WHERE job_id = $1::BIGINT AND kafka_partition = $2::BIGINT AND "
                                           "next_offset = -1", params));
      ASSIGN_OR_RETURN(auto inserted,
                       con_->QueryPrepared("INSERT INTO __sluice.routine_load_progress (job_id, kafka_partition, "
                                           "next_offset) SELECT $1::BIGINT, $2::BIGINT, $3::BIGINT WHERE NOT EXISTS "
                                           "(SELECT 1 FROM __sluice.routine_load_progress WHERE job_id = $1::BIGINT "
                                           "AND kafka_partition = $2::BIGINT)", params));
      (void)updated;
      (void)inserted;
    }
    return Status::Ok();
  });
}

Status RoutineLoadStore::SyncProgress(int64_t job_id, const std::map<int32_t, int64_t>& next_offsets) {
  std::lock_guard<std::mutex> lock(mu_);
  return storage::InTransaction(*con_, [&]() -> Status {
    for (const auto& [p, off] : next_offsets) {
      std::string where = " WHERE job_id = " + Str(job_id) + " AND kafka_partition = " + Str(p);
      RETURN_IF_ERROR(con_->Execute("UPDATE __sluice.routine_load_progress SET next_offset = " + Str(off) + where));
      RETURN_IF_ERROR(con_->Execute("INSERT INTO __sluice.routine_load_progress (job_id, kafka_partition, next_offset) "
                                    "SELECT " + Str(job_id) + ", " + Str(p) + ", " + Str(off) +
                                    " WHERE NOT EXISTS (SELECT 1 FROM __sluice.routine_load_progress" + where + ")"));
    }
    return Status::Ok();
  });
}

Status RoutineLoadStore::ResetProgressLocked(int64_t job_id, const std::vector<int32_t>& partitions) {
  for (int32_t p : partitions) {
    std::string where = " WHERE job_id = " + Str(job_id) + " AND kafka_partition = " + Str(p);
    RETURN_IF_ERROR(con_->Execute("UPDATE __sluice.routine_load_progress SET next_offset = -1" + where));
    RETURN_IF_ERROR(con_->Execute("INSERT INTO __sluice.routine_load_progress (job_id, kafka_partition, next_offset) "
                                  "SELECT " + Str(job_id) + ", " + Str(p) + ", -1 WHERE NOT EXISTS (SELECT 1 FROM "
                                  "__sluice.routine_load_progress" + where + ")"));
  }
  return Status::Ok();
}

Status RoutineLoadStore::AdvanceProgress(storage::Connection& con, int64_t job_id,
                                         const std::map<int32_t, int64_t>& from, const std::map<int32_t, int64_t>& to,
                                         const TaskCounts& counts) {
  if (from.empty()) return Status::Ok();
  // One UPDATE for all of the task's partitions, prepared once per connection and partition count (planning it
  // cost about 1.2 M instructions per partition as one statement each, and 12 M per task of 32 partitions as one
  // statement with the values in its text). Each partition moves only if it is still at the offset the task
  // started from, and the task's counts go to its first partition's row, as before.
  // The values are parameters of a VALUES list in a CTE, each used once, and the UPDATE reads them as columns:
  // DuckDB 1.4.4 plans a prepared statement again at every run when a parameter sits in the UPDATE's own SET or
  // WHERE (or is compared with a column, or repeats in a multi-row VALUES), which cost 5.4 M instructions per task
  // here (storage::Connection::QueryPrepared). Every parameter is a BIGINT, the type of the values bound.
  std::vector<storage::StatementParam> params;
  params.reserve(4 * from.size() + 5);
  std::string values;
  auto next_param = [&](const storage::StatementParam& v) {
    params.push_back(v);
    return "$" + Str(static_cast<int64_t>(params.size())) + "::BIGINT";
  };
  for (const auto& [p, start] : from) {
    auto it = to.find(p);
    const int64_t next = it == to.end() ? start : it->second;
    const bool first = values.empty();
    values += std::string(first ? "(" : ", (") + next_param(job_id) + ", " + next_param(static_cast<int64_t>(p)) +
              ", " + next_param(start) + ", " + next_param(next);
    if (first) {
      values += ", " + next_param(counts.loaded_rows) + ", " + next_param(counts.error_rows) + ", " +
                next_param(counts.unselected_rows) + ", " + next_param(counts.received_bytes) + ", 1::BIGINT, " +
                next_param(counts.execute_ms) + ")";
    } else {
      values += ", 0::BIGINT, 0::BIGINT, 0::BIGINT, 0::BIGINT, 0::BIGINT, 0::BIGINT)";
    }
  }
  auto add = [](const char* column) {
    return std::string(column) + " = routine_load_progress." + column + " + __sluice_v." + column;
  };
  ASSIGN_OR_RETURN(auto r, con.QueryPrepared(
                               "WITH __sluice_v AS (SELECT * FROM (VALUES " + values + ") AS __sluice_values(job_id, "
                               "kafka_partition, start_offset, next_offset, loaded_rows, error_rows, unselected_rows, "
                               "received_bytes, committed_tasks, task_execute_ms)) "
                               "UPDATE __sluice.routine_load_progress SET next_offset = __sluice_v.next_offset, " +
                                   add("loaded_rows") + ", " + add("error_rows") + ", " + add("unselected_rows") +
                                   ", " + add("received_bytes") + ", " + add("committed_tasks") + ", " +
                                   add("task_execute_ms") +
                                   " FROM __sluice_v WHERE routine_load_progress.job_id = __sluice_v.job_id"
                                   " AND routine_load_progress.kafka_partition = __sluice_v.kafka_partition"
                                   " AND routine_load_progress.next_offset = __sluice_v.start_offset",
                               params));
  if (r.affected_rows == from.size()) return Status::Ok();
  // Some partition moved on (the transaction rolls back): name the first one, as the task's error.
  for (const auto& [p, start] : from) {
    ASSIGN_OR_RETURN(auto at, con.Query("SELECT count(*) FROM __sluice.routine_load_progress WHERE job_id = " +
                                        Str(job_id) + " AND kafka_partition = " + Str(p) + " AND next_offset = " +
                                        Str(start)));
    if (at.result_set && !at.result_set->rows.empty() && at.result_set->rows[0][0] == std::optional<std::string>("1"))
      continue;
    return Status::Conflict("partition " + Str(p) + " is no longer at offset " + Str(start) +
                            ": another task already committed it");
  }
  return Status::Conflict("the task's partitions are no longer where it started: another task already committed them");
}

Status RoutineLoadStore::RecordRejectedRows(storage::Connection& con, int64_t job_id, int64_t task_id,
                                            const std::vector<RejectedRow>& rows, int64_t now_ms) {
  // Batches of rows per INSERT keep the statement count low when a task rejects many rows.
  constexpr size_t kPerStatement = 200;
  for (size_t i = 0; i < rows.size(); i += kPerStatement) {
    std::string sql = "INSERT INTO __sluice.rejected_rows SELECT nextval('__sluice.rejected_row_ids'), * FROM (VALUES ";
    for (size_t k = i; k < rows.size() && k < i + kPerStatement; k++) {
      const RejectedRow& r = rows[k];
      sql += (k > i ? ", (" : "(") + Str(job_id) + ", " + Str(task_id) + ", " + Str(r.origin.partition) + ", " +
             Str(r.origin.offset) + ", " + QuoteLiteral(r.reason) + ", " + BlobLiteral(r.raw) + ", " + Str(now_ms) + ")";
    }
    RETURN_IF_ERROR(con.Execute(sql + ")"));
  }
  return Status::Ok();
}

Status RoutineLoadStore::TrimRejectedRows(int64_t job_id, int64_t keep) {
  if (keep < 0) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  return con_->Execute("DELETE FROM __sluice.rejected_rows WHERE job_id = " + Str(job_id) +
                       " AND id NOT IN (SELECT id FROM __sluice.rejected_rows WHERE job_id = " + Str(job_id) +
                       " ORDER BY id DESC LIMIT " + Str(keep) + ")");
}

Result<ResultSet> RoutineLoadStore::RejectedRows(int64_t job_id, int64_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT task_id AS TaskId, kafka_partition AS \"Partition\", kafka_offset AS "
                                       "\"Offset\", reason AS Reason, "
                                       "coalesce(try(decode(raw)), CAST(raw AS VARCHAR)) AS RawData, "
                                       "make_timestamp(created_at * 1000) AS CreateTime FROM __sluice.rejected_rows "
                                       "WHERE job_id = " + Str(job_id) + " ORDER BY id DESC LIMIT " + Str(limit)));
  return std::move(*r.result_set);
}

}  // namespace sluice::catalog
