#include "source/volume.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>

#include "source/s3_client.h"

namespace sluice::source {

namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string WithSlash(std::string s) {
  if (!s.empty() && s.back() != '/') s += '/';
  return s;
}

// "a/b" and "a/b/" -> "a/b/"; "" stays ""; leading '/' dropped. ".." is refused.
Result<std::string> NormalizeSubdirectory(const std::string& sub) {
  std::string s = sub;
  while (!s.empty() && s.front() == '/') s.erase(0, 1);
  for (size_t start = 0; start < s.size();) {
    size_t end = s.find('/', start);
    if (end == std::string::npos) end = s.size();
    if (s.compare(start, end - start, "..") == 0)
      return Status::InvalidArgument("SUBDIRECTORY '" + sub + "' may not contain '..'");
    start = end + 1;
  }
  return WithSlash(s);
}

void SortByPath(std::vector<VolumeFile>& files) {
  std::sort(files.begin(), files.end(), [](const VolumeFile& a, const VolumeFile& b) { return a.path < b.path; });
}

class LocalVolumeReader : public VolumeReader {
 public:
  explicit LocalVolumeReader(std::string root) : root_(std::move(root)) {}

  Result<std::vector<VolumeFile>> List(const std::string& subdirectory, bool recursive) override {
    ASSIGN_OR_RETURN(std::string sub, NormalizeSubdirectory(subdirectory));
    namespace fs = std::filesystem;
    std::vector<VolumeFile> out;
    std::error_code ec;
    fs::path dir = fs::path(root_) / sub;
    if (!fs::is_directory(root_, ec))
      return Status::NotFound("the volume's folder '" + root_ + "' does not exist or is not a directory");
    if (!fs::is_directory(dir, ec)) return out;  // an absent subdirectory has no files
    auto visit = [&](const fs::directory_entry& e) {
      std::error_code ec2;
      if (!e.is_regular_file(ec2)) return;
      std::string rel = fs::relative(e.path(), root_, ec2).generic_string();
      if (ec2 || IsHiddenVolumePath(rel)) return;
      struct stat st;
      if (::stat(e.path().c_str(), &st) != 0) return;  // removed meanwhile
      VolumeFile f;
      f.path = rel;
      f.size = st.st_size;
      f.last_modified_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
      out.push_back(std::move(f));
    };
    if (recursive) {
      fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
      if (ec) return Status::IoError("cannot list '" + dir.string() + "': " + ec.message());
      for (; it != end; it.increment(ec)) {
        if (ec) return Status::IoError("cannot list '" + dir.string() + "': " + ec.message());
        std::string name = it->path().filename().string();
        if (it->is_directory() && (StartsWith(name, ".") || StartsWith(name, "_temporary"))) {
          it.disable_recursion_pending();
          continue;
        }
        visit(*it);
      }
    } else {
      fs::directory_iterator it(dir, ec), end;
      if (ec) return Status::IoError("cannot list '" + dir.string() + "': " + ec.message());
      for (; it != end; it.increment(ec)) {
        if (ec) return Status::IoError("cannot list '" + dir.string() + "': " + ec.message());
        visit(*it);
      }
    }
    SortByPath(out);
    return out;
  }

  // DuckDB reads only the scratch folder (the SQL sandbox, storage/sandbox.h), so a local file is linked there:
  // a hard link costs nothing and sees the same bytes; across file systems it is copied.
  Result<std::string> Fetch(const VolumeFile& file, const std::string& scratch_dir) override {
    static std::atomic<uint64_t> counter{0};
    std::error_code ec;
    std::filesystem::create_directories(scratch_dir, ec);
    if (ec) return Status::IoError("cannot create the scratch folder '" + scratch_dir + "': " + ec.message());
    std::string source = root_ + file.path;
    std::string local = WithSlash(scratch_dir) + "local-" + std::to_string(::getpid()) + "-" +
                        std::to_string(counter++) + "-" + std::filesystem::path(file.path).filename().string();
    std::filesystem::create_hard_link(source, local, ec);
    if (ec) {
      if (!std::filesystem::exists(source))
        return Status::NotFound("'" + source + "' is gone (deleted after it was listed)");
      ec.clear();
      std::filesystem::copy_file(source, local, ec);
      if (ec) {
        std::error_code ignored;
        std::filesystem::remove(local, ignored);
        // A full scratch disk shows up as ENOSPC, or as EIO from the kernel's in-place copy.
        if (ec == std::errc::no_space_on_device || std::filesystem::space(scratch_dir, ignored).available == 0)
          return Status(StatusCode::kDiskFull, "disk full: cannot copy '" + source + "' into the scratch folder " +
                                                   scratch_dir + ": its disk has no space left");
        return Status::IoError("cannot copy '" + source + "' into the scratch folder " + scratch_dir + ": " +
                               ec.message());
      }
    }
    return local;
  }
  bool FetchCopies() const override { return true; }

  Status Delete(const VolumeFile& file) override {
    std::error_code ec;
    std::filesystem::remove(root_ + file.path, ec);
    if (ec) return Status::IoError("cannot delete '" + root_ + file.path + "': " + ec.message());
    return Status::Ok();
  }

 private:
  std::string root_;
};

class S3VolumeReader : public VolumeReader {
 public:
  S3VolumeReader(VolumeLocation location, S3Credentials creds)
      : location_(std::move(location)), client_(std::move(creds)) {}

  Result<std::vector<VolumeFile>> List(const std::string& subdirectory, bool recursive) override {
    ASSIGN_OR_RETURN(std::string sub, NormalizeSubdirectory(subdirectory));
    ASSIGN_OR_RETURN(auto objects, client_.ListAll(location_.bucket, location_.prefix + sub, recursive ? "" : "/"));
    std::vector<VolumeFile> out;
    out.reserve(objects.size());
    for (auto& o : objects) {
      if (!StartsWith(o.key, location_.prefix) || o.key.back() == '/') continue;  // folder markers
      VolumeFile f;
      f.path = o.key.substr(location_.prefix.size());
      if (f.path.empty() || IsHiddenVolumePath(f.path)) continue;
      f.size = o.size;
      f.last_modified_ms = o.last_modified_ms;
      f.etag = std::move(o.etag);
      out.push_back(std::move(f));
    }
    // A listing that changed between its pages may name a key twice; the later page is the newer word on it.
    std::stable_sort(out.begin(), out.end(), [](const VolumeFile& a, const VolumeFile& b) { return a.path < b.path; });
    std::vector<VolumeFile> unique;
    unique.reserve(out.size());
    for (auto& f : out) {
      if (!unique.empty() && unique.back().path == f.path) unique.back() = std::move(f);
      else unique.push_back(std::move(f));
    }
    return unique;
  }

  Result<std::string> Fetch(const VolumeFile& file, const std::string& scratch_dir) override {
    static std::atomic<uint64_t> counter{0};
    std::error_code ec;
    std::filesystem::create_directories(scratch_dir, ec);
    if (ec) return Status::IoError("cannot create the scratch folder '" + scratch_dir + "': " + ec.message());
    std::string base = std::filesystem::path(file.path).filename().string();
    std::string local = WithSlash(scratch_dir) + "s3-" + std::to_string(::getpid()) + "-" +
                        std::to_string(counter++) + "-" + base;
    // The size and ETag of the listing: the download must be that version, whole (s3_client.h).
    RETURN_IF_ERROR(client_.GetToFile(location_.bucket, location_.prefix + file.path, local, file.size, file.etag));
    return local;
  }
  bool FetchCopies() const override { return true; }

  Status Delete(const VolumeFile& file) override {
    return client_.Delete(location_.bucket, location_.prefix + file.path);
  }

 private:
  VolumeLocation location_;
  S3Client client_;
};

}  // namespace

bool IsHiddenVolumePath(const std::string& relative_path) {
  size_t start = 0;
  while (start <= relative_path.size()) {
    size_t end = relative_path.find('/', start);
    std::string_view part = std::string_view(relative_path).substr(start, end == std::string::npos ? std::string::npos
                                                                                                  : end - start);
    if (StartsWith(part, ".") || StartsWith(part, "_temporary")) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

Result<VolumeLocation> ParseVolumeLocation(const std::string& url) {
  VolumeLocation loc;
  if (StartsWith(url, "file://")) {
    loc.scheme = VolumeLocation::Scheme::kFile;
    std::string path = url.substr(7);
    if (path.empty() || path.front() != '/')
      return Status::InvalidArgument("LOCATION '" + url + "' must name an absolute folder, like 'file:///data/in/'");
    loc.path = WithSlash(path);
    loc.url = "file://" + loc.path;
    return loc;
  }
  if (StartsWith(url, "s3://")) {
    loc.scheme = VolumeLocation::Scheme::kS3;
    std::string rest = url.substr(5);
    size_t slash = rest.find('/');
    loc.bucket = rest.substr(0, slash);
    if (loc.bucket.empty())
      return Status::InvalidArgument("LOCATION '" + url + "' names no bucket: write 's3://bucket/prefix/'");
    loc.prefix = slash == std::string::npos ? "" : rest.substr(slash + 1);
    while (!loc.prefix.empty() && loc.prefix.front() == '/') loc.prefix.erase(0, 1);
    loc.prefix = WithSlash(loc.prefix);
    loc.url = "s3://" + loc.bucket + "/" + loc.prefix;
    return loc;
  }
  return Status::InvalidArgument("LOCATION '" + url + "' is not supported: use 's3://bucket/prefix/' (with USING "
                                 "CONNECTION) or 'file:///absolute/folder/'");
}

Result<std::unique_ptr<VolumeReader>> OpenVolume(const VolumeLocation& location,
                                                 const std::optional<S3Credentials>& credentials) {
  if (location.scheme == VolumeLocation::Scheme::kFile)
    return std::unique_ptr<VolumeReader>(new LocalVolumeReader(location.path));
  if (!credentials)
    return Status::InvalidArgument("the volume at '" + location.url + "' needs a storage connection");
  return std::unique_ptr<VolumeReader>(new S3VolumeReader(location, *credentials));
}

}  // namespace sluice::source
