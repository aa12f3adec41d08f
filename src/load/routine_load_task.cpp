#include "load/routine_load_task.h"

#include <algorithm>
#include <cstdint>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "catalog/load_history.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/test_points.h"
#include "sql/parser.h"
#include "storage/batch_table_function.h"

namespace sluice::load {

namespace {

// The text of a decoded row, for a row the transform rejected: the source bytes are gone by then, so Sluice
// shows the fields it read, in the message's own format.
std::string RowText(const TextBatch& batch, size_t row, const catalog::RoutineLoadDefinition& def,
                    size_t payload_columns) {
  if (def.pipe) return std::string(batch.Field(payload_columns - 1, row));  // a pipe's row is a message value
  if (def.Property("format") == "json" || def.Property("format") == "avro") {
    nlohmann::json j = nlohmann::json::object();
    for (size_t c = 0; c < payload_columns; c++) {
      if (batch.IsNull(c, row)) j[batch.column_names()[c]] = nullptr;
      else j[batch.column_names()[c]] = std::string(batch.Field(c, row));
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string sep = def.load.column_separator.value_or("\t");
  std::string out;
  for (size_t c = 0; c < batch.num_columns(); c++) {
    if (c) out += sep;
    out += batch.IsNull(c, row) ? std::string("\\N") : std::string(batch.Field(c, row));
  }
  return out;
}

// DuckDB's VARCHAR must hold valid UTF-8; a key or header that is not keeps its valid parts and gets U+FFFD for
// each malformed sequence (the bytes are not otherwise checked or changed).
std::string Utf8OrReplaced(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; k++) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      out += "\xEF\xBF\xBD";
      i++;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

// Fills the INCLUDE METADATA columns of the rows message `m` decoded into (rows first_row..end).
void SetMetadata(const TaskPlan& plan, const source::KafkaMessage& m, size_t first_row, TextBatch& batch) {
  if (first_row >= batch.num_rows()) return;
  for (size_t k = 0; k < plan.metadata.size(); k++) {
    const size_t col = plan.source_columns.size() + k;
    switch (plan.metadata[k].spec->which) {
      case catalog::KafkaMetadata::kTopic: batch.SetFieldOfRows(col, first_row, plan.def.topic); break;
      case catalog::KafkaMetadata::kPartition: batch.SetFieldOfRows(col, first_row, std::to_string(m.partition)); break;
      case catalog::KafkaMetadata::kOffset: batch.SetFieldOfRows(col, first_row, std::to_string(m.offset)); break;
      case catalog::KafkaMetadata::kTimestampMs:
        if (m.timestamp_ms >= 0) batch.SetFieldOfRows(col, first_row, std::to_string(m.timestamp_ms));
        break;
      case catalog::KafkaMetadata::kKey:
        if (m.key) batch.SetFieldOfRows(col, first_row, Utf8OrReplaced(*m.key));
        break;
      case catalog::KafkaMetadata::kHeaders: {
        nlohmann::json headers = nlohmann::json::object();
        for (const auto& [name, value] : m.headers) headers[Utf8OrReplaced(name)] = Utf8OrReplaced(value);  // last wins
        batch.SetFieldOfRows(col, first_row, headers.dump());
        break;
      }
    }
  }
}

// A task that has read this many rows is likely to read a full batch (max_batch_rows).
constexpr size_t kRowsBeforeReserve = 4096;
constexpr size_t kMaxReservedRows = 1 << 20;
constexpr size_t kMaxReservedBytes = 256 << 20;

// Reserves the batch's room for limits.max_rows rows (at most kMaxReservedRows), with field bytes estimated from
// the rows so far.
void ReserveFullBatch(TextBatch& batch, const TaskLimits& limits) {
  const size_t rows = std::min(limits.max_rows, kMaxReservedRows);
  if (rows <= batch.num_rows()) return;
  const size_t bytes_per_row = batch.arena_bytes() / std::max<size_t>(batch.num_rows(), 1) + 1;
  batch.Reserve(rows, std::min({rows * bytes_per_row + rows * bytes_per_row / 8, limits.max_bytes, kMaxReservedBytes}));
}

bool WantsHeaders(const TaskPlan& plan) {
  return std::any_of(plan.metadata.begin(), plan.metadata.end(),
                     [](const auto& m) { return m.spec->which == catalog::KafkaMetadata::kHeaders; });
}

int64_t Count(const StatementResult& r, size_t col) {
  if (!r.result_set || r.result_set->rows.empty() || !r.result_set->rows[0][col]) return 0;
  return std::stoll(*r.result_set->rows[0][col]);
}

}  // namespace

const TaskTestPoints& TestPointsOf(const catalog::RoutineLoadDefinition& def) {
  static constexpr TaskTestPoints kRoutineLoad{"routine_load.after_fetch", "routine_load.after_decode",
                                               "routine_load.inside_commit", "storage.commit.routine_load",
                                               "routine_load.after_commit"};
  static constexpr TaskTestPoints kKafkaPipe{"kafka_pipe.after_fetch", "kafka_pipe.after_decode",
                                             "kafka_pipe.inside_commit", "storage.commit.kafka_pipe",
                                             "kafka_pipe.after_commit"};
  return def.pipe ? kKafkaPipe : kRoutineLoad;
}

catalog::LoadHistoryEntry RoutineLoadTask::HistoryEntry(const std::map<int32_t, int64_t>& start,
                                                        const TaskResult& result, const char* status) const {
  const auto& def = plan_->def;
  catalog::LoadHistoryEntry e;
  // Into an Iceberg table the row names it catalog.db.table, as volume loads do: load_history('lake.db.t') and
  // information_schema.loads (shown to who may see lake.db.t) find it.
  e.db = def.iceberg_target() ? def.lake_catalog + "." + def.lake_db : def.db;
  e.table = def.table;
  e.job = def.name;
  e.job_kind = def.pipe ? "PIPE" : "ROUTINE_LOAD";
  e.topic = def.topic;
  for (const auto& [p, from] : start) {
    auto to = result.next_offsets.find(p);
    if (to != result.next_offsets.end()) e.ranges[p] = {from, to->second};
  }
  e.loaded_rows = result.counts.loaded_rows;
  e.error_rows = result.counts.error_rows;
  e.filtered_rows = result.counts.unselected_rows;
  e.first_error = result.first_error;
  e.status = status;
  e.start_ms = result.started_ms;
  e.end_ms = WallClockMs();
  if (e.status == "FAILED") e.loaded_rows = 0;
  return e;
}

Result<TaskResult> RoutineLoadTask::Run(source::KafkaSource& source, storage::Connection& con,
                                        const std::map<int32_t, int64_t>& start_offsets, bool assigned,
                                        const TaskLimits& limits,
                                        int64_t rejected_rows_to_keep, const std::function<bool()>& still_current) {
  auto started = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(auto decoder,
                   MakeDecoder(plan_->def, plan_->source_columns, plan_->transform.decoded_json_pointers,
                               plan_->json_text_columns, plan_->transform.reads_source));
  TextBatch batch(plan_->batch_columns);
  TaskResult result;
  result.started_ms = WallClockMs();

  if (!assigned) RETURN_IF_ERROR(source.Assign(start_offsets));
  source::ConsumeLimits consume;
  consume.deadline = started + limits.consume_time;
  consume.max_messages = limits.max_rows;
  consume.max_bytes = limits.max_bytes;
  consume.want_headers = decoder->wants_headers() || WantsHeaders(*plan_);
  consume.end_at_fetched_high = limits.end_at_fetched_high;
  size_t rows = 0;
  // Pipes have no such property; their format (raw) has no fatal parse errors.
  const bool pause_on_fatal = !plan_->def.pipe && plan_->def.BoolProperty("pause_on_fatal_parse_error");
  std::optional<int64_t> stopped_at;  // the offset of the message that stopped the task (fatal_stop)
  bool reserved = false;
  bool fetched = false;
  Status decode_status;
  const TaskTestPoints& points = TestPointsOf(plan_->def);
  ASSIGN_OR_RETURN(auto consumed, source.Consume(consume, [&](const source::KafkaMessage& m) {
                     if (!fetched) {
                       fetched = true;
                       decode_status = TestPoint(points.after_fetch);
                       if (!decode_status.ok()) return false;
                     }
                     if (!reserved && batch.num_rows() >= kRowsBeforeReserve) {
                       // A backlog: make room for a full batch now rather than copying the batch as it grows.
                       reserved = true;
                       ReserveFullBatch(batch, limits);
                     }
                     const size_t first_row = batch.num_rows();
                     const size_t first_reject = batch.rejected().size();
                     size_t before = batch.num_rows() + batch.rejected().size();
                     decode_status = decoder->DecodeMessage(m, batch);
                     if (!decode_status.ok()) return false;
                     if (pause_on_fatal) {
                       // A fatal reject is the message's only outcome (it yields no rows): stop before it.
                       auto& rejected = batch.rejected();
                       for (size_t i = first_reject; i < rejected.size(); i++) {
                         if (!rejected[i].fatal) continue;
                         result.fatal_stop = rejected[i];
                         rejected.resize(first_reject);
                         stopped_at = m.offset;
                         return false;
                       }
                     }
                     if (!plan_->metadata.empty()) SetMetadata(*plan_, m, first_row, batch);
                     rows += batch.num_rows() + batch.rejected().size() - before;
                     if (m.timestamp_ms >= 0) result.last_timestamp_ms[m.partition] = m.timestamp_ms;
                     return rows < limits.max_rows;
                   }));
  // A message that could not be decoded for a reason outside it (the schema registry is down): nothing of this
  // task is committed, and the next one reads the same offsets.
  RETURN_IF_ERROR(decode_status);
  result.caught_up = consumed.caught_up && !result.fatal_stop;
  result.messages = static_cast<int64_t>(consumed.messages);
  result.next_offsets = start_offsets;
  for (const auto& [p, next] : consumed.next_offsets) result.next_offsets[p] = next;
  if (result.fatal_stop) result.next_offsets[result.fatal_stop->origin.partition] = *stopped_at;
  result.counts.received_bytes = static_cast<int64_t>(consumed.bytes);
  result.had_data = consumed.messages > 0;
  if (!result.had_data) return result;
  RETURN_IF_ERROR(TestPoint(points.after_decode));

  result.counts.execute_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  Status st = Commit(con, batch, start_offsets, result, rejected_rows_to_keep, still_current);
  if (!st.ok() && result.abort_reason.empty()) return st;
  if (!result.abort_reason.empty()) {
    // The batch was rolled back; its FAILED history row stands on its own (best effort).
    Status h = catalog::RecordFailedAttempt(con, HistoryEntry(start_offsets, result, "FAILED"));
    if (!h.ok()) log::Warn("load", "could not record a failed batch in load_history: {}", h.message());
  }
  return result;
}

// What a Kafka task decides about its batch, whichever sink commits it (commit_sink.h).
class RoutineLoadTask::Bookkeeping final : public TaskBookkeeping {
 public:
  Bookkeeping(const RoutineLoadTask& task, storage::Connection& con, const TextBatch& batch, std::string transform,
              const std::map<int32_t, int64_t>& start, TaskResult& result, int64_t rejected_rows_to_keep,
              const std::function<bool()>& still_current)
      : task_(task), batch_(batch), transform_(std::move(transform)), start_(start), result_(result),
        keep_(rejected_rows_to_keep), still_current_(still_current) {
    (void)con;
  }

  Status Account(storage::Connection& con, int64_t written) override;
  Status RecordLocal(storage::Connection& con) override;
  bool StillCurrent() override { return still_current_(); }
  Result<FencedCommit> Fence() override {
    if (!task_.fence_) return FencedCommit{};
    return task_.fence_();
  }
  const catalog::TaskCounts& counts() const override { return result_.counts; }

 private:
  const RoutineLoadTask& task_;
  const TextBatch& batch_;
  const std::string transform_;
  const std::map<int32_t, int64_t>& start_;
  TaskResult& result_;
  int64_t keep_;
  const std::function<bool()>& still_current_;
  int64_t transform_errors_ = 0;
};

Status RoutineLoadTask::Bookkeeping::Account(storage::Connection& con, int64_t written) {
  const auto& plan = *task_.plan_;
  const auto& def = plan.def;
  TaskResult& result = result_;
  const int64_t decode_errors = static_cast<int64_t>(batch_.rejected().size());
  const int64_t decoded_rows = static_cast<int64_t>(batch_.num_rows());
  // One pass in the common case: the write's own count. Only when some rows were not loaded (or the sink has not
  // written yet) does Sluice evaluate the transform again to tell error rows from rows WHERE filtered out.
  transform_errors_ = 0;
  result.counts.unselected_rows = 0;
  if (decoded_rows > 0 && (written < 0 || written < decoded_rows || !plan.write.append)) {
    ASSIGN_OR_RETURN(auto counts,
                     con.QueryPrepared("SELECT count(*) FILTER (WHERE __sluice_error IS NOT NULL), count(*) FILTER (WHERE "
                               "__sluice_error IS NULL AND NOT __sluice_selected) FROM " + transform_));
    transform_errors_ = Count(counts, 0);
    result.counts.unselected_rows = Count(counts, 1);
  }
  result.counts.error_rows = transform_errors_ + decode_errors;
  if (!def.pipe) {
    result.fatal_rows = 0;
    for (const RejectedRow& r : batch_.rejected()) {
      if (!r.fatal) continue;
      result.fatal_rows++;
      result.last_fatal = r;
    }
  }
  // Fatal parse errors are skipped, not weighed (StarRocks keeps such a job RUNNING at max_error_number 0).
  const int64_t counted_errors = result.counts.error_rows - result.fatal_rows;
  result.total_rows = decoded_rows + decode_errors;
  result.counts.loaded_rows = result.total_rows - result.counts.error_rows - result.counts.unselected_rows;

  if (def.pipe && result.counts.error_rows > def.pipe->max_errors) {
    result.abort_reason = std::to_string(result.counts.error_rows) + " of " + std::to_string(result.total_rows) +
                          " rows in a batch were error rows, above max errors " +
                          std::to_string(def.pipe->max_errors) + " (READ_KAFKA argument 11)";
    return Status::Conflict("abort");
  }
  if (result.counts.error_rows > 0) {
    if (!batch_.rejected().empty()) {
      result.first_error = batch_.rejected().front().reason;
    } else {
      ASSIGN_OR_RETURN(auto first, con.Query("SELECT __sluice_error FROM " + transform_ + " WHERE __sluice_error IS "
                                             "NOT NULL ORDER BY __sluice_row LIMIT 1"));
      if (first.result_set && !first.result_set->rows.empty())
        result.first_error = first.result_set->rows[0][0].value_or("");
    }
  }
  double ratio = def.DoubleProperty("max_filter_ratio");
  if (result.total_rows > 0 && static_cast<double>(counted_errors) / result.total_rows > ratio) {
    result.abort_reason = std::to_string(result.counts.error_rows) + " of " + std::to_string(result.total_rows) +
                          " rows in a task were error rows, above max_filter_ratio " + def.Property("max_filter_ratio");
    return Status::Conflict("abort");  // rolls back, the inserted rows too; the caller reads abort_reason
  }
  return Status::Ok();
}

Status RoutineLoadTask::Bookkeeping::RecordLocal(storage::Connection& con) {
  const auto& plan = *task_.plan_;
  const auto& def = plan.def;
  TaskResult& result = result_;
  if (result.counts.error_rows > 0 && keep_ != 0) {
    // The job keeps its newest rejected rows, so a task records its last `keep` ones: the last decoder
    // rejects and the last transform errors, merged back into source order.
    const size_t keep = keep_ < 0 ? SIZE_MAX : static_cast<size_t>(keep_);
    const auto& decoded = batch_.rejected();
    std::vector<RejectedRow> rejected(decoded.end() - static_cast<std::ptrdiff_t>(std::min(keep, decoded.size())),
                                      decoded.end());
    if (transform_errors_ > 0) {
      ASSIGN_OR_RETURN(auto bad, con.Query("SELECT __sluice_row, __sluice_error FROM " + transform_ + " WHERE "
                                           "__sluice_error IS NOT NULL ORDER BY __sluice_row DESC LIMIT " +
                                           std::to_string(std::min<size_t>(keep, INT64_MAX))));
      for (const auto& row : bad.result_set->rows) {
        size_t idx = std::stoull(*row[0]);
        rejected.push_back({batch_.origin(idx), row[1].value_or(""), RowText(batch_, idx, def, plan.source_columns.size())});
      }
    }
    std::stable_sort(rejected.begin(), rejected.end(), [](const RejectedRow& a, const RejectedRow& b) {
      return std::make_pair(a.origin.partition, a.origin.offset) < std::make_pair(b.origin.partition, b.origin.offset);
    });
    if (rejected.size() > keep) rejected.erase(rejected.begin(), rejected.end() - static_cast<std::ptrdiff_t>(keep));
    RETURN_IF_ERROR(
        catalog::RoutineLoadStore::RecordRejectedRows(con, plan.job_id, task_.task_id_, rejected, WallClockMs()));
  }
  return catalog::RecordLoadHistory(
      con, task_.HistoryEntry(start_, result, result.counts.error_rows > 0 ? "PARTIALLY_LOADED" : "LOADED"));
}

Status RoutineLoadTask::Commit(storage::Connection& con, const TextBatch& batch,
                               const std::map<int32_t, int64_t>& start, TaskResult& result,
                               int64_t rejected_rows_to_keep, const std::function<bool()>& still_current) {
  // The connection has sluice_batch() registered (the scheduler's workers register it when they start). The batch
  // goes under the connection's slot for its columns, so the SQL over it is the same for every task of the plan
  // and the connection prepares the plan's statements once (Connection::QueryPrepared); a new plan (ALTER ROUTINE
  // LOAD, ALTER TABLE) has new SQL, or follows a catalog change that has the statements prepared again.
  storage::BatchHandle handle(batch, con.BatchSlot(plan_->batch_columns));
  const std::string transform = "(" + plan_->transform.Bind(handle.id()) + ") AS __sluice_task";
  Bookkeeping book(*this, con, batch, transform, start, result, rejected_rows_to_keep, still_current);
  SinkCommit commit;
  commit.job_id = plan_->job_id;
  commit.transform = transform;
  commit.decoded_rows = static_cast<int64_t>(batch.num_rows());
  commit.from = &start;
  commit.to = &result.next_offsets;
  bool committed = false;
  Status st = plan_->sink->Commit(con, *plan_, commit, book, &committed);
  result.committed = committed;
  return st;
}

namespace {

Status DuckDbCommitOnce(storage::Connection& con, const TaskPlan& plan, const SinkCommit& c, TaskBookkeeping& book) {
  // A task that waited for an ALTER TABLE was planned for the old columns; its job was re-planned meanwhile.
  if (!book.StillCurrent()) return Status::Conflict("the job moved on while the task ran; its rows are not committed");
  return storage::InTransaction(con, [&]() -> Status {
    int64_t written = 0;
    if (!plan.transform.loaded_columns.empty() && c.decoded_rows > 0) {
      ASSIGN_OR_RETURN(auto w, con.QueryPrepared(BindTableWrite(plan.write, c.transform)));
      written = static_cast<int64_t>(w.affected_rows);
    }
    RETURN_IF_ERROR(book.Account(con, written));
    RETURN_IF_ERROR(book.RecordLocal(con));
    RETURN_IF_ERROR(catalog::RoutineLoadStore::AdvanceProgress(con, c.job_id, *c.from, *c.to, book.counts()));
    if (!book.StillCurrent()) return Status::Conflict("the job moved on while the task ran; its rows are not committed");
    RETURN_IF_ERROR(TestPoint(TestPointsOf(plan.def).inside_commit));
    return Status::Ok();
  }, TestPointsOf(plan.def).commit);
}

}  // namespace

std::string DuckDbSink::Describe() const { return "DuckDB table"; }

Status DuckDbSink::Commit(storage::Connection& con, const TaskPlan& plan, const SinkCommit& commit,
                          TaskBookkeeping& book, bool* committed) {
  // Taken before the keyed lock, as ALTER TABLE takes it alone: no commit overlaps a rebuild of the table.
  std::shared_lock<std::shared_mutex> schema_lock(TableSchemaMutex(plan.target_table_sql));
  std::unique_lock<std::mutex> keyed_lock;
  if (!plan.write.append) keyed_lock = std::unique_lock<std::mutex>(KeyedWriteMutex(plan.target_table_sql));
  // DuckDB refuses to insert a key again while a transaction older than the key's delete is open; it passes.
  constexpr int kAttempts = 6;
  for (int attempt = 1;; attempt++) {
    Status st = DuckDbCommitOnce(con, plan, commit, book);
    if (st.ok()) *committed = true;
    if (st.ok() || plan.write.append || !IsTransientKeyConflict(st)) return st;
    if (attempt == kAttempts)
      return Status::Unavailable("a key deleted recently could not be inserted again while an older transaction "
                                 "was open (" + st.message() + ")");
    log::Info("load", "job {}: {}; retrying the commit ({} of {})", plan.job_id, st.message(), attempt, kAttempts);
    std::this_thread::sleep_for(std::chrono::milliseconds(25 << attempt));
  }
}

}  // namespace sluice::load
