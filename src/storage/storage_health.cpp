#include "storage/storage_health.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <utility>

#include "common/log.h"

namespace sluice::storage {

namespace {

constexpr auto kFreeSpaceCacheFor = std::chrono::milliseconds(250);
// An invalidated database is reopened no sooner than this after it failed, so a fault that recurs at once cannot
// make the server restart in a tight loop.
constexpr auto kMinTimeBeforeReopen = std::chrono::seconds(3);
// After this long without a failed write, the free space asked for goes back to min_free_bytes.
constexpr auto kForgetDiskFullAfter = std::chrono::minutes(10);
// After a failed write, the free space asked for grows by at least this much over what was free then.
constexpr uint64_t kFreshRoomAfterDiskFull = 16ull << 20;

bool Contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

std::string Mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The file DuckDB could not write, from `Could not write file "<path>": No space left on device`.
std::string FailedFile(const std::string& message) {
  const std::string marker = "write file \"";
  size_t at = message.find(marker);
  if (at == std::string::npos) return "";
  size_t start = at + marker.size();
  size_t end = message.find('"', start);
  return end == std::string::npos ? "" : message.substr(start, end - start);
}

}  // namespace

std::string WithoutStackTrace(const std::string& message) {
  size_t at = message.find("\n\nStack Trace:");
  if (at == std::string::npos) at = message.find("\nStack Trace:");
  std::string out = at == std::string::npos ? message : message.substr(0, at);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::pair<uint64_t, uint64_t> DiskSpace(const std::string& path) {
  struct statvfs vfs {};
  if (statvfs(path.c_str(), &vfs) != 0) return {UINT64_MAX, 0};
  return {static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize, static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize};
}

namespace {

// Characters that continue a path or a name: a match of the directory must not be preceded or followed by one
// (except '/' after it, which starts a path below it).
bool IsPathChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/' || c == '~' ||
         static_cast<unsigned char>(c) >= 0x80;
}

std::string WithoutTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

std::string ReplaceDirectories(const std::string& message, const std::vector<std::string>& paths,
                               std::string_view with) {
  std::string out;
  size_t at = 0;
  while (at < message.size()) {
    bool replaced = false;
    if (at == 0 || !IsPathChar(message[at - 1])) {
      for (const std::string& path : paths) {  // the longest first
        if (path.empty() || path == "/" || path == "." || message.compare(at, path.size(), path) != 0) continue;
        const size_t end = at + path.size();
        // A '.' that ends a sentence ends the path too ("... holding /srv/data."), one that goes on does not.
        const bool sentence_dot = end < message.size() && message[end] == '.' &&
                                  (end + 1 == message.size() || !IsPathChar(message[end + 1]));
        if (end < message.size() && message[end] != '/' && !sentence_dot && IsPathChar(message[end])) continue;
        out += with;
        at = end;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(message[at++]);
  }
  return out;
}

namespace {

// `dir` as given, as an absolute path and with its links resolved: the spellings an error may use, longest first
// so that a relative spelling never cuts into an absolute one.
std::vector<std::string> Spellings(const std::string& dir) {
  std::vector<std::string> out;
  if (dir.empty()) return out;
  out.push_back(WithoutTrailingSlashes(dir));
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(dir, ec).lexically_normal();
  if (!ec) out.push_back(WithoutTrailingSlashes(absolute.string()));
  absolute = std::filesystem::weakly_canonical(dir, ec);
  if (!ec) out.push_back(WithoutTrailingSlashes(absolute.string()));
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

StorageHealth::StorageHealth(std::string data_dir, DiskPolicy policy)
    : data_dir_(std::move(data_dir)),
      data_dir_spellings_(Spellings(data_dir_)),
      policy_(policy),
      required_free_bytes_(policy.min_free_bytes) {}

void StorageHealth::SetScratchFolder(const std::string& dir) { scratch_spellings_ = Spellings(dir); }

std::string StorageHealth::WithoutDataDirectory(const std::string& message) const {
  // The scratch folder first: it lies inside the data directory, and its random name is the part to hide.
  return ReplaceDirectories(ReplaceDirectories(message, scratch_spellings_, "<scratch folder>"), data_dir_spellings_,
                            "<data directory>");
}

uint64_t StorageHealth::FreeBytes() {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (free_read_at_.time_since_epoch().count() == 0 || now - free_read_at_ >= kFreeSpaceCacheFor) {
    std::tie(free_bytes_, total_bytes_) = DiskSpace(data_dir_);
    free_read_at_ = now;
  }
  return free_bytes_;
}

std::string StorageHealth::DescribeSpace() {
  uint64_t free = FreeBytes();
  if (free == UINT64_MAX) return "free space unknown";
  std::lock_guard<std::mutex> lock(mu_);
  return Mib(free) + " free of " + Mib(total_bytes_);
}

std::string StorageHealth::invalidation_reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return invalidation_reason_;
}

Status StorageHealth::Observe(Status error) {
  if (error.ok()) return error;
  const std::string text = WithoutStackTrace(error.message());
  const bool no_space = Contains(text, "No space left on device") || Contains(text, "Disk quota exceeded");
  if (Contains(text, "database has been invalidated") || Contains(text, "FATAL Error") ||
      Contains(text, "Failed to create checkpoint")) {
    NoteInvalidated(text);
    return Status::Unavailable(
        "the database stopped after a failed write (" + invalidation_reason() +
        "): DuckDB refuses every statement until the file is opened again. Nothing committed is lost: Sluice reopens "
        "it by itself (restarting and replaying its log) once the disk holding " + data_dir_ + " has " +
        Mib(policy_.min_free_bytes) + " free (now " + DescribeSpace() + ")");
  }
  if (no_space) {
    std::string file = FailedFile(text);
    NoteDiskFull(file.empty() ? text : "could not write " + file);
    return Status(StatusCode::kDiskFull,
                  "disk full: the disk holding " + data_dir_ + " has no space left" +
                      (file.empty() ? "" : " (could not write " + file + ")") +
                      "; nothing of this statement was committed. Free space there (now " + DescribeSpace() +
                      "); load jobs pause and resume by themselves once there is room");
  }
  if (text.size() == error.message().size()) return error;
  return Status(error.code(), text);
}

void StorageHealth::NoteDiskFull(const std::string& detail) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_read_at_ = {};  // read the space again on the next question
    last_disk_full_ = std::chrono::steady_clock::now();
    // The write that failed needed more than what is free now: ask for clearly more before trying again, and for
    // twice as much after each further failure; never for more than half the disk.
    auto [free, total] = DiskSpace(data_dir_);
    if (free == UINT64_MAX) free = 0;
    const uint64_t cap = std::max(policy_.min_free_bytes, total / 2);
    const uint64_t more = free + std::max<uint64_t>(policy_.min_free_bytes, kFreshRoomAfterDiskFull);
    required_free_bytes_ = std::min(cap, std::max(required_free_bytes_ * 2, more));
  }
  if (!disk_full_logged_.exchange(true))
    log::Error("storage", "disk full: {} ({}); load jobs pause until there is room", detail, DescribeSpace());
}

void StorageHealth::NoteInvalidated(const std::string& detail) {
  if (invalidated_.load(std::memory_order_acquire)) return;
  std::string reason = detail;
  // DuckDB's later errors quote the first one: keep the original cause.
  const std::string original = "Original error: \"";
  if (size_t at = reason.find(original); at != std::string::npos) {
    reason = reason.substr(at + original.size());
    if (!reason.empty() && reason.back() == '"') reason.pop_back();
  }
  for (const char* prefix : {"FATAL Error: ", "TransactionContext Error: ", "Failed to commit: "}) {
    if (reason.rfind(prefix, 0) == 0) reason = reason.substr(std::string(prefix).size());
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (invalidated_.load(std::memory_order_relaxed)) return;
    invalidation_reason_ = reason;
    invalidated_at_ = std::chrono::steady_clock::now();
    free_read_at_ = {};
    invalidated_.store(true, std::memory_order_release);
  }
  log::Error("storage", "DuckDB stopped the database after a failed write: {}. Jobs are paused; Sluice reopens the "
             "database (restarting itself) once {} has {} free (now {})", reason, data_dir_,
             Mib(policy_.min_free_bytes), DescribeSpace());
}

std::string StorageHealth::WriteBlocker() {
  if (invalidated()) {
    return "the database stopped after a failed write (" + invalidation_reason() + "); Sluice reopens it by itself "
           "once the disk holding " + data_dir_ + " has " + Mib(policy_.min_free_bytes) + " free (now " +
           DescribeSpace() + ")";
  }
  uint64_t free = FreeBytes();
  uint64_t required;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (required_free_bytes_ > policy_.min_free_bytes &&
        std::chrono::steady_clock::now() - last_disk_full_ >= kForgetDiskFullAfter)
      required_free_bytes_ = policy_.min_free_bytes;
    required = required_free_bytes_;
  }
  if (free == UINT64_MAX || free >= required) {
    if (free != UINT64_MAX && disk_full_logged_.exchange(false))
      log::Info("storage", "the disk holding {} has space again ({})", data_dir_, DescribeSpace());
    return "";
  }
  if (!disk_full_logged_.exchange(true))
    log::Error("storage", "disk nearly full: the disk holding {} has {}, below the {} Sluice keeps free; load jobs "
               "pause until there is room", data_dir_, DescribeSpace(), Mib(required));
  const bool grown = required > policy_.min_free_bytes;
  return "disk full: the disk holding " + data_dir_ + " has " + DescribeSpace() + ", below the " + Mib(required) +
         (grown ? " a load needs (a write failed for lack of space)" : " Sluice keeps free (--min-free-disk-mb)") +
         "; free space there and the job resumes by itself";
}

bool StorageHealth::ShouldReopen() {
  if (!invalidated()) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (std::chrono::steady_clock::now() - invalidated_at_ < kMinTimeBeforeReopen) return false;
  }
  uint64_t free = FreeBytes();
  return free == UINT64_MAX || free >= policy_.min_free_bytes;
}

}  // namespace sluice::storage
