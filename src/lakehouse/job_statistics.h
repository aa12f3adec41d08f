#pragma once
// A Kafka job's statistics committed with its rows (routine loads and Kafka pipes into Iceberg tables): every
// commit's snapshot summary carries, beside the offsets,
//   sluice.stats.<job id> = {"loadedRows":n,"errorRows":n,"unselectedRows":n,"receivedBytes":n,
//                            "committedTasks":n,"taskExecuteTimeMs":n}
// the job's totals up to and including that commit: the newest value on the table's ancestry plus the task's
// counts, computed against the version the commit lands on (again on every rebase). So the totals are exactly
// what the table holds of the job, whichever node committed it, survive any node's death, and need no store of
// their own; compaction carries the key forward like the offsets (CarriedSummaryKeys). A cluster node answers
// SHOW ROUTINE LOAD's Statistic and DESC PIPE EXTENDED's counts from them (docs/cluster.md, "Statistics").
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/routine_load_store.h"
#include "common/status.h"
#include "iceberg/table_model.h"

namespace sluice::lakehouse {

// "sluice.stats.<job id>"
std::string StatisticsSummaryKey(int64_t job_id);

// The totals as the summary writes them, and back. Parsing fails (Internal, naming the key's text) on anything
// but a JSON object of whole numbers; keys it does not know are ignored, missing ones are 0 (next_offset unused).
std::string StatisticsJson(const catalog::PartitionProgress& totals);
Result<catalog::PartitionProgress> ParseStatistics(const std::string& text);

// `base` plus one committed task's counts (committedTasks + 1).
catalog::PartitionProgress AddTask(catalog::PartitionProgress base, const catalog::TaskCounts& task);

// The job's totals on the table's current ancestry; nullopt when no snapshot carries them (nothing committed
// yet, or only by a version of Sluice that did not write them).
Result<std::optional<catalog::PartitionProgress>> ReadJobStatistics(const iceberg::TableMetadata& metadata,
                                                                   int64_t job_id);

}  // namespace sluice::lakehouse
