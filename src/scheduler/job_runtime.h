#pragma once
// What the scheduler keeps in memory for a running job, beside what the catalog stores.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/routine_load_store.h"
#include "cluster/lease_store.h"
#include "scheduler/routine_load_manager.h"
#include "load/task_plan.h"
#include "source/kafka_source.h"

namespace sluice::scheduler {

using Clock = std::chrono::steady_clock;

inline Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// A group of partitions one task after another reads: one task runs at a time per group, so a partition belongs
// to exactly one task.
struct TaskGroup {
  std::vector<int32_t> partitions;
  bool running = false;
  int64_t generation = 0;                  // bumped when a task is given up as timed out
  Clock::time_point next_run;
  // When a batch was asked for out of turn (ALTER PIPE ... EXECUTE): the next task's idle check takes no answer
  // sent before it, so data produced before the statement is loaded by that batch.
  Clock::time_point asked_at;
  Clock::time_point task_started;
  int64_t task_id = 0;
  int64_t create_time_ms = 0;
  int64_t last_scheduled_ms = 0;
  double backoff_seconds = 0;               // grows while the source keeps failing
  std::string message;                      // what the last task said (SHOW ROUTINE LOAD TASK)
  // SHOW ROUTINE LOAD TASK: when the running (or last) task began on its worker, and how the last one ended:
  // "COMMITTED", "ABORTED" (failed, or over the error limits: nothing committed), "NO_DATA" (nothing new to
  // load); empty before the first task ended.
  int64_t execute_start_ms = 0;
  std::string last_txn_status;
  std::map<int32_t, int64_t> task_offsets;  // where the running (or last) task started
  // Used only by the worker running this group's task.
  std::unique_ptr<source::KafkaSource> source;
  std::map<int32_t, int64_t> source_position;  // where `source` is assigned and positioned; empty = unknown
  bool behind = false;  // the last task committed without catching up: the next one may read longer
  // An idle librdkafka client still costs CPU every second, so a group whose tasks have found no new data for a
  // while closes `source`; until the partitions' high watermarks (asked through the registry's shared metadata
  // client) move past these offsets, its tasks end without a consumer or any DuckDB work. Non-empty only while
  // `source` is closed: the offsets its last task reached, at the committed ones (which only this group's tasks
  // change; a regrouped job gets new groups).
  std::map<int32_t, int64_t> idle_offsets;
  Clock::time_point last_data;  // when a task of this group last read data, or its consumer was opened
  // A task of this group has ended. Its first task (after a job's scheduling, a restart or a regrouping) opens no
  // consumer when the partitions hold nothing past the start, and closes the one it opened once it caught up: a
  // server starting 1,000 jobs would otherwise hold a consumer (3-4 threads) per job for 5 s after its data.
  bool ran_task = false;
};

struct JobRuntime {
  catalog::StoredJob stored;
  std::shared_ptr<const load::TaskPlan> plan;
  // The DuckDB target table as CREATE described it: the job's first scheduling plans from it instead of asking
  // the catalog again (describing a table is most of what starting a job costs). Dropped on that scheduling, and
  // when the table changes (TargetChanged).
  std::optional<catalog::TableMeta> table_at_create;
  std::vector<std::shared_ptr<TaskGroup>> groups;
  int64_t version = 0;             // bumped on pause, stop, alter and regrouping; tasks of older versions don't commit
  bool scheduling = false;         // NEED_SCHEDULE work is on a worker
  Clock::time_point next_schedule_attempt;
  double schedule_backoff_seconds = 0;
  Clock::time_point next_partition_check;
  int64_t aborted_tasks = 0;
  int64_t window_rows = 0;         // the error window: 10 x max_batch_rows rows
  int64_t window_errors = 0;
  std::string other_msg;
  // OtherMsg as SHOW gives it: the last message, else why some partitions wait to start.
  const std::string& ShownOtherMsg() const { return other_msg.empty() ? unstarted_note : other_msg; }
  std::map<int32_t, int64_t> latest_offsets;     // high watermarks last seen
  std::map<int32_t, int64_t> last_timestamp_ms;  // of the last message loaded per partition
  std::vector<int32_t> current_partitions;
  // Partitions left out of this run because their starting offsets could not be read (ScheduleJob): the partition
  // check retries them, and the job is regrouped once they answer.
  std::vector<int32_t> unstarted_partitions;
  std::string unstarted_note;  // why they were left out, shown in OtherMsg while no other message is
  // Where this run's consumption started, for partitions without committed progress, with how many messages
  // the topic already held before that point (DESC PIPE's start_position: a new group with
  // RESET_KAFKA_GROUP_OFFSETS = 'none' starts at the end, and that must not look like an empty topic).
  std::string start_note;
  bool paused_for_storage = false;  // PAUSED by the storage gate: resumes by itself once writes succeed again
  int64_t failed_batches = 0;      // pipes: consecutive batches not committed for too many error rows
  int tasks_in_flight = 0;         // tasks on a worker, current or not (DROP PIPE waits for them)
  // Volume pipes, as their last task saw them (DESC PIPE's pipe_latency): files listed and not loaded yet.
  int64_t pending_files = 0;
  int64_t pending_bytes = 0;
  int64_t last_listing_ms = 0;
  std::string last_loaded_file;
  int64_t last_load_ms = 0;
  JobActivity activity;
  // Cluster jobs (routine loads into Iceberg tables on a cluster node, cluster_jobs.cpp): kept in PostgreSQL, run by
  // every node for the partitions it holds leases on.
  bool cluster = false;
  std::map<int32_t, cluster::Lease> leases;      // the partitions this node holds, with their epochs
                                                 // (a volume pipe: its one lease pipe:<id>, under key 0)
  // A cluster volume pipe this node could start (its volume, table and format checked): only then does it take the
  // pipe's lease, so a node without the volume or the catalog leaves the pipe to the others.
  bool cluster_ready = false;
  // A cluster pipe whose virtual cluster names its nodes, none of which is alive: why it waits (SHOW PIPES'
  // last_error on the nodes that may not run it). Set by the cluster thread every tick.
  std::string node_wait;
  catalog::JobState shared_state = catalog::JobState::kNeedSchedule;  // the state in PostgreSQL, as last known
  uint64_t local_write = 0;  // JobRegistry::cluster_writes_ at this node's last write of the job
  int64_t seen_wakes = 0;    // catalog::StoredJob::wakes when this node last acted on it
};

}  // namespace sluice::scheduler
