#include "lakehouse/lake_rewrite.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "common/ascii.h"
#include "common/log.h"
#include "common/test_points.h"
#include "iceberg/ids.h"
#include "iceberg/parquet_write_sql.h"
#include "iceberg/replace_files.h"
#include "iceberg/snapshot_files.h"
#include "lakehouse/lake_append.h"
#include "lakehouse/lake_cache.h"
#include "sql/parser.h"

namespace sluice::lakehouse {

namespace fs = std::filesystem;

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string PartitionKey(const iceberg::DataFile& f) {
  std::string key;
  for (const auto& v : f.partition) key += (v.is_null() ? std::string("\x01") : iceberg::ValueToText(v)) + "\x1f";
  return key;
}

// Groups of small files of one partition to merge, each into one new file.
std::vector<std::vector<iceberg::LiveDataFile>> PlanGroups(std::vector<iceberg::LiveDataFile> files, int spec_id,
                                                           const RewriteOptions& o) {
  std::map<std::string, std::vector<iceberg::LiveDataFile>> by_partition;
  for (auto& f : files) {
    if (f.spec_id != spec_id || f.file.file_size_in_bytes >= o.min_file_size_bytes) continue;
    by_partition[PartitionKey(f.file)].push_back(std::move(f));
  }
  std::vector<std::vector<iceberg::LiveDataFile>> groups;
  for (auto& [key, small] : by_partition) {
    if (static_cast<int64_t>(small.size()) < o.min_input_files) continue;
    std::sort(small.begin(), small.end(), [](const auto& a, const auto& b) {
      return a.file.file_size_in_bytes < b.file.file_size_in_bytes;
    });
    std::vector<iceberg::LiveDataFile> bin;
    int64_t bin_bytes = 0;
    auto close = [&] {
      if (bin.size() >= 2) groups.push_back(std::move(bin));
      bin.clear();
      bin_bytes = 0;
    };
    for (auto& f : small) {
      if (!bin.empty() && bin_bytes + f.file.file_size_in_bytes > o.target_file_size_bytes) close();
      bin_bytes += f.file.file_size_in_bytes;
      bin.push_back(std::move(f));
    }
    close();
  }
  return groups;
}

struct WorkDir {
  std::string path;
  ~WorkDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

RewriteOptions DefaultRewriteOptions(const std::map<std::string, std::string>& properties) {
  RewriteOptions o;
  if (auto it = properties.find("write.target-file-size-bytes"); it != properties.end()) {
    try {
      const long long v = std::stoll(it->second);
      if (v > 0) o.target_file_size_bytes = v;
    } catch (const std::exception&) {
    }
  }
  o.min_file_size_bytes = o.target_file_size_bytes / 4 * 3;
  return o;
}

Result<RewriteResult> RewriteDataFiles(LakeCatalogs& lakes, LakeConnection& conn, const LakeTableRef& target,
                                       storage::Connection& con, const RewriteOptions& options,
                                       const std::string& work_dir) {
  const std::string name = target.ToString();
  if (options.target_file_size_bytes < 1 || options.min_file_size_bytes < 0 || options.min_input_files < 1)
    return Status::InvalidArgument("rewrite_data_files: target_file_size_bytes and min_input_files must be at "
                                   "least 1, min_file_size_bytes at least 0");
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(conn, target));
  const iceberg::Schema* schema = table.metadata.CurrentSchema();
  const iceberg::PartitionSpec* spec = table.metadata.DefaultSpec();
  ASSIGN_OR_RETURN(auto live, iceberg::ListLiveDataFiles(conn.store.get(), table.metadata));
  auto groups = PlanGroups(std::move(live), spec->spec_id, options);
  RewriteResult result;
  if (groups.empty()) return result;

  WorkDir dir{(fs::path(work_dir) / ("rewrite-" + iceberg::NewUuid())).string()};
  std::error_code ec;
  fs::create_directories(dir.path, ec);
  if (ec) return Status::IoError("cannot create " + dir.path + ": " + ec.message());
  std::vector<iceberg::FileToAppend> outputs;
  std::set<std::string> replaced;
  for (size_t g = 0; g < groups.size(); g++) {
    const std::string path = (fs::path(dir.path) / ("part-" + std::to_string(g) + ".parquet")).string();
    int64_t rows = 0;
    {
      // The group's files stay in the cache while DuckDB reads them: eviction (by a SELECT) waits for the lock.
      std::lock_guard<std::mutex> lock(lakes.cache_mutex());
      std::vector<std::string> locals;
      std::string list;
      for (const auto& f : groups[g]) {
        if (AsciiLower(f.file.file_format) != "parquet")
          return Status::NotSupported(name + " has a " + f.file.file_format + " data file; Sluice rewrites Parquet "
                                      "data files only");
        ASSIGN_OR_RETURN(std::string local, FetchToCache(lakes, conn.store.get(), f.file.file_path));
        list += (list.empty() ? "" : ", ") + sql::QuoteLiteral(local);
        locals.push_back(std::move(local));
        rows += f.file.record_count;
      }
      RETURN_IF_ERROR(con.Execute(iceberg::ParquetCopySql(*schema, "SELECT * FROM read_parquet([" + list + "])", path)));
      EvictCache(lakes.cache_dir(), lakes.cache_bytes(), locals);
    }
    ASSIGN_OR_RETURN(iceberg::FileToAppend out, DescribeParquetFile(con, *schema, *spec, path));
    if (out.data_file.record_count != rows)
      return Status::Internal(fmt::format("{}: merging {} files gave {} rows, their manifests say {}; nothing was "
                                          "changed", name, groups[g].size(), out.data_file.record_count, rows));
    out.data_file.partition = groups[g].front().file.partition;  // the group's partition, exactly as listed
    for (const auto& f : groups[g]) {
      replaced.insert(f.file.file_path);
      result.rewritten_bytes += f.file.file_size_in_bytes;
    }
    outputs.push_back(std::move(out));
  }
  ASSIGN_OR_RETURN(iceberg::StagedAppend staged, conn.ops->StageFiles(table, std::move(outputs)));
  auto give_up = [&](Status st) -> Status {
    if (Status d = conn.ops->DiscardStaged(staged); !d.ok())
      log::Warn("lakehouse", "{}: could not delete the files of an abandoned rewrite: {}", name, d.message());
    return st;
  };
  if (Status st = TestPoint("iceberg_rewrite.after_upload"); !st.ok()) return give_up(st);
  iceberg::LoadedTable base = std::move(table);
  constexpr int kAttempts = 11;
  for (int attempt = 1; attempt <= kAttempts; attempt++) {
    // The loads' offsets (and any other sluice.* bookkeeping) of the version this attempt commits on.
    const iceberg::Summary carried = iceberg::CarriedSummaryKeys(base.metadata, "sluice.");
    auto committed = iceberg::CommitReplace(conn.catalog.get(), conn.store.get(), base, replaced, staged, carried,
                                            NowMs());
    if (!committed.ok()) {
      if (committed.status().code() == StatusCode::kConflict) return give_up(committed.status());
      return committed.status();  // outcome unknown: the new files may be referenced now
    }
    if (committed->outcome == iceberg::CommitOutcome::kCommitted) {
      result.rewritten_files = static_cast<int64_t>(replaced.size());
      result.added_files = static_cast<int64_t>(staged.files.size());
      for (const auto& f : staged.files) result.added_bytes += f.file_size_in_bytes;
      result.snapshot_id = committed->snapshot_id;
      log::Info("lakehouse", "{}: rewrote {} data file(s) into {} (snapshot {}, after {} attempt(s))", name,
                result.rewritten_files, result.added_files, result.snapshot_id, attempt);
      return result;
    }
    base = std::move(committed->table);
  }
  return give_up(Status::Conflict(name + ": other writers kept committing first; nothing was rewritten, run "
                                  "rewrite_data_files again"));
}

}  // namespace sluice::lakehouse
