#include "port_forwarder.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "loopback_listener.h"

namespace testbroker {

namespace {

int ConnectTo(const std::string& host, int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1 ||
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Copies bytes both ways until either side closes; then closes both.
void Relay(int client, int upstream) {
  pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
  char buffer[64 * 1024];
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    bool open = true;
    for (int i = 0; i < 2 && open; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = recv(fds[i].fd, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR) continue;
      open = n > 0 && SendAll(fds[1 - i].fd, buffer, static_cast<size_t>(n));
    }
    if (!open) break;
  }
  close(client);
  close(upstream);
}

}  // namespace

PortForwarder::~PortForwarder() {
  stopping_ = true;
  if (listen_fd_ >= 0) shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
}

bool PortForwarder::Start(int port, const std::string& target, std::string& error) {
  auto colon = target.rfind(':');
  if (colon == std::string::npos) {
    error = "bad relay target '" + target + "'";
    return false;
  }
  target_host_ = target.substr(0, colon);
  target_port_ = std::stoi(target.substr(colon + 1));
  int bound_port = 0;
  listen_fd_ = ListenOnLoopback(port, bound_port, error);
  if (listen_fd_ < 0) {
    error += " (is another broker already using it? choose another with --port)";
    return false;
  }
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return true;
}

void PortForwarder::AcceptLoop() {
  while (!stopping_) {
    int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // the listener was shut down
    }
    int upstream = ConnectTo(target_host_, target_port_);
    if (upstream < 0) {  // the broker behind us is down: refuse as it would
      close(client);
      continue;
    }
    // Relays end on their own when either side closes; they hold no state of ours.
    std::thread(Relay, client, upstream).detach();
  }
}

}  // namespace testbroker
