#pragma once
// A PostgreSQL 15 of the test's own (Debian's postgresql-15): initdb in a temporary directory, pg_ctl start on a
// free loopback port, trust authentication for the superuser `sluice`, stopped and removed by the destructor.
// As tests/e2e/pg_harness.py does, it runs as `nobody` when the tests run as root (PostgreSQL refuses root).
#include <string>

namespace sluice::cluster::testing {

class TestPostgres {
 public:
  TestPostgres();  // starts it; `ok()` false (with `error()`) when it could not
  ~TestPostgres();
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::string uri() const;  // a libpq connection string
  int port() const { return port_; }
  // Stops it abruptly (immediate shutdown) and starts it again on the same port: an outage and its end.
  bool Stop();
  bool Start();
  // Hangs it instead (SIGSTOP of the postmaster and every backend): the kernel still accepts connections and
  // acknowledges every packet, nothing answers -- a PostgreSQL that hangs rather than refuses. Thaw() wakes it.
  bool Freeze();
  bool Thaw();

 private:
  std::string root_, data_, log_, run_as_;
  int port_ = 0;
  bool running_ = false;
  bool frozen_ = false;
  bool Signal(int sig);
  std::string error_;
};

}  // namespace sluice::cluster::testing
