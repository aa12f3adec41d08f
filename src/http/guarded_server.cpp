#include "http/guarded_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "http/connection_pool.h"

namespace sluice::http {

namespace {

using Clock = std::chrono::steady_clock;
// Waits are cut into slices this long so a stopping server is noticed quickly.
constexpr std::chrono::milliseconds kSlice{200};

thread_local ConnectionControl* tl_connection = nullptr;

std::string AddressText(const sockaddr_storage& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    port = ntohs(a->sin6_port);
  }
  return text;
}

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// One connection's socket (and TLS session), read through a buffer, with a deadline and a byte budget per request.
class GuardedStream : public httplib::Stream {
 public:
  GuardedStream(int fd, SSL* ssl, const std::atomic<socket_t>& listener, const HttpLimits& limits)
      : fd_(fd), ssl_(ssl), listener_(listener), limits_(limits) {}

  // Starts the budget of the next request: it must arrive whole, within the request timeout, in this many bytes.
  void BeginRequest() {
    read_deadline_ = Clock::now() + limits_.request_timeout;
    read_budget_ = limits_.max_header_bytes + limits_.max_body_bytes;
  }

  // Waits for the first byte of a next request, at most the keep-alive timeout.
  bool WaitForRequest() {
    if (begin_ < end_ || (ssl_ && SSL_pending(ssl_) > 0)) return true;
    return WaitFor(POLLIN, Clock::now() + limits_.idle_timeout);
  }

  // TLS handshake, bounded by the request timeout like a request.
  bool Handshake() {
    auto deadline = Clock::now() + limits_.request_timeout;
    for (;;) {
      int r = SSL_accept(ssl_);
      if (r == 1) return true;
      int err = SSL_get_error(ssl_, r);
      if (err == SSL_ERROR_WANT_READ) {
        if (!WaitFor(POLLIN, deadline)) return false;
      } else if (err == SSL_ERROR_WANT_WRITE) {
        if (!WaitFor(POLLOUT, deadline)) return false;
      } else {
        log::Debug("http", "TLS handshake failed: {}", OpenSslError());
        return false;
      }
    }
  }

  bool is_readable() const override { return begin_ < end_ || (ssl_ && SSL_pending(ssl_) > 0); }
  bool is_writable() const override {
    pollfd p{fd_, POLLOUT, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & POLLOUT);
  }

  ssize_t read(char* ptr, size_t size) override {
    if (size == 0) return 0;
    if (read_budget_ == 0) {
      if (!failed_) log::Debug("http", "request from {} is larger than the limit: connection dropped", Peer());
      failed_ = true;
      return -1;
    }
    if (begin_ == end_ && !Fill()) {
      failed_ = true;
      return -1;
    }
    size_t n = std::min({size, end_ - begin_, read_budget_});
    std::copy(buf_ + begin_, buf_ + begin_ + n, ptr);
    begin_ += n;
    read_budget_ -= n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    size_t done = 0;
    while (done < size) {
      auto deadline = Clock::now() + limits_.write_timeout;
      ssize_t n;
      if (ssl_) {
        int r = SSL_write(ssl_, ptr + done, static_cast<int>(std::min<size_t>(size - done, 1 << 30)));
        if (r > 0) {
          n = r;
        } else {
          int err = SSL_get_error(ssl_, r);
          if (err == SSL_ERROR_WANT_WRITE && WaitFor(POLLOUT, deadline)) continue;
          if (err == SSL_ERROR_WANT_READ && WaitFor(POLLIN, deadline)) continue;
          return -1;
        }
      } else {
        n = ::send(fd_, ptr + done, size - done, MSG_NOSIGNAL);
        if (n < 0) {
          if ((errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) && WaitFor(POLLOUT, deadline)) continue;
          return -1;
        }
      }
      done += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    port = 0;
    ip = getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0 ? AddressText(addr, port) : "";
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    port = 0;
    ip = getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0 ? AddressText(addr, port) : "";
  }
  socket_t socket() const override { return fd_; }

  // A read failed (end of stream, deadline, budget, stop): whatever the library answered, the connection is done —
  // the rest of a request that broke off must never be parsed as a next one.
  bool failed() const { return failed_; }

 private:
  std::string Peer() const {
    std::string ip;
    int port = 0;
    get_remote_ip_and_port(ip, port);
    return ip;
  }

  // Waits until the socket is ready for `events`, the deadline passes (false) or the server stops (false).
  bool WaitFor(short events, Clock::time_point deadline) {
    for (;;) {
      if (listener_ == INVALID_SOCKET) return false;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, events, 0};
      int r = ::poll(&p, 1, static_cast<int>(std::min(left, kSlice).count()));
      if (r > 0) return true;  // ready, or an error/hang-up the next read or write reports
      if (r < 0 && errno != EINTR) return false;
    }
  }

  // Reads what the socket has into the buffer; false on end of stream, error, stop or the request deadline.
  bool Fill() {
    begin_ = end_ = 0;
    for (;;) {
      if (ssl_) {
        int r = SSL_read(ssl_, buf_, sizeof(buf_));
        if (r > 0) {
          end_ = static_cast<size_t>(r);
          return true;
        }
        int err = SSL_get_error(ssl_, r);
        if (err == SSL_ERROR_WANT_READ && WaitFor(POLLIN, read_deadline_)) continue;
        if (err == SSL_ERROR_WANT_WRITE && WaitFor(POLLOUT, read_deadline_)) continue;
        return false;
      }
      ssize_t n = ::recv(fd_, buf_, sizeof(buf_), 0);
      if (n > 0) {
        end_ = static_cast<size_t>(n);
        return true;
      }
      if (n == 0) return false;
      if ((errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) && WaitFor(POLLIN, read_deadline_)) continue;
      if (Clock::now() >= read_deadline_ && !deadline_logged_) {
        deadline_logged_ = true;
        log::Debug("http", "request from {} did not arrive within {} ms: connection dropped", Peer(),
                   limits_.request_timeout.count());
      }
      return false;
    }
  }

  int fd_;
  SSL* ssl_;
  const std::atomic<socket_t>& listener_;
  const HttpLimits& limits_;
  char buf_[4096];
  size_t begin_ = 0, end_ = 0;
  Clock::time_point read_deadline_{};
  size_t read_budget_ = 0;
  bool failed_ = false;
  bool deadline_logged_ = false;
};

}  // namespace

ConnectionControl* CurrentConnection() { return tl_connection; }

GuardedServer::GuardedServer(const HttpLimits& limits) : limits_(limits) {
  size_t max_threads = std::max<size_t>(limits_.max_threads, 2);
  new_task_queue = [max_threads] { return new ConnectionPool(max_threads); };
  set_payload_max_length(limits_.max_body_bytes);
  set_keep_alive_max_count(std::max<size_t>(limits_.max_requests_per_connection, 1));
  // Only announced in the Keep-Alive header: the loop below does the waiting.
  auto idle_seconds = std::chrono::duration_cast<std::chrono::seconds>(limits_.idle_timeout).count();
  set_keep_alive_timeout(std::max<time_t>(1, idle_seconds));
}

GuardedServer::~GuardedServer() {
  if (tls_) SSL_CTX_free(tls_);
}

Status GuardedServer::UseTls(const std::string& cert_file, const std::string& key_file) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return Status::IoError("cannot set up TLS for the HTTP port: " + OpenSslError());
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    std::string why = OpenSslError();
    SSL_CTX_free(ctx);
    return Status::InvalidArgument("cannot load the TLS certificate " + cert_file + " for the HTTP port (" + why +
                                   "): give a PEM certificate with --tls-cert");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    std::string why = OpenSslError();
    SSL_CTX_free(ctx);
    return Status::InvalidArgument("cannot load the TLS key " + key_file + " for the HTTP port (" + why +
                                   "): give the PEM key of the certificate with --tls-key");
  }
  if (tls_) SSL_CTX_free(tls_);
  tls_ = ctx;
  return Status::Ok();
}

void GuardedServer::WidenBacklog(int backlog) {
  socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET && ::listen(sock, backlog) != 0)
    log::Warn("http", "cannot raise the listen backlog to {}: {}", backlog, std::strerror(errno));
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  // Non-blocking: every wait is a poll against a deadline, never a blocking read the library's timeouts would bound.
  int flags = fcntl(sock, F_GETFL, 0);
  fcntl(sock, F_SETFL, flags | O_NONBLOCK);
  SSL* ssl = nullptr;
  if (tls_) {
    ssl = SSL_new(tls_);
    if (ssl) SSL_set_fd(ssl, sock);
  }
  GuardedStream stream(sock, ssl, svr_sock_, limits_);
  bool ok = !tls_ || (ssl && stream.Handshake());
  ConnectionControl control;
  tl_connection = &control;
  for (size_t left = std::max<size_t>(limits_.max_requests_per_connection, 1); ok && left > 0; --left) {
    if (svr_sock_ == INVALID_SOCKET || !stream.WaitForRequest()) break;
    stream.BeginRequest();
    control.close_after_response = false;
    bool closed = false;
    ok = process_request(stream, left == 1, closed, nullptr);
    if (closed || control.close_after_response || stream.failed()) break;
  }
  tl_connection = nullptr;
  if (ssl) {
    if (ok) SSL_shutdown(ssl);  // best effort close_notify; the socket is non-blocking, so this never waits
    SSL_free(ssl);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace sluice::http
