// testbroker: a Kafka-protocol broker for tests, built on librdkafka's mock cluster.
// See README.md for usage, commands and limits.

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "command_handler.h"
#include "command_loop.h"
#include "options.h"
#include "port_forwarder.h"

namespace {

// Writes via a temp file and rename() so a reader polling for the file never sees half of it.
bool WriteFileAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.close();
    if (!out) return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

// A test may start us with stdin or stdout closed (<&-). The next socket would then get
// fd 0 or 1, and commands would be read from, or answers written into, a Kafka connection.
void EnsureStandardFds() {
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) < 0) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);  // takes the lowest free fd
}

// The mock cluster needs an rd_kafka_t for its bookkeeping only. A producer with no
// bootstrap servers never connects anywhere; log_level 3 keeps its "no bootstrap.servers"
// warning out of the test output while real errors still show.
rd_kafka_t* NewHostHandle() {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "client.id", "testbroker", errstr, sizeof errstr);
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!rk) {
    rd_kafka_conf_destroy(conf);
    std::fprintf(stderr, "testbroker: rd_kafka_new: %s\n", errstr);
  }
  return rk;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace testbroker;

  EnsureStandardFds();
  std::string error;
  auto options = ParseOptions(argc, argv, error);
  if (!options) {
    if (error.empty()) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "testbroker: %s\n%s", error.c_str(), kUsage);
    return 2;
  }

  // Before any librdkafka thread exists, so they all inherit the blocked mask.
  CommandLoop::BlockStopSignals();

  rd_kafka_t* rk = NewHostHandle();
  if (!rk) return 1;
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(rk, options->brokers);
  if (!cluster) {
    std::fprintf(stderr, "testbroker: cannot create the mock cluster\n");
    rd_kafka_destroy(rk);
    return 1;
  }

  int status = 0;
  {
    CommandHandler handler(cluster, options->brokers);
    CommandLoop loop(handler);
    for (const auto& topic : options->topics) {
      error = handler.CreateTopic(topic);
      if (!error.empty()) break;
    }
    int control_port = -1;
    if (error.empty() && options->control_port) control_port = loop.Listen(*options->control_port, error);

    std::string bootstrap = handler.Bootstrap();
    PortForwarder forwarder;
    if (error.empty() && options->port) {
      // Broker 1 answers the bootstrap; the metadata it returns names every broker's own port.
      if (forwarder.Start(*options->port, bootstrap.substr(0, bootstrap.find(',')), error))
        bootstrap = "127.0.0.1:" + std::to_string(*options->port);
    }
    if (error.empty() && !options->bootstrap_file.empty() && !WriteFileAtomically(options->bootstrap_file, bootstrap + "\n"))
      error = "cannot write " + options->bootstrap_file;

    if (!error.empty()) {
      std::fprintf(stderr, "testbroker: %s\n", error.c_str());
      status = 1;
    } else {
      // Announce only when everything (topics, control port, file) is ready to use.
      std::printf("BOOTSTRAP %s\n", bootstrap.c_str());
      if (control_port >= 0) std::printf("CONTROL 127.0.0.1:%d\n", control_port);
      std::fflush(stdout);

      // With a control port, stdin may well be /dev/null: its end must not stop the broker.
      if (options->read_stdin) loop.ReadStdin(/*eof_stops=*/control_port < 0);
      std::string reason = loop.Run();
      std::fprintf(stderr, "testbroker: stopping (%s)\n", reason.c_str());
      // A stale file would point the next reader at closed ports.
      if (!options->bootstrap_file.empty()) std::remove(options->bootstrap_file.c_str());
    }
  }

  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(rk);
  return status;
}
