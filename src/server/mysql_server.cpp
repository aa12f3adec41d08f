#include "server/mysql_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <exception>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "common/log.h"
#include "server/error_mapping.h"
#include "server/native_password.h"
#include "server/ok_err.h"
#include "server/packet_io.h"
#include "server/transport.h"

namespace sluice::server {

namespace {
std::string Errno() { return std::strerror(errno); }

void PeerAddress(const sockaddr_storage& addr, std::string* host, uint16_t* port) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    *port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
      inet_ntop(AF_INET, &a->sin6_addr.s6_addr[12], buf, sizeof buf);
    } else {
      inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    }
    *port = ntohs(a->sin6_port);
  }
  *host = buf;
}

// After an error reply, close gracefully: stop sending, then read what the client still sends (briefly).
// Closing a socket with unread input makes the kernel send a reset, which can destroy our ERR packet in
// flight before the client reads it.
void DrainBeforeClose(int fd) {
  ::shutdown(fd, SHUT_WR);
  char buf[4096];
  size_t drained = 0;
  auto deadline = Clock::now() + std::chrono::milliseconds(200);
  while (drained < 256 * 1024) {
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      drained += static_cast<size_t>(n);
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) return;
  }
}
}  // namespace

MysqlServer::MysqlServer(Options options, SessionFactory& sessions)
    : options_(std::move(options)), sessions_(sessions) {
  config_.server_version = options_.server_version;
  config_.authenticator = options_.authenticator;
  config_.tls = options_.tls != nullptr ? options_.tls->ssl_ctx() : nullptr;
  config_.require_secure_transport = options_.require_secure_transport;
  config_.stopping = &stopping_;
  config_.max_packet_bytes = options_.max_packet_bytes;
  config_.handshake_timeout = std::chrono::seconds(options_.handshake_timeout_s);
  config_.idle_timeout = std::chrono::seconds(options_.idle_timeout_s);
  config_.write_timeout = std::chrono::seconds(options_.write_timeout_s);
}

MysqlServer::~MysqlServer() { Stop(); }

Status MysqlServer::Start() {
  if (started_) return Status::InvalidArgument("the MySQL server is already started");
  if (options_.authenticator == nullptr) return Status::InvalidArgument("the MySQL server needs an authenticator");
  if (options_.require_secure_transport && options_.tls == nullptr) {
    return Status::InvalidArgument("require_secure_transport needs TLS: give the server a TLS context");
  }
  if (options_.max_connections == 0) return Status::InvalidArgument("max_connections must be at least 1");
  if (options_.max_unauthenticated_connections == 0) {
    return Status::InvalidArgument("max_unauthenticated_connections must be at least 1");
  }
  if (options_.max_packet_bytes < 1024) return Status::InvalidArgument("max_packet_bytes must be at least 1024");
  if (options_.idle_timeout_s <= 0 || options_.handshake_timeout_s <= 0 || options_.write_timeout_s <= 0) {
    return Status::InvalidArgument("MySQL server timeouts must be positive");
  }

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(options_.port);
  int gai = ::getaddrinfo(options_.bind.empty() ? nullptr : options_.bind.c_str(), port_text.c_str(), &hints, &found);
  if (gai != 0 || found == nullptr) {
    return Status::InvalidArgument(
        fmt::format("cannot resolve bind address '{}': {}", options_.bind, ::gai_strerror(gai)));
  }
  int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
  if (fd < 0) {
    ::freeaddrinfo(found);
    return Status::IoError(fmt::format("cannot create a socket: {}", Errno()));
  }
  // Lets a restarted server bind while old connections sit in TIME_WAIT; does not allow two live listeners.
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc = ::bind(fd, found->ai_addr, found->ai_addrlen);
  ::freeaddrinfo(found);
  if (rc != 0) {
    int err = errno;
    ::close(fd);
    if (err == EADDRINUSE) {
      return Status::Unavailable(fmt::format(
          "cannot listen on {}:{}: the port is already in use (is another server running? choose another port)",
          options_.bind, options_.port));
    }
    return Status::IoError(fmt::format("cannot bind {}:{}: {}", options_.bind, options_.port, std::strerror(err)));
  }
  if (::listen(fd, 511) != 0) {
    Status st = Status::IoError(fmt::format("cannot listen on {}:{}: {}", options_.bind, options_.port, Errno()));
    ::close(fd);
    return st;
  }
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len);
  std::string host;
  PeerAddress(local, &host, &port_);
  if (::pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    Status st = Status::IoError(fmt::format("cannot create a pipe: {}", Errno()));
    ::close(fd);
    return st;
  }
  listen_fd_ = fd;
  stopping_ = false;
  counters_.started = Clock::now();
  try {
    accept_thread_ = std::thread(&MysqlServer::AcceptLoop, this);
  } catch (const std::system_error& e) {
    ::close(listen_fd_);
    ::close(wake_pipe_[0]);
    ::close(wake_pipe_[1]);
    listen_fd_ = wake_pipe_[0] = wake_pipe_[1] = -1;
    return Status::Internal(fmt::format("cannot start the accept thread: {}", e.what()));
  }
  started_ = true;
  log::Info("server", "MySQL protocol listening on {}:{}", host, port_);
  return Status::Ok();
}

void MysqlServer::Stop() {
  if (!started_) return;
  started_ = false;
  stopping_ = true;
  char byte = 1;
  (void)!::write(wake_pipe_[1], &byte, 1);
  if (accept_thread_.joinable()) accept_thread_.join();
  ::close(listen_fd_);
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
  listen_fd_ = wake_pipe_[0] = wake_pipe_[1] = -1;

  std::unordered_map<uint32_t, std::unique_ptr<Worker>> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Wakes every connection blocked on its socket; each then ends and closes its descriptor.
    for (auto& [id, w] : workers_) {
      if (w->fd >= 0) ::shutdown(w->fd, SHUT_RDWR);
    }
    workers.swap(workers_);
    finished_.clear();
  }
  // A connection in the middle of a statement does not see its socket close: stop the statements too.
  sessions_.StopAllStatements();
  for (auto& [id, w] : workers) {
    if (w->thread.joinable()) w->thread.join();
  }
  log::Info("server", "MySQL protocol server on port {} stopped", port_);
}

size_t MysqlServer::active_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

size_t MysqlServer::logged_in_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return logged_in_;
}

std::optional<MysqlError> MysqlServer::Claim(uint32_t connection_id, const auth::AccountCredentials& account) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = workers_.find(connection_id);
  if (it == workers_.end() || it->second->evicted) {
    return MysqlError{er::kTooManyConnections, "08004", "Too many connections"};
  }
  Worker& w = *it->second;
  std::string key = account.user + "@" + account.host;
  // What this connection holds already (before COM_CHANGE_USER) does not count against itself.
  size_t others = logged_in_ - (w.logged_in ? 1 : 0);
  bool admin_slot = account.administrator && others < options_.max_connections + 1;
  if (others >= options_.max_connections && !admin_slot) {
    return MysqlError{er::kTooManyConnections, "08004", "Too many connections"};
  }
  if (account.max_user_connections > 0) {
    auto found = per_account_.find(key);
    size_t same = found == per_account_.end() ? 0 : found->second;
    if (w.logged_in && w.account_key == key) --same;
    if (same >= static_cast<size_t>(account.max_user_connections)) {
      return MysqlError{er::kTooManyUserConnections, "42000",
                        fmt::format("User {} already has more than 'max_user_connections' active connections",
                                    account.user)};
    }
  }
  if (w.logged_in) {
    if (--per_account_[w.account_key] == 0) per_account_.erase(w.account_key);
  } else {
    --unauthenticated_;
    ++logged_in_;
  }
  w.logged_in = true;
  w.account_key = std::move(key);
  ++per_account_[w.account_key];
  return std::nullopt;
}

void MysqlServer::EvictOldestUnauthenticatedLocked() {
  Worker* oldest = nullptr;
  for (auto& [id, w] : workers_) {
    if (w->logged_in || w->evicted || w->fd < 0) continue;
    if (oldest == nullptr || w->accepted < oldest->accepted) oldest = w.get();
  }
  if (oldest == nullptr) return;
  // Wakes its thread, which ends the connection and closes the descriptor.
  ::shutdown(oldest->fd, SHUT_RDWR);
  oldest->evicted = true;
  --unauthenticated_;
  if (evictions_++ % 1000 == 0) {
    log::Warn("server", "{} connections are logging in at once (max_unauthenticated_connections): closing the "
              "oldest to make room ({} so far)", options_.max_unauthenticated_connections, evictions_);
  }
}

void MysqlServer::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    // The timeout only bounds how long finished connection threads wait to be joined.
    int rc = ::poll(fds, 2, 1000);
    ReapFinished();
    if (stopping_ || (rc > 0 && fds[1].revents)) break;
    if (rc <= 0 || !(fds[0].revents & POLLIN)) continue;

    sockaddr_storage addr{};
    socklen_t addr_len = sizeof addr;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &addr_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors or memory: back off instead of spinning; connections that end free some.
        log::Warn("server", "cannot accept a connection: {}", Errno());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    std::string host;
    uint16_t peer_port = 0;
    PeerAddress(addr, &host, &peer_port);

    std::lock_guard<std::mutex> lock(mu_);
    // Threads are bounded whatever happens: logged-in ones by max_connections (+1), the others by their cap,
    // plus the evicted ones still winding down.
    size_t thread_cap = options_.max_connections + 1 + 2 * options_.max_unauthenticated_connections;
    if (active_ >= thread_cap) {
      log::Info("server", "refused a connection from {}:{}: too many connections ({})", host, peer_port, active_);
      Reject(fd);
      continue;
    }
    if (unauthenticated_ >= options_.max_unauthenticated_connections) EvictOldestUnauthenticatedLocked();
    auto worker = std::make_unique<Worker>();
    // Ids wrap after 2^32 connections; skip 0 (not a valid id) and ids still in use.
    while (next_id_ == 0 || workers_.count(next_id_)) ++next_id_;
    worker->id = next_id_++;
    worker->fd = fd;
    worker->accepted = accept_seq_++;
    try {
      // The new thread's last step takes mu_, which is held until the worker is registered below.
      worker->thread = std::thread(&MysqlServer::Serve, this, worker.get(), host, peer_port);
    } catch (const std::system_error& e) {
      log::Warn("server", "cannot start a connection thread: {}", e.what());
      Reject(fd);
      continue;
    }
    ++active_;
    ++unauthenticated_;
    counters_.connections.fetch_add(1, std::memory_order_relaxed);
    counters_.connections_total.fetch_add(1, std::memory_order_relaxed);
    workers_.emplace(worker->id, std::move(worker));
  }
}

void MysqlServer::Reject(int fd) {
  std::string frame;
  uint8_t seq = 0;
  AppendFrames(frame, EncodeErr(er::kTooManyConnections, "08004", "Too many connections"), &seq);
  (void)!::send(fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::close(fd);
}

void MysqlServer::Serve(Worker* worker, std::string peer_host, uint16_t peer_port) {
  log::Debug("server", "conn {}: opened from {}:{}", worker->id, peer_host, peer_port);
  bool drain = true;
  try {
    SocketTransport transport(worker->fd);
    Connection connection(transport, sessions_, config_, counters_, worker->id, peer_host, NewScramble(), this);
    connection.WatchSocket(worker->fd);
    drain = connection.Run();
  } catch (const std::exception& e) {
    // A bug below must cost one connection, not the server.
    log::Error("server", "conn {}: ended by an exception: {}", worker->id, e.what());
  }
  if (drain) DrainBeforeClose(worker->fd);
  log::Debug("server", "conn {}: closed", worker->id);
  std::lock_guard<std::mutex> lock(mu_);
  ::close(worker->fd);
  worker->fd = -1;
  finished_.push_back(worker->id);
  --active_;
  if (worker->logged_in) {
    --logged_in_;
    if (--per_account_[worker->account_key] == 0) per_account_.erase(worker->account_key);
  } else if (!worker->evicted) {
    --unauthenticated_;
  }
  counters_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void MysqlServer::ReapFinished() {
  std::vector<std::unique_ptr<Worker>> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint32_t id : finished_) {
      auto it = workers_.find(id);
      if (it == workers_.end()) continue;
      done.push_back(std::move(it->second));
      workers_.erase(it);
    }
    finished_.clear();
  }
  for (auto& w : done) {
    if (w->thread.joinable()) w->thread.join();
  }
}

}  // namespace sluice::server
