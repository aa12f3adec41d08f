#include "catalog/pipe_definition.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include <nlohmann/json.hpp>

#include "catalog/property_table.h"
#include "catalog/type_mapping.h"
#include "common/ascii.h"
#include "common/secret_redaction.h"
#include "sql/ast.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

using nlohmann::json;

constexpr const char* kPipeProperties =
    "VIRTUAL_CLUSTER, BATCH_INTERVAL_IN_SECONDS, BATCH_SIZE_PER_KAFKA_PARTITION, INITIAL_DELAY_IN_SECONDS, "
    "MAX_SKIP_BATCH_COUNT_ON_ERROR, RESET_KAFKA_GROUP_OFFSETS (and ICEBERG_COMMIT_INTERVAL_IN_SECONDS into an "
    "Iceberg table)";
constexpr const char* kVolumePipeProperties =
    "VIRTUAL_CLUSTER, BATCH_INTERVAL_IN_SECONDS, INGEST_MODE, INITIAL_DELAY_IN_SECONDS, MAX_SKIP_BATCH_COUNT_ON_ERROR";
// What ALTER PIPE ... SET can change: RESET_KAFKA_GROUP_OFFSETS and INGEST_MODE apply at creation only (the
// Lakehouse reference), so they are not offered; PIPE_EXECUTION_PAUSED and COMMENT are.
constexpr const char* kAlterPipeProperties =
    "PIPE_EXECUTION_PAUSED, VIRTUAL_CLUSTER, BATCH_INTERVAL_IN_SECONDS, BATCH_SIZE_PER_KAFKA_PARTITION, "
    "INITIAL_DELAY_IN_SECONDS, MAX_SKIP_BATCH_COUNT_ON_ERROR, COMMENT (and ICEBERG_COMMIT_INTERVAL_IN_SECONDS into "
    "an Iceberg table)";
constexpr const char* kAlterVolumePipeProperties =
    "PIPE_EXECUTION_PAUSED, VIRTUAL_CLUSTER, BATCH_INTERVAL_IN_SECONDS, INITIAL_DELAY_IN_SECONDS, "
    "MAX_SKIP_BATCH_COUNT_ON_ERROR, COMMENT";

Result<int64_t> IntIn(const std::string& name, const std::string& value, int64_t lo, int64_t hi) {
  bool digits = !value.empty() && value.size() <= 18 &&
                std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
  int64_t v = digits ? std::stoll(value) : -1;
  if (!digits || v < lo || v > hi)
    return Status::InvalidArgument("pipe property " + name + " must be a whole number from " + std::to_string(lo) +
                                   " to " + std::to_string(hi) + ", got '" + value + "'");
  return v;
}

// "2024-05-01 10:00:00.123" (UTC) for epoch milliseconds: how a time-based start is kept (OffsetSpec::kTime).
std::string UtcText(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03d", static_cast<int>(ms % 1000));
  return std::string(buf) + frac;
}

void SetProperty(PipeSettings& p, const std::string& name, const std::string& value) {
  for (auto& kv : p.properties) {
    if (kv.first == name) {
      kv.second = value;
      return;
    }
  }
  p.properties.emplace_back(name, value);
}

// Applies one CREATE/ALTER property to the definition (validated).
Status ApplyProperty(RoutineLoadDefinition& def, const std::string& name, const std::string& value, bool creating) {
  PipeSettings& p = *def.pipe;
  if (p.volume && (name == "BATCH_SIZE_PER_KAFKA_PARTITION" || name == "RESET_KAFKA_GROUP_OFFSETS"))
    return Status::InvalidArgument("pipe property " + name + " applies to Kafka pipes; a volume pipe takes " +
                                   (creating ? kVolumePipeProperties : kAlterVolumePipeProperties));
  if (name == "INGEST_MODE") {
    if (!p.volume)
      return Status::InvalidArgument("pipe property INGEST_MODE applies to volume pipes (COPY INTO ... FROM VOLUME)");
    if (!creating)
      return Status::InvalidArgument("INGEST_MODE applies when a pipe is created; drop the pipe and create it again "
                                     "with the new mode");
    std::string v = AsciiUpper(value);
    if (v != "LIST_PURGE" && v != "LIST")
      return Status::InvalidArgument("pipe property INGEST_MODE must be 'LIST_PURGE' (delete each file after it is "
                                     "loaded) or 'LIST' (keep the files; load each version once), got '" + value + "'");
    p.volume->ingest_mode = v;
    SetProperty(p, name, v);
    return Status::Ok();
  }
  if (name == "VIRTUAL_CLUSTER") {
    if (value.empty()) return Status::InvalidArgument("pipe property VIRTUAL_CLUSTER must name a virtual cluster");
    p.virtual_cluster = value;
  } else if (name == "BATCH_INTERVAL_IN_SECONDS") {
    ASSIGN_OR_RETURN(int64_t v, IntIn(name, value, 1, 86400));
    def.job_properties["max_batch_interval"] = std::to_string(v);
  } else if (name == "BATCH_SIZE_PER_KAFKA_PARTITION") {
    ASSIGN_OR_RETURN(p.batch_size_per_partition, IntIn(name, value, 1, 100000000));
    def.job_properties["max_batch_rows"] = std::to_string(p.batch_size_per_partition);
  } else if (name == "ICEBERG_COMMIT_INTERVAL_IN_SECONDS") {
    // The routine load property iceberg.commit_interval_seconds: the least time between two commits of a task
    // group that caught up, so a trickle does not make a snapshot per batch.
    if (p.volume)
      return Status::InvalidArgument("pipe property ICEBERG_COMMIT_INTERVAL_IN_SECONDS applies to Kafka pipes; a "
                                     "volume pipe commits once per listing, so BATCH_INTERVAL_IN_SECONDS paces its "
                                     "commits");
    if (!def.iceberg_target())
      return Status::InvalidArgument("pipe property ICEBERG_COMMIT_INTERVAL_IN_SECONDS applies to pipes into Iceberg "
                                     "tables (COPY INTO catalog.db.table); table '" + def.table +
                                     "' is a table of database '" + def.db + "'");
    ASSIGN_OR_RETURN(int64_t v, IntIn(name, value, 0, 86400));
    def.job_properties["iceberg.commit_interval_seconds"] = std::to_string(v);
  } else if (name == "INITIAL_DELAY_IN_SECONDS") {
    ASSIGN_OR_RETURN(p.initial_delay_seconds, IntIn(name, value, 0, 86400));
  } else if (name == "MAX_SKIP_BATCH_COUNT_ON_ERROR") {
    ASSIGN_OR_RETURN(p.max_skip_batches, IntIn(name, value, 1, 1000000));
  } else if (name == "RESET_KAFKA_GROUP_OFFSETS") {
    if (!creating)
      return Status::InvalidArgument("RESET_KAFKA_GROUP_OFFSETS applies when a pipe is created; drop the pipe and "
                                     "create it again with the setting");
    std::string v = AsciiLower(value);
    bool millis = !v.empty() && v.size() <= 15 && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
    if (v != "none" && v != "valid" && v != "earliest" && v != "latest" && !millis)
      return Status::InvalidArgument("pipe property RESET_KAFKA_GROUP_OFFSETS must be 'none', 'valid', 'earliest', "
                                     "'latest' or a time in epoch milliseconds, got '" + value + "'");
    p.reset_offsets = v;
    if (v == "earliest") def.default_offset = OffsetSpec{OffsetSpec::Kind::kBeginning, 0, "OFFSET_BEGINNING"};
    else if (millis) def.default_offset = OffsetSpec{OffsetSpec::Kind::kTime, 0, UtcText(std::stoll(v))};
    else def.default_offset = OffsetSpec{OffsetSpec::Kind::kEnd, 0, "OFFSET_END"};
    if (v == "valid") def.custom_properties.emplace_back("auto.offset.reset", "earliest");
  } else if (name == "COMMENT") {
    p.comment = value;
    return Status::Ok();
  } else if (name == "PIPE_EXECUTION_PAUSED" && creating) {
    return Status::InvalidArgument("PIPE_EXECUTION_PAUSED is set with ALTER PIPE; a pipe starts RUNNING");
  } else {
    const char* allowed = creating ? (p.volume ? kVolumePipeProperties : kPipeProperties)
                                   : (p.volume ? kAlterVolumePipeProperties : kAlterPipeProperties);
    return Status::InvalidArgument(std::string(creating ? "unknown pipe property " : "ALTER PIPE cannot set ") + name +
                                   "; use one of " + allowed);
  }
  SetProperty(p, name, value);
  return Status::Ok();
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& ReadKafkaColumns() {
  static const std::vector<std::pair<std::string, std::string>> kColumns = {
      {"topic", "VARCHAR"},     {"partition", "INTEGER"},        {"offset", "BIGINT"},
      {"timestamp", "TIMESTAMP"}, {"timestamp_type", "VARCHAR"}, {"headers", "JSON"},
      {"key", "VARCHAR"},       {"value", "VARCHAR"}};
  return kColumns;
}

std::string PipeSettingsToJson(const PipeSettings& p) {
  json j;
  j["virtual_cluster"] = p.virtual_cluster;
  j["comment"] = p.comment;
  j["copy_statement"] = p.copy_statement;
  j["properties"] = p.properties;
  j["select"] = p.select;
  j["max_errors"] = p.max_errors;
  j["value_format"] = p.value_format;
  j["batch_size_per_partition"] = p.batch_size_per_partition;
  j["max_skip_batches"] = p.max_skip_batches;
  j["initial_delay_seconds"] = p.initial_delay_seconds;
  j["reset_offsets"] = p.reset_offsets;
  j["modified_time_ms"] = p.modified_time_ms;
  j["creator"] = p.creator;
  if (p.volume) {
    const VolumePipeSpec& v = *p.volume;
    j["volume"] = {{"volume", v.volume},           {"file_columns", v.file_columns},
                   {"format", v.format},           {"options", v.options},
                   {"select_list", v.select_list}, {"where", v.where},
                   {"continue_on_error", v.continue_on_error}, {"ingest_mode", v.ingest_mode},
                   {"subdirectory", v.subdirectory}, {"regexp", v.regexp}};
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

PipeSettings PipeSettingsFromJson(const std::string& text) {
  PipeSettings p;
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return p;
  p.virtual_cluster = j.value("virtual_cluster", "default");
  p.comment = j.value("comment", "");
  p.copy_statement = j.value("copy_statement", "");
  p.properties = j.value("properties", std::vector<std::pair<std::string, std::string>>{});
  p.select = j.value("select", std::vector<std::pair<std::string, std::string>>{});
  p.max_errors = j.value("max_errors", int64_t{0});
  p.value_format = j.value("value_format", "raw");
  p.batch_size_per_partition = j.value("batch_size_per_partition", int64_t{500000});
  p.max_skip_batches = j.value("max_skip_batches", int64_t{30});
  p.initial_delay_seconds = j.value("initial_delay_seconds", int64_t{0});
  p.reset_offsets = j.value("reset_offsets", "none");
  p.modified_time_ms = j.value("modified_time_ms", int64_t{0});
  p.creator = j.value("creator", "");
  if (j.contains("volume") && j["volume"].is_object()) {
    const json& jv = j["volume"];
    VolumePipeSpec v;
    v.volume = jv.value("volume", "");
    v.file_columns = jv.value("file_columns", std::vector<std::pair<std::string, std::string>>{});
    v.format = jv.value("format", "CSV");
    v.options = jv.value("options", std::vector<std::pair<std::string, std::string>>{});
    v.select_list = jv.value("select_list", "");
    v.where = jv.value("where", "");
    v.continue_on_error = jv.value("continue_on_error", false);
    v.ingest_mode = jv.value("ingest_mode", "LIST_PURGE");
    v.subdirectory = jv.value("subdirectory", "");
    v.regexp = jv.value("regexp", "");
    p.volume = std::move(v);
  }
  return p;
}

namespace {

// CREATE PIPE's properties (each once), COMMENT and creator, for both kinds of pipe.
Status ApplyCreateProperties(const sql::CreatePipe& stmt, RoutineLoadDefinition& def) {
  for (const auto& [k, v] : stmt.properties) {
    for (const auto& [k2, v2] : stmt.properties) {
      if (&k2 != &k && k2 == k) return Status::InvalidArgument("pipe property " + k + " is given twice");
    }
    RETURN_IF_ERROR(ApplyProperty(def, k, v, /*creating=*/true));
  }
  if (stmt.comment) def.pipe->comment = *stmt.comment;
  def.pipe->creator = stmt.creator;
  return Status::Ok();
}

// CREATE PIPE ... AS COPY INTO t FROM VOLUME vol ...: no Kafka settings; the COPY's parts are kept as given (the
// session has already turned a transform's SELECT list and WHERE into DuckDB SQL).
Result<RoutineLoadDefinition> BuildVolumePipe(const sql::CreatePipe& stmt, const std::string& db) {
  const sql::CopyIntoFromVolume& c = *stmt.volume_copy;
  RoutineLoadDefinition def;
  def.db = db;
  def.name = stmt.name;
  def.table = stmt.table;
  // COPY INTO catalog.db.table: each task's files commit in one snapshot of the Iceberg table.
  def.lake_catalog = stmt.table_catalog;
  if (def.iceberg_target()) def.lake_db = stmt.table_db;
  def.pipe = PipeSettings{};
  PipeSettings& p = *def.pipe;
  p.volume = VolumePipeSpec{};
  VolumePipeSpec& v = *p.volume;
  def.job_properties = {{"max_batch_interval", "60"}};
  RETURN_IF_ERROR(ApplyCreateProperties(stmt, def));
  p.copy_statement = RedactSecrets(stmt.copy_text);
  v.volume = c.volume;
  for (const auto& [name, type] : c.file_columns) {
    ASSIGN_OR_RETURN(std::string duck, ToDuckDBType(type));
    v.file_columns.emplace_back(name, duck);
  }
  v.format = c.format;
  v.options = c.options;
  v.select_list = c.select_list;
  v.where = c.where;
  v.continue_on_error = c.on_error == "CONTINUE";
  v.subdirectory = c.subdirectory.value_or("");
  v.regexp = c.regexp.value_or("");
  return def;
}

}  // namespace

Result<RoutineLoadDefinition> BuildPipe(const sql::CreatePipe& stmt, const std::string& db,
                                        const std::vector<std::string>& table_columns) {
  if (stmt.volume_copy) return BuildVolumePipe(stmt, db);
  RoutineLoadDefinition def;
  def.db = db;
  def.name = stmt.name;
  def.table = stmt.table;
  // COPY INTO catalog.db.table: the rows and the pipe's offsets commit in one snapshot of the Iceberg table, as
  // for CREATE ROUTINE LOAD ... ON catalog.db.table.
  def.lake_catalog = stmt.table_catalog;
  if (def.iceberg_target()) def.lake_db = stmt.table_db;
  def.pipe = PipeSettings{};
  PipeSettings& p = *def.pipe;
  def.job_properties = {{"format", "raw"},
                        {"max_batch_interval", "60"},
                        {"max_batch_rows", "500000"},
                        {"max_error_number", std::to_string(INT64_MAX)},
                        {"max_filter_ratio", "1"},
                        {"timezone", "UTC"}};
  def.default_offset = OffsetSpec{OffsetSpec::Kind::kEnd, 0, "OFFSET_END"};
  RETURN_IF_ERROR(ApplyCreateProperties(stmt, def));

  // READ_KAFKA(bootstrap_servers, topic, topic_pattern, group_id, 4 x range, key_format, value_format, max_errors, map)
  const auto& a = stmt.kafka_args;
  if (a.size() != 11) return Status::InvalidArgument("READ_KAFKA takes 12 arguments");
  if (a[0].empty()) return Status::InvalidArgument("READ_KAFKA argument 1 (bootstrap servers) must not be empty");
  if (a[1].empty()) return Status::InvalidArgument("READ_KAFKA argument 2 (topic) must not be empty");
  if (a[1].find(',') != std::string::npos)
    return Status::NotSupported("READ_KAFKA argument 2 names several topics; a Sluice pipe reads one topic, so create "
                                "one pipe per topic");
  if (!a[2].empty()) return Status::NotSupported("READ_KAFKA argument 3 (topic pattern) is reserved; leave it ''");
  if (a[3].empty())
    return Status::InvalidArgument("READ_KAFKA argument 4 (group id) must not be empty in a pipe: it is the pipe's "
                                   "progress, kept across DROP PIPE and CREATE PIPE");
  for (int i = 4; i < 8; i++) {
    if (!a[i].empty())
      return Status::InvalidArgument("READ_KAFKA arguments 5-8 (starting/ending offsets and timestamps) bound a "
                                     "preview in a plain SELECT; inside a pipe they must be '' (use "
                                     "RESET_KAFKA_GROUP_OFFSETS to choose where a new pipe starts)");
  }
  if (AsciiLower(a[8]) != "raw")
    return Status::NotSupported("READ_KAFKA key format (argument 9) must be 'raw'; parse the key in the SELECT list");
  if (AsciiLower(a[9]) != "raw" && AsciiLower(a[9]) != "avro")
    return Status::NotSupported("READ_KAFKA value format (argument 10) must be 'raw' or 'avro', got '" + a[9] +
                                "'; parse other formats in the SELECT list, e.g. PARSE_JSON(value::STRING)['field']");
  p.value_format = AsciiLower(a[9]);
  bool digits = !a[10].empty() && a[10].size() <= 18 &&
                std::all_of(a[10].begin(), a[10].end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits)
    return Status::InvalidArgument("READ_KAFKA argument 11 (max errors) must be a whole number >= 0, got '" + a[10] + "'");
  p.max_errors = std::stoll(a[10]);
  def.broker_list = a[0];
  def.topic = a[1];
  std::string copy = stmt.copy_text;
  for (const auto& [k, v] : stmt.kafka_settings) {
    std::string key = k.rfind("kafka.", 0) == 0 ? k.substr(6) : k;
    if (key.empty()) return Status::InvalidArgument("READ_KAFKA argument 12 has an empty setting name");
    if (key == "group.id")
      return Status::InvalidArgument("READ_KAFKA argument 12 must not set group.id; the group is argument 4");
    if (key == "schema.registry.url" || key == "confluent.schema.registry.url") {
      // The Avro values' schema registry: Sluice's setting, not the Kafka client's.
      if (def.schema_registry_url)
        return Status::InvalidArgument("READ_KAFKA argument 12 names the schema registry twice; give "
                                       "'schema.registry.url' once");
      if (p.value_format != "avro")
        return Status::InvalidArgument("READ_KAFKA argument 12 sets '" + k + "', which applies to value format "
                                       "'avro' only (argument 10 is '" + a[9] + "')");
      if (v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0)
        return Status::InvalidArgument("READ_KAFKA setting '" + k + "' must start with http:// or https://");
      def.schema_registry_url = v;
      if (std::string shown = StripUrlCredentials(v); shown != v) {
        // Credentials never show: the statement is kept with them masked.
        size_t host = shown.find("://") + 3;
        std::string masked = shown.substr(0, host) + kMask + "@" + shown.substr(host);  // http://******@host
        for (std::string quoted : {sql::QuoteLiteral(v), "\"" + v + "\""}) {
          for (size_t at = copy.find(quoted); at != std::string::npos; at = copy.find(quoted, at + 1))
            copy.replace(at, quoted.size(), sql::QuoteLiteral(masked));
        }
      }
      continue;
    }
    def.custom_properties.emplace_back(key, v);
    if (IsSecretName(key) && !v.empty()) {
      // Secrets never show: the statement is kept with the value masked.
      for (std::string quoted : {sql::QuoteLiteral(v), "\"" + v + "\""}) {
        for (size_t at = copy.find(quoted); at != std::string::npos; at = copy.find(quoted, at + 1))
          copy.replace(at, quoted.size(), std::string("'") + kMask + "'");
      }
    }
  }
  if (p.value_format == "avro" && !def.schema_registry_url)
    return Status::InvalidArgument("READ_KAFKA value format 'avro' needs the schema registry: add "
                                   "'schema.registry.url' to argument 12, e.g. map('schema.registry.url', "
                                   "'http://host:8081')");
  def.custom_properties.emplace_back("group.id", a[3]);
  // Whatever form a secret took in the text (a map key under another prefix, a JAAS string, a URL), the kept
  // statement shows it masked: this text is stored and shown by SHOW PIPES / DESC PIPE.
  p.copy_statement = RedactSecrets(copy);
  def.load.where = stmt.where;

  // The SELECT list onto the table's columns: by alias when every item has one, else by position.
  bool by_name = std::all_of(stmt.select.begin(), stmt.select.end(), [](const auto& s) { return s.alias.has_value(); });
  if (!by_name && stmt.select.size() > table_columns.size())
    return Status::InvalidArgument("the SELECT list has " + std::to_string(stmt.select.size()) + " items but table '" +
                                   def.TargetName() + "' has " + std::to_string(table_columns.size()) + " columns");
  for (size_t i = 0; i < stmt.select.size(); i++) {
    std::string target;
    if (by_name) {
      for (const auto& c : table_columns)
        if (sql::EqualsIgnoreCase(c, *stmt.select[i].alias)) target = c;
      if (target.empty())
        return Status::InvalidArgument("SELECT item alias '" + *stmt.select[i].alias + "' is not a column of table '" +
                                       def.TargetName() + "'");
    } else {
      target = table_columns[i];
    }
    for (const auto& [t, e] : p.select)
      if (t == target) return Status::InvalidArgument("two SELECT items load column '" + target + "'");
    p.select.emplace_back(target, stmt.select[i].expr);
  }
  return def;
}

Status AlterPipeProperty(RoutineLoadDefinition& def, const std::string& property, const std::string& value) {
  if (!def.pipe) return Status::Internal("not a pipe");
  return ApplyProperty(def, property, value, /*creating=*/false);
}

}  // namespace sluice::catalog
