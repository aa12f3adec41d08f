#include "metrics/process_stats.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace sluice::metrics {

namespace {

double BootTimeSeconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime") {
      in >> value;
      return value;
    }
    in.ignore(1 << 16, '\n');
  }
  return 0;
}

}  // namespace

ProcessSample ReadProcessSample() {
  ProcessSample s;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const int64_t page = sysconf(_SC_PAGESIZE);
  std::ifstream stat("/proc/self/stat");
  std::string line;
  if (std::getline(stat, line)) {
    // The command name (field 2) may hold spaces and parentheses: fields are counted from the last ')'.
    size_t close = line.rfind(')');
    if (close != std::string::npos) {
      std::istringstream fields(line.substr(close + 2));
      std::string f[50];
      for (int i = 0; i < 50 && fields >> f[i]; ++i) {}
      // After ')': index 0 is field 3 (state); utime=14, stime=15, num_threads=20, starttime=22, vsize=23, rss=24.
      auto at = [&](int field) { return std::atof(f[field - 3].c_str()); };
      s.cpu_seconds = (at(14) + at(15)) / ticks;
      s.threads = static_cast<int64_t>(at(20));
      s.start_time = BootTimeSeconds() + at(22) / ticks;
      s.virtual_bytes = static_cast<int64_t>(at(23));
      s.resident_bytes = static_cast<int64_t>(at(24)) * page;
    }
  }
  if (DIR* fds = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(fds))
      if (e->d_name[0] != '.') s.open_fds++;
    closedir(fds);
    s.open_fds--;  // the directory stream itself
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) s.max_fds = static_cast<int64_t>(limit.rlim_cur);
  return s;
}

}  // namespace sluice::metrics
