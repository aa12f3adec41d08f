#pragma once
// One routine load task: read a group of partitions from their committed offsets until a batch limit, decode,
// transform in DuckDB, and commit rows, rejected rows and progress in one transaction (DESIGN.md decision 2).
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/load_history.h"
#include "catalog/routine_load_store.h"
#include "common/status.h"
#include "load/commit_sink.h"
#include "load/message_decoder.h"
#include "load/task_plan.h"
#include "source/kafka_source.h"
#include "storage/batch_table_function.h"
#include "storage/database.h"

namespace sluice::load {

struct TaskLimits {
  std::chrono::milliseconds consume_time{15000};
  size_t max_rows = 200000;
  size_t max_bytes = 100 << 20;
  // source::ConsumeLimits::end_at_fetched_high: only for a task whose consumer was created for it.
  bool end_at_fetched_high = false;
};

struct TaskResult {
  bool had_data = false;        // messages were read
  bool committed = false;
  bool caught_up = false;       // every partition reached its high watermark
  int64_t messages = 0;
  int64_t total_rows = 0;       // loaded + error + unselected
  catalog::TaskCounts counts;
  std::map<int32_t, int64_t> next_offsets;
  std::map<int32_t, int64_t> last_timestamp_ms;  // per partition, of the last message read (for TimestampProgress)
  std::string abort_reason;     // set when the task read data but did not commit it by the rules (filter ratio)
  int64_t started_ms = 0;       // wall clock, for load_history
  std::string first_error;      // the first error row's reason, for load_history
  // Fatal parse errors (RejectedRow::fatal) of a routine load. With pause_on_fatal_parse_error = false they are
  // error rows that max_error_number and max_filter_ratio do not count (part of counts.error_rows); with true the
  // task stops reading at the first one and commits what came before it: fatal_stop names it, and the committed
  // offset of its partition is its own, so nothing after it is loaded yet.
  int64_t fatal_rows = 0;
  std::optional<RejectedRow> last_fatal;  // the last skipped one, for OtherMsg
  std::optional<RejectedRow> fatal_stop;
};

// The test points of a task's phases (common/test_points.h), named by the kind of job: routine loads and Kafka
// pipes run the same task, and a test crashes the one it means.
struct TaskTestPoints {
  std::string_view after_fetch;    // the first message of the task was fetched, before it is decoded
  std::string_view after_decode;   // the batch is decoded, before its transaction begins
  std::string_view inside_commit;  // rows, rejected rows, progress and load history are written; before COMMIT
  std::string_view commit;         // storage's COMMIT of the task's transaction
  std::string_view after_commit;   // committed, before the Kafka consumer group's offsets are committed
};
const TaskTestPoints& TestPointsOf(const catalog::RoutineLoadDefinition& def);

class RoutineLoadTask {
 public:
  RoutineLoadTask(std::shared_ptr<const TaskPlan> plan, int64_t task_id) : plan_(std::move(plan)), task_id_(task_id) {}

  // `still_current` is asked right before committing: false means the job moved on (paused, altered, the task
  // timed out and was replaced), and the task commits nothing. `rejected_rows_to_keep` bounds what one task
  // records (-1: all).
  // `assigned` tells whether the source is already positioned at start_offsets (the previous task of the same
  // group ended there), which keeps what librdkafka prefetched.
  // Checked by the sink right before it commits (TaskBookkeeping::Fence).
  void set_commit_fence(CommitFence fence) { fence_ = std::move(fence); }
  Result<TaskResult> Run(source::KafkaSource& source, storage::Connection& con,
                         const std::map<int32_t, int64_t>& start_offsets, bool assigned, const TaskLimits& limits,
                         int64_t rejected_rows_to_keep, const std::function<bool()>& still_current);

 private:
  class Bookkeeping;
  Status Commit(storage::Connection& con, const TextBatch& batch, const std::map<int32_t, int64_t>& start,
                TaskResult& result, int64_t rejected_rows_to_keep, const std::function<bool()>& still_current);
  catalog::LoadHistoryEntry HistoryEntry(const std::map<int32_t, int64_t>& start, const TaskResult& result,
                                         const char* status) const;
  std::shared_ptr<const TaskPlan> plan_;
  int64_t task_id_;
  CommitFence fence_;
};

}  // namespace sluice::load
