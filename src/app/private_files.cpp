#include "app/private_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace sluice {

namespace {

void Tighten(const std::string& path, unsigned mode) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return;  // not created yet
  unsigned current = st.st_mode & 07777;
  if ((current & 077) == 0) return;
  if (::chmod(path.c_str(), mode) != 0) {
    log::Warn("serve", "cannot restrict '{}' (mode {:o}) to {:o}: {}", path, current, mode, std::strerror(errno));
    return;
  }
  log::Warn("serve", "'{}' was readable by other users (mode {:o}); changed to {:o}", path, current, mode);
}

}  // namespace

void UsePrivateUmask() { ::umask(077); }

void TightenDataDirPermissions(const std::string& dir) {
  Tighten(dir, kPrivateDirMode);
  for (const char* name : {"sluice.duckdb", "sluice.duckdb.wal", "secrets.key"}) Tighten(dir + "/" + name, kPrivateFileMode);
}

}  // namespace sluice
