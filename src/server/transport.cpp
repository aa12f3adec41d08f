#include "server/transport.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "server/tls_transport.h"

namespace sluice::server {

Status SocketTransport::Wait(short events, Deadline deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Status::Timeout("timed out waiting for the client");
    pollfd p{fd_, events, 0};
    // poll() takes an int; wake at least every minute and recompute, so huge timeouts cannot overflow.
    int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 60'000)));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(fmt::format("poll failed: {}", std::strerror(errno)));
    }
    // POLLHUP/POLLERR: let the following recv/send report what happened.
    if (rc > 0) return Status::Ok();
  }
}

Result<size_t> SocketTransport::Read(char* buffer, size_t capacity, Deadline deadline) {
  for (;;) {
    ssize_t n = ::recv(fd_, buffer, capacity, MSG_DONTWAIT);
    if (n > 0) return static_cast<size_t>(n);
    if (n == 0) return Status::Unavailable("connection closed by the client");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      RETURN_IF_ERROR(Wait(POLLIN, deadline));
      continue;
    }
    return Status::IoError(fmt::format("read failed: {}", std::strerror(errno)));
  }
}

Status SocketTransport::Write(std::string_view data, Deadline deadline) {
  while (!data.empty()) {
    // MSG_NOSIGNAL: a client that went away must give EPIPE here, not a SIGPIPE that kills the server.
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      RETURN_IF_ERROR(Wait(POLLOUT, deadline));
      continue;
    }
    return Status::IoError(fmt::format("write failed: {}", n < 0 ? std::strerror(errno) : "no progress"));
  }
  return Status::Ok();
}

Result<std::unique_ptr<Transport>> Transport::StartTls(ssl_ctx_st*, std::string_view, Deadline) {
  return Status::NotSupported("this connection cannot do TLS");
}

Result<std::unique_ptr<Transport>> SocketTransport::StartTls(ssl_ctx_st* ctx, std::string_view received,
                                                             Deadline deadline) {
  auto tls = std::make_unique<TlsTransport>(fd_, ctx, received);
  RETURN_IF_ERROR(tls->Accept(deadline));
  return std::unique_ptr<Transport>(std::move(tls));
}

}  // namespace sluice::server
