#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace testbroker {

// Accepts connections on a fixed loopback port and relays each, byte for byte, to a target
// address. librdkafka's mock brokers only listen on ports the kernel picks; this gives the
// cluster a well-known bootstrap address (127.0.0.1:9092 for `make demo`). A client that
// bootstraps through it learns the brokers' own addresses from the metadata and connects to
// them directly, so only bootstrap traffic passes through the relay.
class PortForwarder {
 public:
  PortForwarder() = default;
  ~PortForwarder();
  PortForwarder(const PortForwarder&) = delete;
  PortForwarder& operator=(const PortForwarder&) = delete;

  // Listens on 127.0.0.1:port and relays to target ("host:port"). Returns false and `error`.
  bool Start(int port, const std::string& target, std::string& error);

 private:
  void AcceptLoop();

  int listen_fd_ = -1;
  std::string target_host_;
  int target_port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
};

}  // namespace testbroker
