#include "lakehouse/lake_care_policy.h"

#include <chrono>

#include "common/clock.h"
#include "common/log.h"
#include "iceberg/time_travel.h"

namespace sluice::lakehouse {

namespace {

constexpr const char* kPrefix = "sluice.care.";
constexpr const char* kInterval = "sluice.care.interval_seconds";
constexpr const char* kRewriteMinInput = "sluice.care.rewrite_data_files.min_input_files";
constexpr const char* kExpireOlderThan = "sluice.care.expire_snapshots.older_than_seconds";
constexpr const char* kExpireRetainLast = "sluice.care.expire_snapshots.retain_last";
constexpr const char* kOrphanOlderThan = "sluice.care.remove_orphan_files.older_than_seconds";

// A whole number >= `min`, or a problem line.
std::optional<int64_t> Positive(const std::map<std::string, std::string>& props, const char* key, int64_t min,
                                std::vector<std::string>* problems) {
  auto it = props.find(key);
  if (it == props.end()) return std::nullopt;
  try {
    size_t used = 0;
    const long long v = std::stoll(it->second, &used);
    if (used == it->second.size() && v >= min) return static_cast<int64_t>(v);
  } catch (const std::exception&) {
  }
  problems->push_back(std::string(key) + " = '" + it->second + "' is not a whole number of at least " +
                      std::to_string(min));
  return std::nullopt;
}

LakeCareArgument Named(std::string name, std::string value, bool is_string) {
  return LakeCareArgument{std::move(name), std::move(value), is_string};
}

}  // namespace

std::optional<LakeCarePolicy> CarePolicyOf(const std::map<std::string, std::string>& props,
                                           std::vector<std::string>* problems) {
  bool any = false;
  for (const auto& [k, v] : props) {
    if (k.rfind(kPrefix, 0) != 0) continue;
    if (k != kInterval && k != kRewriteMinInput && k != kExpireOlderThan && k != kExpireRetainLast &&
        k != kOrphanOlderThan) {
      problems->push_back("unknown table property " + k + " (docs/iceberg.md lists the sluice.care.* properties)");
      continue;
    }
    any = any || (k != kInterval && k != kExpireRetainLast);
  }
  if (!any) return std::nullopt;
  LakeCarePolicy p;
  p.interval_seconds = Positive(props, kInterval, 1, problems).value_or(3600);
  p.rewrite_min_input_files = Positive(props, kRewriteMinInput, 2, problems);
  p.expire_older_than_seconds = Positive(props, kExpireOlderThan, 0, problems);
  p.expire_retain_last = Positive(props, kExpireRetainLast, 1, problems);
  // The same floor as the statement: a load's uploaded files are unreferenced until its commit.
  p.orphan_older_than_seconds = Positive(props, kOrphanOlderThan, 3600, problems);
  return p;
}

std::vector<LakeCare> PolicyRun(const LakeTableRef& table, const LakeCarePolicy& p, int64_t now_ms) {
  std::vector<LakeCare> out;
  auto care = [&](const char* procedure) -> LakeCare& {
    out.push_back(LakeCare{table, procedure, {}, "policy"});
    return out.back();
  };
  if (p.rewrite_min_input_files)
    care("rewrite_data_files").arguments.push_back(
        Named("min_input_files", std::to_string(*p.rewrite_min_input_files), false));
  if (p.expire_older_than_seconds) {
    auto& c = care("expire_snapshots");
    c.arguments.push_back(Named("older_than", iceberg::MillisToText(now_ms - *p.expire_older_than_seconds * 1000), true));
    if (p.expire_retain_last) c.arguments.push_back(Named("retain_last", std::to_string(*p.expire_retain_last), false));
  }
  if (p.orphan_older_than_seconds)
    care("remove_orphan_files").arguments.push_back(
        Named("older_than", iceberg::MillisToText(now_ms - *p.orphan_older_than_seconds * 1000), true));
  return out;
}

LakeCarePolicyRunner::LakeCarePolicyRunner(LakeCatalogs& lakes, storage::Database& db, std::string work_dir,
                                           double check_seconds)
    : lakes_(lakes), db_(db), work_dir_(std::move(work_dir)), check_seconds_(check_seconds) {}

LakeCarePolicyRunner::~LakeCarePolicyRunner() { Stop(); }

void LakeCarePolicyRunner::Start() {
  if (check_seconds_ <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void LakeCarePolicyRunner::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LakeCarePolicyRunner::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::duration<double>(check_seconds_), [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    (void)CheckOnce(WallClockMs());
    lock.lock();
  }
}

int LakeCarePolicyRunner::CheckOnce(int64_t now_ms) {
  auto catalogs = lakes_.store().List();
  if (!catalogs.ok()) {
    log::Warn("lakehouse", "automatic table care: cannot list the external catalogs: {}", catalogs.status().message());
    return 0;
  }
  int started = 0;
  std::unique_ptr<storage::Connection> con;
  for (const auto& info : *catalogs) {
    auto conn = lakes_.Connect(info.name);
    if (!conn.ok()) {
      log::Warn("lakehouse", "automatic table care: catalog {}: {}", info.name, conn.status().message());
      continue;
    }
    auto namespaces = (*conn)->catalog->ListNamespaces();
    if (!namespaces.ok()) {
      log::Warn("lakehouse", "automatic table care: catalog {}: {}", info.name, namespaces.status().message());
      continue;
    }
    for (const auto& ns : *namespaces) {
      if (ns.find('.') != std::string::npos) continue;  // Sluice names tables catalog.db.table
      auto tables = (*conn)->catalog->ListTables({ns});
      if (!tables.ok()) continue;
      for (const auto& ident : *tables) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (stopping_) return started;
        }
        LakeTableRef ref{info.name, ns, ident.name};
        const std::string key = ref.ToString();
        auto table = (*conn)->ops->Load(ident);
        if (!table.ok()) continue;  // dropped meanwhile, or unreadable: SELECT says why
        std::vector<std::string> problems;
        auto policy = CarePolicyOf(table->metadata.properties, &problems);
        for (const auto& p : problems) log::Warn("lakehouse", "automatic table care of {}: {}", key, p);
        if (!policy) continue;
        auto last = last_run_ms_.find(key);
        if (last != last_run_ms_.end() && now_ms - last->second < policy->interval_seconds * 1000) continue;
        last_run_ms_[key] = now_ms;
        if (!con) {
          auto opened = db_.Connect();
          if (!opened.ok()) {
            log::Warn("lakehouse", "automatic table care: no DuckDB connection: {}", opened.status().message());
            return started;
          }
          con = std::move(opened).value();
        }
        started++;
        for (const auto& care : PolicyRun(ref, *policy, now_ms)) {
          auto r = RunLakeCare(lakes_, care, now_ms, LakeCareWriter{con.get(), work_dir_});
          const auto runs = lakes_.care_log().RunsOf(key);
          const std::string detail = runs.empty() ? "" : runs.back().detail;
          if (r.ok()) {
            log::Info("lakehouse", "automatic table care of {}: {}: {}", key, care.procedure, detail);
          } else {
            log::Warn("lakehouse", "automatic table care of {}: {} failed (tried again in {} s): {}", key,
                      care.procedure, policy->interval_seconds, r.status().message());
          }
        }
      }
    }
  }
  return started;
}

}  // namespace sluice::lakehouse
