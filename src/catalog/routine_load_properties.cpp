// The property tables of CREATE ROUTINE LOAD: PROPERTIES (...) and FROM KAFKA (...).
#include "catalog/routine_load_job.h"

namespace sluice::catalog {

const std::vector<PropertySpec>& JobPropertyTable() {
  static const std::vector<PropertySpec> kTable = {
      {"desired_concurrent_number", PropertyType::kInt, "3", 1, 256, {}, true,
       "Upper bound on the tasks a job runs at once; the actual number is also bounded by partitions and workers."},
      {"max_batch_interval", PropertyType::kDouble, "10", 0.05, 86400, {}, true,
       "Seconds between the starts of two tasks of a partition group when the job has caught up (a task that took "
       "longer is followed at once). Sluice allows sub-second values (StarRocks requires at least 5)."},
      {"max_batch_rows", PropertyType::kInt, "200000", 1, 1e12, {}, true,
       "Rows a task reads before it commits; the error window is 10 x max_batch_rows."},
      {"max_batch_size", PropertyType::kInt, "104857600", 1024, 4294967296.0, {}, true,
       "Bytes a task reads before it commits."},
      {"max_error_number", PropertyType::kInt, "0", 0, 9.2e18, {}, true,
       "Error rows tolerated within the error window before the job pauses."},
      {"max_filter_ratio", PropertyType::kDouble, "1.0", 0, 1, {}, true,
       "A task whose error rows / rows read exceeds this ratio is not committed and the job pauses."},
      {"strict_mode", PropertyType::kBool, "false", 0, 0, {}, true,
       "true: a value that cannot be converted makes its row an error row; false: it becomes NULL."},
      {"timezone", PropertyType::kString, "UTC", 0, 0, {}, true,
       "Time zone for time functions and datetime kafka_offsets."},
      {"format", PropertyType::kEnum, "csv", 0, 0, {"csv", "json", "avro"}, true, "Message format."},
      {"jsonpaths", PropertyType::kString, "", 0, 0, {}, true,
       "JSON array of paths, e.g. [\"$.a\", \"$.b.c\"], mapped in order onto COLUMNS."},
      {"json_root", PropertyType::kString, "", 0, 0, {}, true, "Path of the element to treat as the document root."},
      {"strip_outer_array", PropertyType::kBool, "false", 0, 0, {}, true,
       "A message holding a JSON array yields one row per element."},
      {"trim_space", PropertyType::kBool, "false", 0, 0, {}, true, "CSV: strip spaces around fields."},
      {"enclose", PropertyType::kByte, "", 0, 0, {}, true, "CSV: the quote byte around fields, e.g. '\"'."},
      {"escape", PropertyType::kByte, "", 0, 0, {}, true, "CSV: the byte that makes the next byte literal."},
      {"partial_update", PropertyType::kBool, "false", 0, 0, {}, true,
       "Primary-key tables: update only the columns listed in COLUMNS."},
      {"merge_condition", PropertyType::kString, "", 0, 0, {}, true,
       "Primary-key tables: apply an update only when the new value of this column >= the stored one."},
      {"log_rejected_record_num", PropertyType::kInt, "0", -1, 9.2e18, {}, true,
       "Rejected rows kept for inspection per job; -1 keeps all; 0 keeps the 100 most recent."},
      {"task_consume_second", PropertyType::kInt, "15", 1, 86400, {}, true, "Seconds a task reads before it commits."},
      {"task_timeout_second", PropertyType::kInt, "60", 2, 86400, {}, true,
       "Seconds after which a task is abandoned and its offsets re-read by the next task."},
      {"fill_mismatch_column_with", PropertyType::kEnum, "none", 0, 0, {"none", "null"}, true,
       "CSV: none: a row with another field count than COLUMNS is an error row; null: a short row is padded with "
       "NULLs and the fields past the last column are ignored (with strict_mode a short row stays an error row)."},
      {"pause_on_fatal_parse_error", PropertyType::kBool, "false", 0, 0, {}, true,
       "A message that cannot be parsed at all (invalid JSON, a JSON array without strip_outer_array, an Avro body "
       "that does not decode) pauses the job (true) or is skipped as an error row that max_error_number does not "
       "count (false)."},
      {"iceberg.commit_interval_seconds", PropertyType::kDouble, "10", 0, 86400, {}, true,
       "Iceberg targets only (ON catalog.db.table): the least seconds between two commits of a task group that "
       "caught up, so a trickle of messages does not make a snapshot per batch. A task that stopped at a batch "
       "limit (max_batch_rows, max_batch_size) commits at once. 0: max_batch_interval alone decides."},
  };
  return kTable;
}

const std::vector<PropertySpec>& KafkaPropertyTable() {
  static const std::vector<PropertySpec> kTable = {
      {"kafka_broker_list", PropertyType::kString, "", 0, 0, {}, false, "Required. host:port[,host:port...]"},
      {"kafka_topic", PropertyType::kString, "", 0, 0, {}, false, "Required. The topic to load."},
      {"kafka_partitions", PropertyType::kString, "", 0, 0, {}, true,
       "Partitions to load, e.g. \"0,1,2\". Default: all, and partitions added later are picked up. "
       "ALTER replaces the list; partitions that stay keep their progress."},
      {"kafka_offsets", PropertyType::kString, "", 0, 0, {}, true,
       "Starting offset of each listed partition: a number, OFFSET_BEGINNING, OFFSET_END, or a datetime "
       "(the first message at or after it)."},
      {"property.kafka_default_offsets", PropertyType::kString, "OFFSET_END", 0, 0, {}, true,
       "Starting offset of partitions without an explicit one."},
      {"confluent.schema.registry.url", PropertyType::kString, "", 0, 0, {}, true,
       "Schema registry for format avro: http[s]://[key:secret@]host[:port]."},
  };
  return kTable;
}

}  // namespace sluice::catalog
