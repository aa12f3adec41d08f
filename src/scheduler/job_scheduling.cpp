// The scheduling side of routine loads: the loop that decides what runs next, a job's scheduling
// (NEED_SCHEDULE -> RUNNING), and one task's run with the job's reaction to how it ended.
#include <algorithm>
#include <future>
#include <optional>
#include <string_view>

#include "common/clock.h"
#include "common/log.h"
#include "common/test_points.h"
#include "load/routine_load_task.h"
#include "scheduler/job_registry.h"
#include "source/offset_out_of_range.h"
#include "sql/parser.h"

namespace sluice::scheduler {

using catalog::JobState;
using std::chrono::milliseconds;

namespace {

constexpr auto kKafkaTimeout = std::chrono::seconds(10);
constexpr auto kPartitionCheckInterval = std::chrono::seconds(30);
// How soon a partition left out of a job's start (its leader unreachable) is tried again.
constexpr auto kUnstartedRetryInterval = std::chrono::seconds(10);
// A group whose tasks found no new data for this long closes its consumer (see TaskGroup::idle_offsets); jobs
// with data now and then keep theirs. Reopening costs a connection and a few milliseconds of CPU, once.
constexpr auto kCloseIdleConsumerAfter = std::chrono::seconds(5);
// How long an idle group's check for new data may take; past it (or on any error) the task opens its consumer
// and runs as usual, which reports what is wrong.
constexpr auto kIdleCheckTimeout = std::chrono::milliseconds(500);

// The latest multiple of `interval` at or before `t`, on the steady clock's own scale. Idle groups wake at these
// boundaries and ask the shared metadata client for an answer sent at or after the boundary: every idle group of
// a topic with the same interval shares one ListOffsets request, and each still sees data that arrived before its
// check (within one interval of its arrival, as when every group asked for itself).
Clock::time_point IntervalBoundary(Clock::time_point t, Clock::duration interval) {
  if (interval <= Clock::duration::zero()) return t;
  return Clock::time_point((t.time_since_epoch() / interval) * interval);
}

// fetch.wait.max.ms of a job's consumers (see RunTask): a quarter of max_batch_interval, 10-100 ms.
int64_t FetchWaitMs(const catalog::RoutineLoadDefinition& def) {
  return std::clamp<int64_t>(static_cast<int64_t>(def.DoubleProperty("max_batch_interval") * 250), 10, 100);
}

double NextBackoff(double current, double max) { return std::min(max, current <= 0 ? 1.0 : current * 2); }

// "started at the end of topic 'logs' (partition:offset 0:100, 1:250): 350 messages already in the topic are not
// loaded; ..." -- empty when every partition continues from committed progress.
std::string StartNote(const catalog::RoutineLoadDefinition& def, const std::map<int32_t, int64_t>& starts,
                      const std::map<int32_t, int64_t>& before_start) {
  if (starts.empty()) return "";
  std::string offsets;
  for (const auto& [p, o] : starts) offsets += (offsets.empty() ? "" : ", ") + std::to_string(p) + ":" + std::to_string(o);
  int64_t skipped = 0;
  for (const auto& [p, n] : before_start) skipped += n;
  std::string note = "started at partition:offset " + offsets + " of topic '" + def.topic + "'";
  if (skipped > 0) {
    note += "; " + std::to_string(skipped) + " message(s) already in the topic before those offsets are not loaded";
    if (def.pipe) note += " (a new group starts at the end with RESET_KAFKA_GROUP_OFFSETS = '" +
                         def.pipe->reset_offsets + "'; a pipe created with RESET_KAFKA_GROUP_OFFSETS = 'earliest' "
                         "loads them)";
    else note += " (kafka_default_offsets OFFSET_END; ALTER ROUTINE LOAD ... kafka_offsets to load them)";
  }
  return note;
}

std::string PartitionList(const std::vector<int32_t>& parts) {
  std::string out;
  for (int32_t p : parts) out += (out.empty() ? "" : ",") + std::to_string(p);
  return out;
}

// The statement that resumes a paused job of this kind: the advice in a pause reason must name one that works.
std::string ResumeStatement(const catalog::RoutineLoadDefinition& def) {
  return def.pipe ? "ALTER PIPE " + def.name + " SET PIPE_EXECUTION_PAUSED = false"
                  : "RESUME ROUTINE LOAD FOR " + def.name;
}

// The topic cannot be read. ALTER cannot change kafka_topic (as in StarRocks), and a pipe's topic is part of its
// COPY statement: the advice is to create the topic, or to make a new job for another topic.
std::string TopicProblemReason(const catalog::RoutineLoadDefinition& def, const Status& st) {
  if (st.code() != StatusCode::kNotFound) return st.message() + "; fix the cause, then " + ResumeStatement(def);
  if (def.pipe)
    return st.message() + "; create the topic, then " + ResumeStatement(def) + ". To read another topic, DROP PIPE " +
           def.name + " and CREATE PIPE again with it";
  return st.message() + "; create the topic, then " + ResumeStatement(def) +
         ". kafka_topic cannot be changed by ALTER: to load another topic, STOP ROUTINE LOAD FOR " + def.name +
         " and CREATE ROUTINE LOAD again with the right kafka_topic";
}

// The job names partition `missing`, which the topic (partitions `all`) does not have.
std::string MissingPartitionReason(const catalog::RoutineLoadDefinition& def, int32_t missing,
                                   const std::vector<int32_t>& all) {
  std::vector<int32_t> existing = all;
  std::sort(existing.begin(), existing.end());
  std::string reason = "partition " + std::to_string(missing) + " of topic '" + def.topic + "' does not exist (it has " +
                       std::to_string(all.size()) + " partitions: " + PartitionList(existing) + ")";
  if (def.pipe)
    return reason + "; add the partition to the topic, then " + ResumeStatement(def) + "; or DROP PIPE " + def.name +
           " and CREATE PIPE again";
  // The listed partitions the topic has; the ALTER keeps their progress.
  std::vector<int32_t> keep;
  for (int32_t p : def.partitions)
    if (std::find(all.begin(), all.end(), p) != all.end()) keep.push_back(p);
  if (keep.empty()) keep = existing;
  return reason + "; ALTER ROUTINE LOAD FOR " + def.name + " FROM KAFKA (\"kafka_partitions\" = \"" +
         PartitionList(keep) + "\") to load only partitions it has (or add the partition to the topic), then " +
         ResumeStatement(def);
}

}  // namespace

// An offset the source cannot read (OutOfRange). The reason says which side of the partition's data it is on, and
// for a routine load gives an ALTER that repairs just that partition: every partition the job loads is listed
// (ALTER replaces kafka_partitions), the others at their committed offsets, so they continue where they were.
std::string JobRegistry::FatalParseReasonLocked(const JobRuntime& job, const TaskGroup& group,
                                                const RejectedRow& fatal) {
  const auto& def = job.stored.def;
  const int32_t partition = fatal.origin.partition;
  const int64_t offset = fatal.origin.offset;
  std::vector<int32_t> listed = def.partitions.empty() ? job.current_partitions : def.partitions;
  if (std::find(listed.begin(), listed.end(), partition) == listed.end()) listed.push_back(partition);
  (void)group;
  // The ALTER lists every partition of the job (it replaces the list), the others at their committed offsets.
  std::map<int32_t, catalog::PartitionProgress> progress;
  if (auto read = store_->ReadProgress(job.stored.id); read.ok()) progress = std::move(read).value();
  std::string offs;
  for (int32_t p : listed) {
    std::string o;
    if (p == partition) o = std::to_string(offset + 1);
    else if (auto it = progress.find(p); it != progress.end() && it->second.next_offset >= 0)
      o = std::to_string(it->second.next_offset);
    else if (auto spec = def.offsets.find(p); spec != def.offsets.end()) o = spec->second.text;
    else o = def.default_offset.text;
    offs += (offs.empty() ? "" : ",") + o;
  }
  return "the message at partition " + std::to_string(partition) + " offset " + std::to_string(offset) +
         " could not be parsed: " + fatal.reason + ". pause_on_fatal_parse_error is true, so the job paused before "
         "it (the messages before it are loaded). A Kafka message cannot change: skip it with ALTER ROUTINE LOAD FOR " +
         def.name + " FROM KAFKA (\"kafka_partitions\" = \"" + PartitionList(listed) + "\", \"kafka_offsets\" = \"" +
         offs + "\"); or record such messages as error rows and go on with ALTER ROUTINE LOAD FOR " + def.name +
         " PROPERTIES (\"pause_on_fatal_parse_error\" = \"false\"); then " + ResumeStatement(def);
}

std::string JobRegistry::OutOfRangeReasonLocked(const JobRuntime& job, const TaskGroup& group, const Status& st) {
  const auto& def = job.stored.def;
  source::OutOfRangeDetail detail = source::DescribeOutOfRange(st);
  std::string what;
  switch (detail.side) {
    case source::OutOfRangeSide::kBelowEarliest:
      what = ". The data was deleted by retention";
      break;
    case source::OutOfRangeSide::kBeyondEnd:
      what = ". The offset is past the last message: kafka_offsets named an offset not written yet, or the topic "
             "was deleted and created again";
      break;
    case source::OutOfRangeSide::kUnknown:
      what = ". Whether the data was deleted by retention or the offset is past the end could not be told";
      break;
  }
  if (def.pipe)
    return st.message() + what + ". A pipe's offsets cannot be altered: DROP PIPE " + def.name +
           " and CREATE PIPE again: RESET_KAFKA_GROUP_OFFSETS = 'earliest' starts at the earliest available offset, "
           "'latest' at new messages, 'valid' continues from the group's progress and jumps over deleted offsets";
  std::vector<int32_t> reset = detail.partition ? std::vector<int32_t>{*detail.partition} : group.partitions;
  std::vector<int32_t> listed = def.partitions.empty() ? job.current_partitions : def.partitions;
  for (int32_t p : reset)
    if (std::find(listed.begin(), listed.end(), p) == listed.end()) listed.push_back(p);
  std::map<int32_t, catalog::PartitionProgress> progress;
  if (auto read = store_->ReadProgress(job.stored.id); read.ok()) progress = std::move(read).value();
  auto alter = [&](const char* to) {
    std::string offs;
    for (int32_t p : listed) {
      std::string o;
      if (std::find(reset.begin(), reset.end(), p) != reset.end()) o = to;
      else if (auto it = progress.find(p); it != progress.end() && it->second.next_offset >= 0)
        o = std::to_string(it->second.next_offset);
      else if (auto spec = def.offsets.find(p); spec != def.offsets.end()) o = spec->second.text;
      else o = def.default_offset.text;
      offs += (offs.empty() ? "" : ",") + o;
    }
    return "ALTER ROUTINE LOAD FOR " + def.name + " FROM KAFKA (\"kafka_partitions\" = \"" + PartitionList(listed) +
           "\", \"kafka_offsets\" = \"" + offs + "\");";
  };
  std::string reason = st.message() + what;
  if (detail.side == source::OutOfRangeSide::kBelowEarliest)
    reason += ". To continue from the earliest available offset: " + alter("OFFSET_BEGINNING");
  else
    reason += ". To load from the earliest available offset: " + alter("OFFSET_BEGINNING") +
              " or to load only messages written from now on: " + alter("OFFSET_END");
  reason += " then " + ResumeStatement(def);
  if (def.partitions.empty()) reason += " (the job then loads exactly the listed partitions)";
  return reason;
}

void JobRegistry::SchedulerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    GateOnStorageLocked();
    auto now = Clock::now();
    auto wake = now + milliseconds(200);
    // Tasks of pipes running per virtual cluster, which bounds them.
    std::map<std::string, int> vcluster_running;
    for (auto& [id, job] : jobs_) {
      if (!job->stored.def.pipe) continue;
      for (auto& g : job->groups) vcluster_running[job->stored.def.pipe->virtual_cluster] += g->running;
    }
    for (auto& [id, job] : jobs_) {
      JobState state = job->stored.state;
      bool any_running = std::any_of(job->groups.begin(), job->groups.end(), [](auto& g) { return g->running; });
      const bool volume_pipe = job->stored.def.pipe && job->stored.def.pipe->volume;
      if (state == JobState::kNeedSchedule && !job->scheduling && !any_running) {
        if (now >= job->next_schedule_attempt) {
          job->scheduling = true;
          if (volume_pipe) pool_->Submit([this, job](storage::Connection&) { ScheduleVolumePipe(job); });
          else pool_->Submit([this, job](storage::Connection& con) { ScheduleJob(job, con); });
        } else {
          wake = std::min(wake, job->next_schedule_attempt);
        }
        continue;
      }
      if (state != JobState::kRunning) continue;
      if (!volume_pipe && (job->stored.def.partitions.empty() || !job->unstarted_partitions.empty()) &&
          !job->scheduling && now >= job->next_partition_check) {
        // On the interval's boundaries, so that every job of a cluster checks against one metadata answer.
        job->next_partition_check = IntervalBoundary(now, kPartitionCheckInterval) + kPartitionCheckInterval;
        job->scheduling = true;
        int64_t version = job->version;
        pool_->Submit([this, job, version](storage::Connection&) { CheckPartitions(job, version); });
      }
      // Looked up only for running tasks: the loop runs after every task, over every job, and most are idle.
      std::optional<Clock::duration> timeout;
      for (auto& group : job->groups) {
        if (group->running && !timeout)
          timeout = Seconds(static_cast<double>(job->stored.def.IntProperty("task_timeout_second")));
        if (group->running && now - group->task_started > *timeout) {
          // Give the task up: a fresh group takes over its partitions; the old task can no longer commit
          // (still_current fails, and the fenced progress update would too).
          log::Warn("scheduler", "{} {}: task {} passed task_timeout_second; starting a new one",
                    JobKind(job->stored.def), job->stored.def.name, group->task_id);
          auto fresh = std::make_shared<TaskGroup>();
          fresh->partitions = group->partitions;
          fresh->next_run = now;
          fresh->message = "the previous task timed out";
          group = fresh;
          running_tasks_--;
        }
        if (group->running) continue;
        if (now < group->next_run) {
          wake = std::min(wake, group->next_run);
          continue;
        }
        if (running_tasks_ >= pool_->size()) continue;
        if (job->stored.def.pipe) {
          const std::string& cluster = job->stored.def.pipe->virtual_cluster;
          if (!VclusterHasRoomLocked(cluster, vcluster_running)) continue;
          vcluster_running[cluster]++;
        }
        group->running = true;
        job->tasks_in_flight++;
        group->task_started = now;
        group->task_id = next_task_id_++;
        group->last_scheduled_ms = WallClockMs();
        if (group->create_time_ms == 0) group->create_time_ms = group->last_scheduled_ms;
        running_tasks_++;
        int64_t version = job->version;
        pool_->Submit([this, job, group, version, volume_pipe](storage::Connection& con) {
          if (volume_pipe) RunVolumeTask(job, group, version, con);
          else RunTask(job, group, version, con);
        });
      }
    }
    cv_.wait_until(lock, wake);
  }
}

Result<std::map<int32_t, int64_t>> JobRegistry::ResolveStartOffsets(
    const catalog::RoutineLoadDefinition& def, const std::vector<int32_t>& partitions,
    const std::map<int32_t, catalog::PartitionProgress>& progress, storage::Connection& con,
    std::map<int32_t, int64_t>* before_start) {
  std::map<int32_t, int64_t> out;
  const source::KafkaClientConfig config = SourceConfig(def);
  auto watermark = [&](int32_t p, bool high) -> Result<int64_t> {
    auto w = high ? kafka_metadata_.HighWatermarks(config, {p}, kKafkaTimeout)
                  : kafka_metadata_.LowWatermarks(config, {p}, kKafkaTimeout);
    if (!w.ok()) return w.status();
    return w->at(p);
  };
  std::unique_ptr<source::KafkaSource> source;  // only to search offsets by time
  for (int32_t p : partitions) {
    auto known = progress.find(p);
    if (known != progress.end() && known->second.next_offset >= 0) continue;
    auto explicit_spec = def.offsets.find(p);
    const catalog::OffsetSpec& spec = explicit_spec != def.offsets.end() ? explicit_spec->second : def.default_offset;
    switch (spec.kind) {
      case catalog::OffsetSpec::Kind::kOffset:
        out[p] = spec.value;
        break;
      case catalog::OffsetSpec::Kind::kBeginning: {
        ASSIGN_OR_RETURN(out[p], watermark(p, false));
        break;
      }
      case catalog::OffsetSpec::Kind::kEnd: {
        ASSIGN_OR_RETURN(int64_t low, watermark(p, false));
        ASSIGN_OR_RETURN(int64_t high, watermark(p, true));
        out[p] = high;
        (*before_start)[p] = std::max<int64_t>(0, high - low);
        break;
      }
      case catalog::OffsetSpec::Kind::kTime: {
        // The datetime is wall time in the job's timezone; DuckDB's ICU turns it into an instant.
        ASSIGN_OR_RETURN(auto r, con.Query("SELECT epoch_ms(timezone(" + sql::QuoteLiteral(def.Property("timezone")) +
                                           ", CAST(" + sql::QuoteLiteral(spec.text) + " AS TIMESTAMP)))"));
        if (!r.result_set || r.result_set->rows.empty() || !r.result_set->rows[0][0])
          return Status::InvalidArgument("cannot read \"" + spec.text + "\" as a time in " + def.Property("timezone"));
        if (!source) {
          ASSIGN_OR_RETURN(source, source::KafkaSource::Create(config));
        }
        ASSIGN_OR_RETURN(out[p], source->OffsetForTimestamp(p, std::stoll(*r.result_set->rows[0][0]), kKafkaTimeout));
        break;
      }
    }
  }
  return out;
}

Result<std::map<int32_t, int64_t>> JobRegistry::ResolveReachableStartOffsets(
    const catalog::RoutineLoadDefinition& def, const std::vector<int32_t>& partitions,
    const std::map<int32_t, catalog::PartitionProgress>& progress, storage::Connection& con,
    std::map<int32_t, int64_t>* before_start, std::map<int32_t, Status>* unreachable) {
  // Each partition on its own, all at once, so that several unreachable leaders cost one timeout, not one each.
  // A starting time needs the session connection, which is not shared: those partitions are asked in turn.
  struct Answer {
    Result<std::map<int32_t, int64_t>> starts = std::map<int32_t, int64_t>{};
    std::map<int32_t, int64_t> before;
  };
  constexpr size_t kAskedAtOnce = 32;  // a topic of many partitions on a dead broker: a bounded number of threads
  std::map<int32_t, std::future<Answer>> asked;
  std::map<int32_t, Answer> answered;
  for (int32_t p : partitions) {
    auto known = progress.find(p);
    if (known != progress.end() && known->second.next_offset >= 0) continue;
    auto spec = def.offsets.count(p) ? def.offsets.at(p) : def.default_offset;
    if (spec.kind == catalog::OffsetSpec::Kind::kTime) {
      Answer a;
      a.starts = ResolveStartOffsets(def, {p}, progress, con, &a.before);
      answered.emplace(p, std::move(a));
      continue;
    }
    if (asked.size() == kAskedAtOnce) {
      for (auto& [q, f] : asked) answered.emplace(q, f.get());
      asked.clear();
    }
    asked.emplace(p, std::async(std::launch::async, [this, &def, &progress, &con, p] {
      Answer a;
      a.starts = ResolveStartOffsets(def, {p}, progress, con, &a.before);
      return a;
    }));
  }
  for (auto& [p, f] : asked) answered.emplace(p, f.get());
  std::map<int32_t, int64_t> out;
  for (auto& [p, a] : answered) {
    if (!a.starts.ok() && a.starts.status().retriable()) {
      unreachable->emplace(p, a.starts.status());
      continue;
    }
    if (!a.starts.ok()) return a.starts.status();
    out.insert(a.starts->begin(), a.starts->end());
    before_start->insert(a.before.begin(), a.before.end());
  }
  return out;
}

void JobRegistry::ScheduleJob(std::shared_ptr<JobRuntime> job, storage::Connection& con) {
  catalog::RoutineLoadDefinition def;
  int64_t version, id;
  std::optional<catalog::TableMeta> described;  // as CREATE described it, for a job's first scheduling
  {
    std::lock_guard<std::mutex> lock(mu_);
    def = job->stored.def;
    version = job->version;
    id = job->stored.id;
    described = std::move(job->table_at_create);
    job->table_at_create.reset();
  }
  // Every outcome below ends the scheduling attempt under the lock, unless the job changed meanwhile.
  auto finish = [&](const std::function<void(JobRuntime&)>& apply) {
    std::lock_guard<std::mutex> lock(mu_);
    job->scheduling = false;
    if (job->version == version && job->stored.state == JobState::kNeedSchedule) apply(*job);
    cv_.notify_all();
  };
  auto retry_later = [&](const Status& st) {
    finish([&](JobRuntime& j) {
      j.schedule_backoff_seconds = NextBackoff(j.schedule_backoff_seconds, options_.max_retry_backoff_seconds);
      j.next_schedule_attempt = Clock::now() + Seconds(j.schedule_backoff_seconds);
      j.other_msg = st.message() + "; retrying in " + std::to_string(static_cast<int>(j.schedule_backoff_seconds)) + " s";
      log::Warn("scheduler", "{} {}: {}", JobKind(def), def.name, j.other_msg);
    });
  };

  auto plan = Plan(id, def, described && !def.iceberg_target() ? &*described : nullptr);
  if (!plan.ok() && job->cluster && plan.status().code() != StatusCode::kUnknownTable) {
    // A cluster job this node cannot plan (its catalog is not defined here, or cannot be reached): the other
    // nodes may well run it, so this node keeps trying instead of pausing the job for the whole cluster.
    return retry_later(Status::Unavailable("this node cannot open the job's table: " + plan.status().message() +
                                           (plan.status().code() == StatusCode::kNotFound
                                                ? " (every node of the cluster needs the external catalog: CREATE "
                                                  "EXTERNAL CATALOG on this node too)"
                                                : "")));
  }
  if (!plan.ok()) {
    if (plan.status().code() == StatusCode::kUnknownTable) {
      finish([&](JobRuntime& j) { SetStateLocked(j, JobState::kCancelled, plan.status().message() + ": the target table was dropped"); });
    } else {
      finish([&](JobRuntime& j) {
        SetStateLocked(j, JobState::kPaused,
                       "cannot plan the load: " + plan.status().message() + "; fix the table" +
                           (def.pipe ? " (or DROP PIPE " + def.name + " and CREATE PIPE again)"
                                     : " (or the job's COLUMNS / WHERE with ALTER ROUTINE LOAD FOR " + def.name + ")") +
                           ", then " + ResumeStatement(def));
      });
    }
    return;
  }
  // The shared metadata client answers the partitions and the starting watermarks: a client of its own per job
  // would start librdkafka's threads and a broker connection for each of them (1,000 jobs start at once after a
  // restart). Settings librdkafka refuses pause the job with its message, as the job's own consumer would.
  // Jobs scheduled together (after a restart, or created in a row) share a metadata answer of the last second.
  auto all = kafka_metadata_.Partitions(SourceConfig(def), kKafkaTimeout, Clock::now() - std::chrono::seconds(1));
  if (!all.ok() && all.status().code() == StatusCode::kInvalidArgument) {
    finish([&](JobRuntime& j) { SetStateLocked(j, JobState::kPaused, all.status().message()); });
    return;
  }
  if (!all.ok()) {
    if (all.status().retriable()) return retry_later(all.status());
    finish([&](JobRuntime& j) { SetStateLocked(j, JobState::kPaused, TopicProblemReason(def, all.status())); });
    return;
  }
  std::vector<int32_t> partitions = def.partitions.empty() ? *all : def.partitions;
  for (int32_t p : partitions) {
    if (std::find(all->begin(), all->end(), p) == all->end()) {
      finish([&](JobRuntime& j) { SetStateLocked(j, JobState::kPaused, MissingPartitionReason(def, p, *all)); });
      return;
    }
  }
  auto progress = store_->ReadProgress(id);
  if (!progress.ok()) return retry_later(progress.status());
  // A sink that holds the offsets itself (an Iceberg table) is their truth: after a restart, or a crash between
  // its commit and the progress rows' update, the job continues from there.
  if (auto in_sink = (*plan)->sink->CommittedOffsets(id); !in_sink.ok()) {
    return retry_later(in_sink.status());
  } else if (*in_sink) {
    std::map<int32_t, int64_t> moved;
    for (const auto& [p, o] : **in_sink) {
      auto& known = (*progress)[p];
      if (known.next_offset != o) moved[p] = known.next_offset = o;
    }
    if (!moved.empty()) {
      if (Status st = store_->SyncProgress(id, moved); !st.ok()) return retry_later(st);
      log::Info("scheduler", "{} {}: continuing from the offsets in {} (partition:offset {})", JobKind(def), def.name,
                (*plan)->sink->Describe(), [&] {
                  std::string t;
                  for (const auto& [p, o] : moved) t += (t.empty() ? "" : ", ") + std::to_string(p) + ":" + std::to_string(o);
                  return t;
                }());
    }
  }
  std::map<int32_t, int64_t> before_start;
  // One partition whose leader cannot be reached must not hold back the others: on a single server the job starts
  // with the partitions that answered and the partition check retries the rest. A cluster node keeps the whole
  // topic's partitions, since the leases are split over them.
  std::map<int32_t, Status> unreachable;
  auto starts = ResolveStartOffsets(def, partitions, *progress, con, &before_start);
  if (!starts.ok() && starts.status().retriable() && !job->cluster && partitions.size() > 1) {
    before_start.clear();
    starts = ResolveReachableStartOffsets(def, partitions, *progress, con, &before_start, &unreachable);
    if (starts.ok() && unreachable.size() == partitions.size()) return retry_later(unreachable.begin()->second);
  }
  std::vector<int32_t> unstarted;
  for (const auto& [p, st] : unreachable) {
    unstarted.push_back(p);
    partitions.erase(std::remove(partitions.begin(), partitions.end(), p), partitions.end());
  }
  if (!starts.ok()) {
    if (starts.status().retriable()) return retry_later(starts.status());
    finish([&](JobRuntime& j) {
      SetStateLocked(j, JobState::kPaused, "cannot resolve starting offsets: " + starts.status().message() +
                                               "; fix the cause, then " + ResumeStatement(def));
    });
    return;
  }
  if (Status st = store_->InitProgress(id, *starts); !st.ok()) return retry_later(st);

  finish([&](JobRuntime& j) {
    // A pipe has no concurrency setting: its virtual cluster is the worker pool that runs it (reference/pipe.md),
    // so it reads with as many tasks as that cluster runs at once (the default one: the whole pool).
    const int64_t wanted = j.stored.def.pipe ? VclusterSizeLocked(j.stored.def.pipe->virtual_cluster)
                                             : j.stored.def.IntProperty("desired_concurrent_number");
    // A cluster job runs only the partitions this node holds leases on; desired_concurrent_number counts for the
    // whole cluster, so each node takes its share of it (rounded up).
    std::vector<int32_t> runs = partitions;
    int64_t share = wanted;
    if (j.cluster) {
      runs.clear();
      for (int32_t p : partitions)
        if (j.leases.count(p)) runs.push_back(p);
      share = partitions.empty() ? 0
                                 : (wanted * static_cast<int64_t>(runs.size()) + static_cast<int64_t>(partitions.size()) - 1) /
                                       static_cast<int64_t>(partitions.size());
    }
    int concurrency = static_cast<int>(std::min<int64_t>(
        {static_cast<int64_t>(runs.size()), share,
         static_cast<int64_t>(pool_->size()), static_cast<int64_t>(options_.max_task_concurrent_per_job)}));
    concurrency = std::max(concurrency, runs.empty() ? 0 : 1);
    j.groups.clear();
    // A new pipe waits INITIAL_DELAY_IN_SECONDS after its creation before its first batch.
    auto first_run = Clock::now();
    if (j.stored.def.pipe) {
      int64_t wait_ms = j.stored.create_time_ms + j.stored.def.pipe->initial_delay_seconds * 1000 - WallClockMs();
      if (wait_ms > 0) first_run += milliseconds(wait_ms);
    }
    for (int i = 0; i < concurrency; i++) {
      auto g = std::make_shared<TaskGroup>();
      g->next_run = first_run;
      j.groups.push_back(g);
    }
    for (size_t i = 0; i < runs.size(); i++) j.groups[i % concurrency]->partitions.push_back(runs[i]);
    j.plan = *plan;
    j.start_note = StartNote(def, *starts, before_start);
    if (!j.start_note.empty() && !before_start.empty())
      log::Info("scheduler", "{} {}.{}: {}", JobKind(def), def.db, def.name, j.start_note);
    j.current_partitions = partitions;
    j.unstarted_partitions = unstarted;
    j.unstarted_note.clear();
    j.other_msg.clear();
    j.schedule_backoff_seconds = 0;
    j.next_partition_check = IntervalBoundary(Clock::now(), kPartitionCheckInterval) + kPartitionCheckInterval;
    if (!unstarted.empty()) {
      j.unstarted_note = "partition(s) " + PartitionList(unstarted) + " not started: " + unreachable.begin()->second.message() +
                    "; the other partitions load, and these are tried again in " +
                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kUnstartedRetryInterval).count()) + " s";
      j.next_partition_check = Clock::now() + kUnstartedRetryInterval;
      log::Warn("scheduler", "{} {}.{}: {}", JobKind(def), def.db, def.name, j.unstarted_note);
    }
    j.stored.state = JobState::kRunning;
    j.stored.reason.clear();
    PersistLocked(j);
    log::Info("scheduler", "{} {}.{} running: partitions {} in {} task group(s)", JobKind(def), def.db, def.name,
              PartitionList(runs), concurrency);
  });
}

void JobRegistry::CheckPartitions(std::shared_ptr<JobRuntime> job, int64_t version) {
  catalog::RoutineLoadDefinition def;
  std::vector<int32_t> current, unstarted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    def = job->stored.def;
    current = job->current_partitions;
    unstarted = job->unstarted_partitions;
  }
  // Every job's check runs on the same boundary: the first one asks the brokers, the others reuse its answer.
  const auto boundary = IntervalBoundary(Clock::now(), kPartitionCheckInterval);
  std::vector<int32_t> now_seen;
  if (auto all = kafka_metadata_.Partitions(SourceConfig(def), kKafkaTimeout, boundary); all.ok()) now_seen = *all;
  // The high watermarks too, so lag (OffsetLag, /metrics) moves while the job's tasks cannot tell it: a job whose
  // tasks keep failing and retrying still shows how far behind it falls.
  std::map<int32_t, int64_t> highs;
  if (!current.empty())
    if (auto h = kafka_metadata_.HighWatermarks(SourceConfig(def), current, kIdleCheckTimeout, boundary); h.ok())
      highs = *h;
  bool unstarted_highs_failed = false;
  if (!unstarted.empty())
    unstarted_highs_failed = !kafka_metadata_.HighWatermarks(SourceConfig(def), unstarted, kIdleCheckTimeout).ok();
  std::lock_guard<std::mutex> lock(mu_);
  job->scheduling = false;
  if (job->version != version || job->stored.state != JobState::kRunning) return;
  for (const auto& [p, h] : highs) {
    int64_t& latest = job->latest_offsets[p];
    latest = std::max(latest, h);
  }
  bool grew = def.partitions.empty() && std::any_of(now_seen.begin(), now_seen.end(), [&](int32_t p) {
    return std::find(current.begin(), current.end(), p) == current.end() &&
           std::find(job->unstarted_partitions.begin(), job->unstarted_partitions.end(), p) ==
               job->unstarted_partitions.end();
  });
  // A partition left out at the start is tried again when its offsets can be read now.
  bool answers = false;
  if (!job->unstarted_partitions.empty()) {
    job->next_partition_check = Clock::now() + kUnstartedRetryInterval;
    answers = !unstarted_highs_failed;
  }
  if (grew || answers) {
    log::Info("scheduler", "{} {}: topic '{}' has {}; rescheduling", JobKind(def), def.name, def.topic,
              grew ? "new partitions" : "partitions that could not be started before and answer now");
    job->stored.state = JobState::kNeedSchedule;  // tasks finish their batch; then the job is regrouped
    job->next_schedule_attempt = Clock::now();
    job->version++;
  }
}

bool JobRegistry::EndTaskLocked(JobRuntime& job, const std::shared_ptr<TaskGroup>& group) {
  group->running = false;
  job.tasks_in_flight--;
  cv_.notify_all();
  bool replaced = std::find(job.groups.begin(), job.groups.end(), group) == job.groups.end();
  if (!replaced) running_tasks_--;
  return replaced;
}

void JobRegistry::RunTask(std::shared_ptr<JobRuntime> job, std::shared_ptr<TaskGroup> group, int64_t version,
                          storage::Connection& con) {
  std::shared_ptr<const load::TaskPlan> plan;
  catalog::RoutineLoadDefinition def;
  int64_t task_id;
  Clock::time_point asked_at;
  {
    std::lock_guard<std::mutex> lock(mu_);
    plan = job->plan;
    def = job->stored.def;
    task_id = group->task_id;
    group->execute_start_ms = WallClockMs();
    asked_at = group->asked_at;
  }
  // Rejected rows the job keeps: log_rejected_record_num, where 0 means the 100 newest and -1 all.
  int64_t keep = def.IntProperty("log_rejected_record_num");
  if (keep == 0) keep = 100;
  auto still_current = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return !stopping_ && job->version == version && job->stored.state == JobState::kRunning &&
           std::find(job->groups.begin(), job->groups.end(), group) != job->groups.end();
  };

  Result<load::TaskResult> outcome = Status::Internal("the task did not run");
  const auto run_started = Clock::now();
  // An idle group without a consumer: when no partition's high watermark moved past the committed offsets, the
  // task ends here with no data, having asked the shared metadata client only. Otherwise (or when the question
  // fails) the consumer is opened again and the task runs as usual.
  std::map<int32_t, int64_t> idle_highs;
  if (!group->source && !group->idle_offsets.empty()) {
    // An answer sent at or after this interval's boundary, shared with every idle group of the topic.
    const auto since =
        std::max(IntervalBoundary(Clock::now(), Seconds(def.DoubleProperty("max_batch_interval"))), asked_at);
    auto highs = kafka_metadata_.HighWatermarks(SourceConfig(def), group->partitions, kIdleCheckTimeout, since);
    if (highs.ok() && *highs == group->idle_offsets) {
      idle_highs = std::move(highs).value();
    } else {
      if (!highs.ok())
        log::Debug("scheduler", "{} {}: checking for new data: {}", JobKind(def), def.name, highs.status().message());
      group->idle_offsets.clear();
    }
  }
  if (!idle_highs.empty()) {
    load::TaskResult r;
    r.caught_up = true;
    r.next_offsets = group->idle_offsets;
    r.started_ms = WallClockMs();
    outcome = std::move(r);
  } else if (auto progress = store_->ReadProgress(job->stored.id); !progress.ok()) {
    outcome = progress.status();
  } else {
    std::map<int32_t, int64_t> start;
    for (int32_t p : group->partitions) start[p] = (*progress)[p].next_offset;
    // A sink that holds the offsets itself (an Iceberg table): the task starts from the table's, and the progress
    // rows follow them (they lag after a crash between the table's commit and theirs).
    auto in_sink = plan->sink->CommittedOffsets(job->stored.id);
    bool start_known = in_sink.ok();  // no task runs without knowing where the table stands
    if (!in_sink.ok()) {
      outcome = in_sink.status();
    } else if (*in_sink) {
      std::map<int32_t, int64_t> moved;
      for (auto& [p, o] : start) {
        auto it = (*in_sink)->find(p);
        if (it != (*in_sink)->end() && it->second != o) moved[p] = o = it->second;
      }
      if (!moved.empty()) {
        if (Status st = store_->SyncProgress(job->stored.id, moved); !st.ok()) {
          outcome = st;
          start_known = false;
        }
        group->source_position.clear();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      group->task_offsets = start;
      for (const auto& [p, o] : start) job->activity.next_offsets[p] = o;
    }
    // A group's first task asks the shared metadata client whether its partitions hold anything past where it
    // starts (an answer sent after this task began, so nothing produced before is missed): if not, it ends with no
    // data like an idle group's task, and opens no consumer until the watermarks move. After a restart, 1,000
    // caught-up jobs then cost one ListOffsets request each, not a consumer and a fetch held fetch.wait.max.ms.
    // Offsets past the watermark are not idle: the consumer reports them (OutOfRange).
    bool nothing_to_read = false;
    if (start_known && !group->source && !group->ran_task && !start.empty()) {
      auto highs = kafka_metadata_.HighWatermarks(SourceConfig(def), group->partitions, kIdleCheckTimeout, run_started);
      if (highs.ok() && *highs == start) {
        nothing_to_read = true;
        group->idle_offsets = start;
        idle_highs = std::move(highs).value();
        load::TaskResult r;
        r.caught_up = true;
        r.next_offsets = start;
        r.started_ms = WallClockMs();
        outcome = std::move(r);
      } else if (!highs.ok()) {
        log::Debug("scheduler", "{} {}: checking for data before opening a consumer: {}", JobKind(def), def.name,
                   highs.status().message());
      }
    }
    bool opened_now = false;
    if (!start_known || nothing_to_read) {
      // outcome holds the error, or the task's empty result
    } else if (!group->source) {
      source::KafkaClientConfig config = SourceConfig(def);
      // librdkafka prefetches per partition: a task over many partitions would buffer a multiple of what it
      // takes. Spread 64 MB over the task's partitions (at least 1 MB each), so a backlog costs bounded memory.
      auto user_set = [&](std::string_view key) {
        return std::any_of(config.properties.begin(), config.properties.end(),
                           [&](const auto& kv) { return kv.first == key; });
      };
      if (!user_set("queued.max.messages.kbytes") && !group->partitions.empty())
        config.properties.emplace_back(
            "queued.max.messages.kbytes",
            std::to_string(std::max<size_t>(1024, 65536 / group->partitions.size())));
      // A fetch that finds nothing new waits up to fetch.wait.max.ms at the broker. A real broker answers it as
      // soon as data arrives, but one that answers only at the end of the wait (librdkafka's mock cluster, the
      // test broker) holds data produced meanwhile for all of it: at a quarter of max_batch_interval (10-100 ms)
      // that wait stays small beside the interval, for one more empty fetch per wait while the consumer is open.
      if (!user_set("fetch.wait.max.ms"))
        config.properties.emplace_back("fetch.wait.max.ms", std::to_string(FetchWaitMs(def)));
      auto source = source::KafkaSource::Create(config);
      if (source.ok()) {
        group->source = std::move(source).value();
        group->last_data = Clock::now();
        opened_now = true;
      } else {
        outcome = source.status();
      }
    }
    if (group->source && start_known && !nothing_to_read) {
      load::TaskLimits limits;
      // A consumer opened for this task has fetched nothing of an earlier assignment: its first fetch answers'
      // high watermarks tell when it has read everything, ~fetch.wait.max.ms before librdkafka's end event would.
      limits.end_at_fetched_high = opened_now;
      limits.consume_time = milliseconds(def.IntProperty("task_consume_second") * 1000);
      // A job that keeps up wakes every max_batch_interval; reading longer than that would only add latency. A job
      // that is behind reads up to task_consume_second (or the batch limits): fewer, larger transactions.
      if (!group->behind)
        limits.consume_time = std::min(limits.consume_time, milliseconds(std::max<int64_t>(
                                                                200, static_cast<int64_t>(def.DoubleProperty("max_batch_interval") * 1000))));
      limits.max_rows = static_cast<size_t>(def.IntProperty("max_batch_rows"));
      if (def.pipe) limits.max_rows = static_cast<size_t>(def.pipe->batch_size_per_partition) * group->partitions.size();
      limits.max_bytes = static_cast<size_t>(def.IntProperty("max_batch_size"));
      bool assigned = group->source_position == start;
      const auto task_start = Clock::now();
      load::RoutineLoadTask task(plan, task_id);
      // A cluster job's commit is fenced on the leases of the task's partitions (and records their epochs).
      if (job->cluster)
        task.set_commit_fence([this, job, parts = group->partitions] { return FenceTask(*job, parts); });
      outcome = task.Run(*group->source, con, start, assigned, limits, keep, still_current);
      if (outcome.ok() && outcome->had_data && log::Enabled(log::Level::kDebug))
        log::Debug("scheduler", "{} {}: task {} read {} messages in {} ms and ended after {} ms ({}, committed {})",
                   JobKind(def), def.name, task_id, outcome->messages, outcome->counts.execute_ms,
                   std::chrono::duration_cast<milliseconds>(Clock::now() - task_start).count(),
                   outcome->caught_up ? "caught up" : "behind", outcome->committed);
      // A fatal parse error stops the task after the consumer delivered that message, before next_offsets.
      if (outcome.ok() && !outcome->fatal_stop)
        group->source_position = outcome->committed ? outcome->next_offsets : std::map<int32_t, int64_t>{};
      else group->source_position.clear();
      group->behind = outcome.ok() && outcome->committed && !outcome->caught_up;
      if (outcome.ok() && outcome->had_data) group->last_data = Clock::now();
    }
  }

  // Best effort, outside the lock: lag tools read the group's offsets. They are never read back (progress is in
  // DuckDB), so a crash between the two commits loses nothing; the test point after_commit proves it.
  if (outcome.ok() && outcome->committed && group->source) {
    Status st = TestPoint(load::TestPointsOf(def).after_commit);
    if (st.ok()) st = group->source->CommitGroupOffsets(outcome->next_offsets, milliseconds(500));
    if (!st.ok())
      log::Debug("scheduler", "{} {}: group offset commit failed: {}", JobKind(def), def.name, st.message());
  }
  // The job keeps only its newest log_rejected_record_num rejected rows (0: the 100 newest; -1: all).
  if (outcome.ok() && outcome->committed && outcome->counts.error_rows > 0) {
    if (Status st = store_->TrimRejectedRows(job->stored.id, keep); !st.ok())
      log::Warn("scheduler", "{} {}: could not trim its rejected rows: {}", JobKind(def), def.name, st.message());
  }
  // A job with no new data never touches its table, so it checks that the table is still there.
  bool table_dropped = outcome.ok() && !outcome->had_data && plan && plan->sink->duckdb_table() &&
                       !con.TableExists(def.db, def.table);
  // High watermarks for LatestSourcePosition / OffsetLag, from what the fetches already told the client: asking
  // the leaders here would queue behind the next fetch's long poll and stall every task that is behind.
  // Never below what the task reached: a task that closed its consumer on catching up has no cached watermark, and
  // the idle answer it started from may predate the messages it loaded.
  std::map<int32_t, int64_t> latest = idle_highs;
  if (outcome.ok()) {
    for (const auto& [p, next] : outcome->next_offsets) {
      if (outcome->caught_up) latest[p] = next;
      else if (auto high = group->source ? group->source->CachedHighWatermark(p) : std::nullopt)
        latest[p] = std::max(*high, next);
      else latest[p] = std::max(latest.count(p) ? latest[p] : next, next);
    }
  }
  // Caught up with nothing new for a while: close the consumer; from now on the group checks for new data
  // through the shared client, against the offsets this task reached (where it started, unless it skipped
  // transaction markers).
  if (outcome.ok() && group->source && !outcome->had_data && outcome->caught_up &&
      Clock::now() - group->last_data >= kCloseIdleConsumerAfter) {
    group->idle_offsets = outcome->next_offsets;
    group->source.reset();
    group->source_position.clear();
    log::Debug("scheduler", "{} {}: no new data for {} s; closed the consumer of partitions {}", JobKind(def),
               def.name, std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - group->last_data).count(),
               PartitionList(group->partitions));
  } else if (outcome.ok() && group->source && !group->ran_task && outcome->caught_up &&
             (!outcome->had_data || (outcome->committed && !outcome->fatal_stop))) {
    // The group's first task read what was there when the job started and caught up: whether more will come is
    // unknown, and jobs started together (a restart, a script creating hundreds) would each keep a consumer's
    // threads open for kCloseIdleConsumerAfter. The group continues as an idle one from the committed offsets; when
    // data arrives, the consumer it opens again stays open as long as data keeps coming.
    group->idle_offsets = outcome->next_offsets;
    group->source.reset();
    group->source_position.clear();
    log::Debug("scheduler", "{} {}: first task caught up; closed the consumer of partitions {} until new data",
               JobKind(def), def.name, PartitionList(group->partitions));
  }
  if (outcome.ok()) group->ran_task = true;

  std::lock_guard<std::mutex> lock(mu_);
  bool replaced = EndTaskLocked(*job, group);
  if (!outcome.ok()) group->last_txn_status = "ABORTED";
  else if (outcome->committed) group->last_txn_status = "COMMITTED";
  else if (!outcome->had_data) group->last_txn_status = "NO_DATA";
  else group->last_txn_status = "ABORTED";
  RecordTaskLocked(*job, outcome, std::chrono::duration<double>(Clock::now() - run_started).count());
  // On a cluster a refused commit may mean a lost partition: worth a line, also for a task no longer current.
  if (job->cluster && !outcome.ok() && outcome.status().code() == StatusCode::kConflict)
    log::Info("scheduler", "{} {}: task {} not committed: {}", JobKind(def), def.name, task_id,
              outcome.status().message());
  if (replaced || job->version != version || job->stored.state != JobState::kRunning) return;
  for (const auto& [p, h] : latest) job->latest_offsets[p] = h;

  auto now = Clock::now();
  if (!outcome.ok()) {
    const Status& st = outcome.status();
    if (StorageFailureLocked(*job, st)) return;
    if (st.retriable()) {
      group->backoff_seconds = NextBackoff(group->backoff_seconds, options_.max_retry_backoff_seconds);
      group->next_run = now + Seconds(group->backoff_seconds);
      group->message = st.message() + "; retrying in " + std::to_string(static_cast<int>(group->backoff_seconds)) + " s";
      job->other_msg = group->message;
      log::Warn("scheduler", "{} {}: {}", JobKind(def), def.name, group->message);
    } else if (st.code() == StatusCode::kOutOfRange) {
      SetStateLocked(*job, JobState::kPaused, OutOfRangeReasonLocked(*job, *group, st));
    } else if (st.code() == StatusCode::kUnknownTable || st.code() == StatusCode::kUnknownDatabase) {
      SetStateLocked(*job, JobState::kCancelled, "the target table " + def.db + "." + def.table + " was dropped");
    } else if (st.code() == StatusCode::kConflict) {
      group->next_run = now;  // another commit won; read again from the committed offsets
      group->message = st.message();
    } else {
      SetStateLocked(*job, JobState::kPaused,
                     "task failed: " + st.message() + "; fix the cause, then " + ResumeStatement(def));
    }
    return;
  }

  const load::TaskResult& r = *outcome;
  group->backoff_seconds = 0;
  if (job->other_msg.find("retrying") != std::string::npos) job->other_msg.clear();
  for (const auto& [p, ts] : r.last_timestamp_ms) job->last_timestamp_ms[p] = ts;
  double interval = def.DoubleProperty("max_batch_interval");
  if (table_dropped) {
    SetStateLocked(*job, JobState::kCancelled, "the target table " + def.db + "." + def.table + " was dropped");
    return;
  }
  if (!r.had_data && !r.caught_up) {
    // Nothing arrived before the deadline, yet some partition has not reported its end: the consumer is still
    // connecting or its first fetch is queued behind other groups' at the broker. That is no idle partition, and
    // waiting max_batch_interval here left a whole group's share of a backlog for later; the next consume waits
    // for data itself (and a broker that is down surfaces as an error there, with its back-off).
    group->next_run = now;
    return;
  }
  if (!r.had_data) {
    // An idle group (no consumer) checks on the next boundary of its interval, with the other idle groups.
    group->next_run = group->source ? std::max(now, group->task_started + Seconds(interval))
                                    : IntervalBoundary(now, Seconds(interval)) + Seconds(interval);
    group->message = "there is no new data in kafka, wait for " + def.Property("max_batch_interval") +
                     " seconds to schedule again";
    return;
  }
  if (!r.abort_reason.empty() && def.pipe) {
    PipeBatchFailedLocked(*job, *group, r.abort_reason, "were not committed", "Fix the data or raise max errors",
                          "the batch was not committed, retrying in", interval, now);
    return;
  }
  if (!r.abort_reason.empty()) {
    job->aborted_tasks++;
    SetStateLocked(*job, JobState::kPaused, r.abort_reason + "; the task was not committed. See ErrorLogUrls, fix the "
                   "data or raise it (ALTER ROUTINE LOAD FOR " + def.name + " PROPERTIES (\"max_filter_ratio\" = \"...\")), then " +
                   ResumeStatement(def));
    return;
  }
  if (!r.committed) {
    group->next_run = now;
    return;
  }
  group->message = "committed " + std::to_string(r.counts.loaded_rows) + " rows";
  job->failed_batches = 0;
  if (r.fatal_stop) {
    SetStateLocked(*job, JobState::kPaused, FatalParseReasonLocked(*job, *group, *r.fatal_stop));
    return;
  }
  if (r.last_fatal) {
    job->other_msg = "skipped " + std::to_string(r.fatal_rows) + " message" + (r.fatal_rows == 1 ? "" : "s") +
                     " that could not be parsed, the last at partition " + std::to_string(r.last_fatal->origin.partition) +
                     " offset " + std::to_string(r.last_fatal->origin.offset) + ": " + r.last_fatal->reason +
                     " (in ErrorLogUrls; pause_on_fatal_parse_error = true pauses the job instead)";
  }
  // A group that caught up starts its next task max_batch_interval after this one started (at once when the task
  // took longer): a caught-up group runs one batch per interval, and a message waits at most about an interval
  // plus a commit. Counted from the task's end, the consume and commit time came on top of every interval.
  group->next_run = r.caught_up ? std::max(now, group->task_started + Seconds(interval)) : now;
  // Commit pacing for Iceberg targets: a group that caught up commits again no sooner than
  // iceberg.commit_interval_seconds after this commit, so a trickle does not make a snapshot per batch (the
  // messages wait in Kafka meanwhile). A task that stopped at a batch limit made a large file: the next runs at once.
  if (def.iceberg_target() && r.caught_up)
    group->next_run = std::max(group->next_run, now + Seconds(def.DoubleProperty("iceberg.commit_interval_seconds")));

  // The error window (reference "A task"): 10 x max_batch_rows rows.
  job->window_rows += r.total_rows;
  job->window_errors += r.counts.error_rows - r.fatal_rows;  // fatal parse errors are skipped, not weighed
  int64_t max_errors = def.IntProperty("max_error_number");
  int64_t window = 10 * def.IntProperty("max_batch_rows");
  if (job->window_errors > max_errors) {
    std::string reason = std::to_string(job->window_errors) + " error rows in the last " +
                         std::to_string(job->window_rows) + " rows exceed max_error_number " + std::to_string(max_errors) +
                         ". Read them in ErrorLogUrls or __sluice.routine_load_rejected_rows, fix the data or raise "
                         "it (ALTER ROUTINE LOAD FOR " + def.name + " PROPERTIES (\"max_error_number\" = \"...\")), then " +
                         ResumeStatement(def);
    job->window_rows = job->window_errors = 0;
    SetStateLocked(*job, JobState::kPaused, reason);
    return;
  }
  if (job->window_rows >= window) job->window_rows = job->window_errors = 0;
}

}  // namespace sluice::scheduler
