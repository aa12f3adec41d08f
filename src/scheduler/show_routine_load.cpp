// SHOW ROUTINE LOAD and SHOW ROUTINE LOAD TASK, with the columns and JSON shapes StarRocks users read.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "catalog/property_table.h"
#include "common/log.h"
#include "common/secret_redaction.h"
#include "scheduler/job_registry.h"

namespace sluice::scheduler {

using catalog::JobState;
using nlohmann::json;

namespace {

const char* kShowColumns[] = {"Id", "Name", "CreateTime", "PauseTime", "EndTime", "DbName", "TableName", "State",
                              "DataSourceType", "CurrentTaskNum", "JobProperties", "DataSourceProperties",
                              "CustomProperties", "Statistic", "Progress", "TimestampProgress",
                              "ReasonOfStateChanged", "ErrorLogUrls", "TrackingSQL", "OtherMsg",
                              "LatestSourcePosition", "OffsetLag"};

std::optional<std::string> TimeOrNull(int64_t ms) {
  if (ms <= 0) return std::nullopt;
  return FormatTimeMs(ms);
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string Printable(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c < 0x20) {
      static const char* kDigits = "0123456789abcdef";
      out += "\\x"; out += kDigits[c >> 4]; out += kDigits[c & 15];
    } else out += static_cast<char>(c);
  }
  return out;
}

json JobPropertiesJson(const catalog::RoutineLoadDefinition& d, int current_tasks) {
  std::string columns;
  if (d.load.columns)
    for (const auto& c : *d.load.columns) columns += (columns.empty() ? "" : ",") + c.name + (c.expr ? "=" + *c.expr : "");
  std::string parts;
  for (int32_t p : d.partitions) parts += (parts.empty() ? "" : ",") + std::to_string(p);
  // StarRocks shows the table partitions of the load's PARTITION (...) here.
  if (d.load.partitions) {
    parts.clear();
    for (const auto& p : *d.load.partitions) parts += (parts.empty() ? "" : ",") + p;
  }
  json out{{"partitions", parts},
              {"columnToColumnExpr", columns},
              {"whereExpr", d.load.where.value_or("")},
              {"dataFormat", d.Property("format")},
              {"columnSeparator", Printable(d.load.column_separator.value_or("\t"))},
              {"rowDelimiter", Printable(d.load.row_delimiter.value_or("\n"))},
              {"maxErrorNum", d.Property("max_error_number")},
              {"maxFilterRatio", d.Property("max_filter_ratio")},
              {"maxBatchIntervalS", d.Property("max_batch_interval")},
              {"maxBatchRows", d.Property("max_batch_rows")},
              {"maxBatchSizeBytes", d.Property("max_batch_size")},
              {"desireTaskConcurrentNum", d.Property("desired_concurrent_number")},
              {"currentTaskConcurrentNum", std::to_string(current_tasks)},
              {"strict_mode", d.Property("strict_mode")},
              {"timezone", d.Property("timezone")},
              {"jsonpaths", d.Property("jsonpaths")},
              {"json_root", d.Property("json_root")},
              {"strip_outer_array", d.Property("strip_outer_array")},
              {"trim_space", d.Property("trim_space")},
              {"enclose", d.Property("enclose")},
              {"escape", d.Property("escape")},
              {"partial_update", d.Property("partial_update")},
              {"log_rejected_record_num", d.Property("log_rejected_record_num")},
              {"taskConsumeSecond", d.Property("task_consume_second")},
              {"taskTimeoutSecond", d.Property("task_timeout_second")},
              {"fill_mismatch_column_with", d.Property("fill_mismatch_column_with")},
              {"pause_on_fatal_parse_error", d.Property("pause_on_fatal_parse_error")}};
  if (d.iceberg_target()) out["iceberg.commit_interval_seconds"] = d.Property("iceberg.commit_interval_seconds");
  return out;
}

}  // namespace

Result<ResultSet> JobRegistry::Show(const sql::ShowRoutineLoad& stmt, const std::string& db) {
  if (stmt.state && !catalog::ParseJobState(*stmt.state))
    return Status::InvalidArgument("State must be one of NEED_SCHEDULE, RUNNING, PAUSED, STOPPED, CANCELLED, got \"" +
                                   *stmt.state + "\"");
  struct Snapshot {
    catalog::StoredJob stored;
    int current_tasks = 0;
    std::string other_msg;
    int64_t aborted = 0;
    std::map<int32_t, int64_t> latest, timestamps;
    std::vector<int32_t> partitions;
    std::string error_url;
    bool cluster = false;
    std::shared_ptr<const load::TaskPlan> plan;
  };
  SyncClusterJobs();  // a cluster job created or changed on another node a moment ago
  std::vector<Snapshot> snaps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, job] : jobs_) {
      // A cluster job shows the state it has in the cluster: the same on every node (a node regrouping its
      // partitions is NEED_SCHEDULE only in its own scheduler).
      catalog::StoredJob s = job->stored;
      if (job->cluster) s.state = job->shared_state;
      if (s.def.db != db || s.def.pipe) continue;  // pipes show in SHOW PIPES
      if (!stmt.job_name.empty() && s.def.name != stmt.job_name) continue;
      bool final = s.state == JobState::kStopped || s.state == JobState::kCancelled;
      if (final && !stmt.all && stmt.job_name.empty()) continue;
      if (stmt.state && catalog::JobStateName(s.state) != *stmt.state) continue;
      Snapshot snap;
      snap.stored = s;
      snap.current_tasks = static_cast<int>(std::count_if(job->groups.begin(), job->groups.end(), [](auto& g) { return g->running; }));
      snap.other_msg = job->ShownOtherMsg();
      snap.aborted = job->aborted_tasks;
      snap.latest = job->latest_offsets;
      snap.timestamps = job->last_timestamp_ms;
      snap.partitions = job->current_partitions;
      snap.error_url = ErrorLogUrl(*job);
      snap.cluster = job->cluster;
      snap.plan = job->plan;
      snaps.push_back(std::move(snap));
    }
  }
  if (!stmt.job_name.empty() && snaps.empty())
    return Status::NotFound("routine load '" + stmt.job_name + "' does not exist in database '" + db + "'");

  ResultSet rs;
  for (const char* c : kShowColumns) rs.AddColumn(c);
  for (auto& snap : snaps) {
    const auto& s = snap.stored;
    const auto& d = s.def;
    ASSIGN_OR_RETURN(auto progress, store_->ReadProgress(s.id));
    // A cluster job's partitions are loaded by several nodes: its Progress and Statistic are read from the table
    // (the truth: offsets and totals commit with the rows, lakehouse/job_statistics.h), not from this node's
    // cache, so every node answers the same. abortedTaskNum stays this node's (an aborted task commits nothing).
    std::optional<catalog::PartitionProgress> table_totals;
    if (snap.cluster && snap.plan) {
      auto in_table = snap.plan->sink->CommittedState(s.id);
      if (in_table.ok()) {
        if (in_table->offsets)
          for (const auto& [p, o] : *in_table->offsets) progress[p].next_offset = o;
        table_totals = in_table->totals;
      } else {
        log::Debug("scheduler", "SHOW ROUTINE LOAD: cannot read {}'s offsets from its table: {}", s.def.name,
                   in_table.status().message());
      }
    }
    catalog::PartitionProgress total;
    json prog = json::object(), ts = json::object(), latest = json::object(), lag = json::object();
    for (const auto& [p, pp] : progress) {
      total.loaded_rows += pp.loaded_rows;
      total.error_rows += pp.error_rows;
      total.unselected_rows += pp.unselected_rows;
      total.received_bytes += pp.received_bytes;
      total.committed_tasks += pp.committed_tasks;
      total.task_execute_ms += pp.task_execute_ms;
      // A partition an ALTER took out of kafka_partitions still counts in Statistic, but is no longer loaded.
      if (!d.partitions.empty() && std::find(d.partitions.begin(), d.partitions.end(), p) == d.partitions.end())
        continue;
      std::string key = std::to_string(p);
      // Progress shows the last offset loaded; before anything was loaded, where loading will start.
      if (pp.next_offset < 0) prog[key] = "OFFSET_NOT_RESOLVED";
      else if (pp.next_offset == 0) prog[key] = "OFFSET_ZERO";
      else prog[key] = std::to_string(pp.next_offset - 1);
      if (auto t = snap.timestamps.find(p); t != snap.timestamps.end()) ts[key] = std::to_string(t->second);
      if (auto l = snap.latest.find(p); l != snap.latest.end()) {
        latest[key] = std::to_string(l->second - 1);
        if (pp.next_offset >= 0) lag[key] = std::max<int64_t>(0, l->second - pp.next_offset);
      }
    }
    if (table_totals) total = *table_totals;
    double seconds = static_cast<double>(total.task_execute_ms) / 1000.0;
    int64_t total_rows = total.loaded_rows + total.error_rows + total.unselected_rows;
    json stat = {{"receivedBytes", total.received_bytes},
                 {"errorRows", total.error_rows},
                 {"committedTaskNum", total.committed_tasks},
                 {"loadedRows", total.loaded_rows},
                 {"loadRowsRate", seconds > 0 ? static_cast<int64_t>(total.loaded_rows / seconds) : 0},
                 {"abortedTaskNum", snap.aborted},
                 {"totalRows", total_rows},
                 {"unselectedRows", total.unselected_rows},
                 {"receivedBytesRate", seconds > 0 ? static_cast<int64_t>(total.received_bytes / seconds) : 0},
                 {"taskExecuteTimeMs", total.task_execute_ms}};
    std::string parts;
    for (int32_t p : snap.partitions.empty() ? d.partitions : snap.partitions)
      parts += (parts.empty() ? "" : ",") + std::to_string(p);
    json source = {{"topic", d.topic}, {"currentKafkaPartitions", parts}, {"brokerList", d.broker_list}};
    if (d.schema_registry_url) source["confluent.schema.registry.url"] = StripUrlCredentials(*d.schema_registry_url);
    json custom = json::object();
    custom["kafka_default_offsets"] = d.default_offset.text;
    for (const auto& [k, v] : d.custom_properties) custom[k] = IsSecretName(k) ? kSecretMask : v;
    std::string tracking = "SELECT * FROM __sluice.routine_load_rejected_rows WHERE DbName = '" + d.db +
                           "' AND JobName = '" + d.name + "'";

    Row row;
    row.push_back(std::to_string(s.id));
    row.push_back(d.name);
    row.push_back(TimeOrNull(s.create_time_ms));
    row.push_back(TimeOrNull(s.pause_time_ms));
    row.push_back(TimeOrNull(s.end_time_ms));
    row.push_back(d.db);
    row.push_back(d.TargetName());  // catalog.db.table for an Iceberg table
    row.push_back(std::string(catalog::JobStateName(s.state)));
    row.push_back(std::string("KAFKA"));
    row.push_back(std::to_string(snap.current_tasks));
    row.push_back(Dump(JobPropertiesJson(d, snap.current_tasks)));
    row.push_back(Dump(source));
    row.push_back(Dump(custom));
    row.push_back(Dump(stat));
    row.push_back(Dump(prog));
    row.push_back(Dump(ts));
    row.push_back(s.reason);
    row.push_back(total.error_rows > 0 ? std::optional<std::string>(snap.error_url) : std::optional<std::string>(""));
    row.push_back(total.error_rows > 0 ? tracking : std::string(""));
    row.push_back(snap.other_msg);
    row.push_back(Dump(latest));
    row.push_back(Dump(lag));
    rs.rows.push_back(std::move(row));
  }
  if (!stmt.order_by.empty()) {
    auto it = std::find_if(std::begin(kShowColumns), std::end(kShowColumns),
                           [&](const char* c) { return strcasecmp(c, stmt.order_by.c_str()) == 0; });
    if (it == std::end(kShowColumns))
      return Status::InvalidArgument("cannot ORDER BY '" + stmt.order_by + "': not a column of SHOW ROUTINE LOAD");
    size_t col = it - std::begin(kShowColumns);
    bool numeric = col == 0 || col == 9;
    std::stable_sort(rs.rows.begin(), rs.rows.end(), [&](const Row& a, const Row& b) {
      std::string x = a[col].value_or(""), y = b[col].value_or("");
      bool less = numeric ? std::stoll(x.empty() ? "0" : x) < std::stoll(y.empty() ? "0" : y) : x < y;
      bool greater = numeric ? std::stoll(y.empty() ? "0" : y) < std::stoll(x.empty() ? "0" : x) : y < x;
      return stmt.order_desc ? greater : less;
    });
  }
  if (stmt.offset > 0)
    rs.rows.erase(rs.rows.begin(), rs.rows.begin() + std::min<int64_t>(stmt.offset, static_cast<int64_t>(rs.rows.size())));
  if (stmt.limit && static_cast<int64_t>(rs.rows.size()) > *stmt.limit) rs.rows.resize(*stmt.limit);
  return rs;
}

Result<ResultSet> JobRegistry::ShowTasks(const sql::ShowRoutineLoadTask& stmt, const std::string& db) {
  ResultSet rs;
  for (const char* c : {"TaskId", "TxnId", "TxnStatus", "JobId", "CreateTime", "LastScheduledTime",
                        "ExecuteStartTime", "Timeout", "BeId", "DataSourceProperties", "Message"})
    rs.AddColumn(c);
  SyncClusterJobs();
  // A cluster job's partitions other nodes hold: one row per node (its tasks are that node's to show).
  std::vector<std::pair<std::string, std::vector<int32_t>>> elsewhere;
  {
    int64_t cluster_job = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto job = FindLocked(db, stmt.job_name, true);
      if (job && job->cluster) cluster_job = job->stored.id;
    }
    if (cluster_job != 0) {
      auto held = PartitionsHeldElsewhere(cluster_job);
      if (held.ok()) elsewhere = std::move(held).value();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto job = FindLocked(db, stmt.job_name, true);
  if (!job) return Status::NotFound("routine load '" + stmt.job_name + "' does not exist in database '" + db + "'");
  for (const auto& [node, parts] : elsewhere) {
    json offsets = json::object();
    for (int32_t p : parts) offsets[std::to_string(p)] = json(nullptr);
    Row row{std::nullopt, std::nullopt, std::nullopt, std::to_string(job->stored.id), std::nullopt, std::nullopt,
            std::nullopt, job->stored.def.Property("task_timeout_second"), node, Dump(offsets),
            "the partitions node '" + node + "' holds; its own SHOW ROUTINE LOAD TASK shows its tasks"};
    rs.rows.push_back(std::move(row));
  }
  for (const auto& g : job->groups) {
    json offsets = json::object();
    for (int32_t p : g->partitions) {
      auto it = g->task_offsets.find(p);
      offsets[std::to_string(p)] = it == g->task_offsets.end() ? json(nullptr) : json(it->second);
    }
    Row row;
    row.push_back(g->task_id ? std::optional<std::string>(std::to_string(g->task_id)) : std::nullopt);
    row.push_back(g->task_id ? std::optional<std::string>(std::to_string(g->task_id)) : std::nullopt);
    // RUNNING while a task runs, else how the last one ended (NULL before the first did).
    std::optional<std::string> status;
    if (g->running) status = "RUNNING";
    else if (!g->last_txn_status.empty()) status = g->last_txn_status;
    row.push_back(status);
    row.push_back(std::to_string(job->stored.id));
    row.push_back(TimeOrNull(g->create_time_ms));
    row.push_back(TimeOrNull(g->last_scheduled_ms));
    // The running task's start on its worker; between tasks, the last task's.
    row.push_back(TimeOrNull(g->execute_start_ms));
    row.push_back(job->stored.def.Property("task_timeout_second"));
    row.push_back(NodeName());  // BeId: the node running the task ("0" on a server of its own)
    row.push_back(Dump(offsets));
    row.push_back(g->message);
    rs.rows.push_back(std::move(row));
  }
  return rs;
}

}  // namespace sluice::scheduler
