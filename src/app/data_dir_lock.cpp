#include "app/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace sluice {

Result<DataDirLock> DataDirLock::Acquire(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError("cannot create the data directory '" + dir + "': " + ec.message());
  std::string path = dir + "/sluice.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError("cannot open '" + path + "': " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {0};
    ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? " (pid " + std::string(pid, strnlen(pid, sizeof pid)) + ")" : "";
    return Status::AlreadyExists("the data directory '" + dir + "' is already in use by another Sluice server" +
                                 holder + "; stop it first or start this one with another --data-dir");
  }
  std::string me = std::to_string(::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0) {
    // The lock is what matters; the pid is only a courtesy for the message above.
  }
  return DataDirLock(fd);
}

DataDirLock::~DataDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace sluice
