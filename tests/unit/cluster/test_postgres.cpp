#include "test_postgres.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sluice::cluster::testing {

namespace {

constexpr const char* kPgBin = "/usr/lib/postgresql/15/bin";

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

}  // namespace

TestPostgres::TestPostgres() {
  if (!std::filesystem::exists(std::string(kPgBin) + "/initdb")) {
    error_ = std::string("PostgreSQL 15 is not installed at ") + kPgBin + ": run scripts/setup.sh";
    return;
  }
  char tmpl[] = "/tmp/sluice-cluster-pg-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    error_ = "mkdtemp failed";
    return;
  }
  root_ = tmpl;
  data_ = root_ + "/data";
  log_ = root_ + "/postgres.log";
  if (geteuid() == 0) {
    run_as_ = "runuser -u nobody -- ";
    if (passwd* pw = getpwnam("nobody")) (void)chown(root_.c_str(), pw->pw_uid, pw->pw_gid);
  }
  std::string initdb = run_as_ + kPgBin + "/initdb -D " + data_ + " -U sluice --auth=trust -E UTF8 --no-sync >" +
                       root_ + "/initdb.log 2>&1";
  if (std::system(initdb.c_str()) != 0) {
    error_ = "initdb failed (see " + root_ + "/initdb.log)";
    return;
  }
  port_ = FreePort();
  if (!Start()) error_ = "postgres did not start (see " + log_ + ")";
}

bool TestPostgres::Start() {
  std::string cmd = run_as_ + kPgBin + "/pg_ctl -D " + data_ + " -l " + log_ + " -w -t 30 -o \"-p " +
                    std::to_string(port_) + " -k " + root_ + " -h 127.0.0.1 -c fsync=off -c max_connections=50\" start >/dev/null 2>&1";
  running_ = std::system(cmd.c_str()) == 0;
  return running_;
}

bool TestPostgres::Stop() {
  std::string cmd = run_as_ + kPgBin + "/pg_ctl -D " + data_ + " -m immediate -w stop >/dev/null 2>&1";
  bool stopped = std::system(cmd.c_str()) == 0;
  if (stopped) running_ = false;
  return stopped;
}

bool TestPostgres::Signal(int sig) {
  std::ifstream pidfile(data_ + "/postmaster.pid");
  long postmaster = 0;
  if (!(pidfile >> postmaster) || postmaster <= 0) return false;
  // The postmaster and its children (backends, checkpointer, ...), found by their parent in /proc/<pid>/stat.
  std::vector<long> pids{postmaster};
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == postmaster) pids.push_back(std::stol(entry.path().filename().string()));
  }
  bool all = true;
  for (long pid : pids) all = ::kill(static_cast<pid_t>(pid), sig) == 0 && all;
  return all;
}

bool TestPostgres::Freeze() {
  frozen_ = Signal(SIGSTOP);
  return frozen_;
}

bool TestPostgres::Thaw() {
  bool woke = Signal(SIGCONT);
  if (woke) frozen_ = false;
  return woke;
}

TestPostgres::~TestPostgres() {
  if (frozen_) Thaw();
  if (running_) Stop();
  if (!root_.empty()) std::filesystem::remove_all(root_);
}

std::string TestPostgres::uri() const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " dbname=postgres user=sluice";
}

}  // namespace sluice::cluster::testing
