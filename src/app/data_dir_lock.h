#pragma once
// One server per data directory: a second one would corrupt the first one's database and progress.
#include <string>

#include "common/status.h"

namespace sluice {

class DataDirLock {
 public:
  // Creates the directory if needed and takes an exclusive lock on <dir>/sluice.lock (holding our pid).
  static Result<DataDirLock> Acquire(const std::string& dir);
  DataDirLock(DataDirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DataDirLock& operator=(DataDirLock&&) = delete;
  ~DataDirLock();

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace sluice
