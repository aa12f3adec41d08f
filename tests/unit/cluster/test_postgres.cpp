#include "test_postgres.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

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

TestPostgres::~TestPostgres() {
  if (running_) Stop();
  if (!root_.empty()) std::filesystem::remove_all(root_);
}

std::string TestPostgres::uri() const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " dbname=postgres user=sluice";
}

}  // namespace sluice::cluster::testing
