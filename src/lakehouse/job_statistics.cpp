#include "lakehouse/job_statistics.h"

#include <nlohmann/json.hpp>

#include "iceberg/table_operations.h"

namespace sluice::lakehouse {

std::string StatisticsSummaryKey(int64_t job_id) { return "sluice.stats." + std::to_string(job_id); }

std::string StatisticsJson(const catalog::PartitionProgress& t) {
  nlohmann::ordered_json j = {{"loadedRows", t.loaded_rows},       {"errorRows", t.error_rows},
                              {"unselectedRows", t.unselected_rows}, {"receivedBytes", t.received_bytes},
                              {"committedTasks", t.committed_tasks}, {"taskExecuteTimeMs", t.task_execute_ms}};
  return j.dump();
}

Result<catalog::PartitionProgress> ParseStatistics(const std::string& text) {
  catalog::PartitionProgress t;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) throw std::runtime_error("not an object");
    auto get = [&](const char* k) -> int64_t {
      auto it = j.find(k);
      if (it == j.end()) return 0;
      if (!it->is_number_integer()) throw std::runtime_error(std::string(k) + " is not a whole number");
      return it->get<int64_t>();
    };
    t.loaded_rows = get("loadedRows");
    t.error_rows = get("errorRows");
    t.unselected_rows = get("unselectedRows");
    t.received_bytes = get("receivedBytes");
    t.committed_tasks = get("committedTasks");
    t.task_execute_ms = get("taskExecuteTimeMs");
  } catch (const std::exception& e) {
    return Status::Internal("'" + text + "' is not a JSON object of the job's statistics (" + e.what() + ")");
  }
  return t;
}

catalog::PartitionProgress AddTask(catalog::PartitionProgress base, const catalog::TaskCounts& task) {
  base.loaded_rows += task.loaded_rows;
  base.error_rows += task.error_rows;
  base.unselected_rows += task.unselected_rows;
  base.received_bytes += task.received_bytes;
  base.task_execute_ms += task.execute_ms;
  base.committed_tasks += 1;
  return base;
}

Result<std::optional<catalog::PartitionProgress>> ReadJobStatistics(const iceberg::TableMetadata& metadata,
                                                                   int64_t job_id) {
  const std::string key = StatisticsSummaryKey(job_id);
  auto value = iceberg::ReadSummaryChain(metadata, key);
  if (!value) return std::optional<catalog::PartitionProgress>();
  auto parsed = ParseStatistics(value->value);
  if (!parsed.ok())
    return Status::Internal("snapshot " + std::to_string(value->snapshot_id) + " holds " + key + " = " +
                            parsed.status().message());
  return std::optional<catalog::PartitionProgress>(std::move(parsed).value());
}

}  // namespace sluice::lakehouse
