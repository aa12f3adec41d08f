#include "server/tls_transport.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <climits>

#include <fmt/format.h>

namespace sluice::server {

namespace {
std::string TakeErrors() {
  std::string out;
  while (unsigned long code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "no detail" : out;
}
}  // namespace

TlsTransport::TlsTransport(int fd, SSL_CTX* ctx, std::string_view received) : socket_(fd) {
  ssl_ = SSL_new(ctx);
  in_ = BIO_new(BIO_s_mem());
  out_ = BIO_new(BIO_s_mem());
  if (ssl_ == nullptr || in_ == nullptr || out_ == nullptr) return;  // Accept() reports it
  // An empty incoming buffer means "wait for more", not end of stream.
  BIO_set_mem_eof_return(in_, -1);
  SSL_set_bio(ssl_, in_, out_);
  SSL_set_accept_state(ssl_);
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE);
  if (!received.empty()) BIO_write(in_, received.data(), static_cast<int>(received.size()));
}

TlsTransport::~TlsTransport() {
  if (ssl_ != nullptr && SSL_is_init_finished(ssl_)) {
    // Best effort close_notify: tells the client the end is intended, not a truncation.
    SSL_shutdown(ssl_);
    (void)SendPending(Clock::now() + std::chrono::milliseconds(100));
  }
  if (ssl_ != nullptr) {
    SSL_free(ssl_);  // frees both memory buffers
  } else {
    BIO_free(in_);
    BIO_free(out_);
  }
  ERR_clear_error();
}

Status TlsTransport::SendPending(Deadline deadline) {
  char buf[16 * 1024];
  while (BIO_ctrl_pending(out_) > 0) {
    int n = BIO_read(out_, buf, sizeof buf);
    if (n <= 0) break;
    RETURN_IF_ERROR(socket_.Write(std::string_view(buf, static_cast<size_t>(n)), deadline));
  }
  return Status::Ok();
}

Status TlsTransport::ReceiveMore(Deadline deadline) {
  char buf[16 * 1024];
  ASSIGN_OR_RETURN(size_t n, socket_.Read(buf, sizeof buf, deadline));
  if (BIO_write(in_, buf, static_cast<int>(n)) != static_cast<int>(n)) {
    return Status::Internal("cannot buffer received TLS bytes");
  }
  return Status::Ok();
}

Status TlsTransport::Accept(Deadline deadline) {
  if (ssl_ == nullptr || in_ == nullptr || out_ == nullptr) {
    return Status::Internal(fmt::format("cannot start TLS: {}", TakeErrors()));
  }
  ERR_clear_error();
  for (;;) {
    int rc = SSL_do_handshake(ssl_);
    int err = rc == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl_, rc);
    // Whatever OpenSSL wrote goes out, the alert of a failed handshake included.
    Status sent = SendPending(deadline);
    if (rc == 1) return sent;
    RETURN_IF_ERROR(sent);
    if (err == SSL_ERROR_WANT_READ) {
      RETURN_IF_ERROR(ReceiveMore(deadline));
      continue;
    }
    return Status::AccessDenied(fmt::format("TLS handshake failed: {}", TakeErrors()));
  }
}

Result<size_t> TlsTransport::Read(char* buffer, size_t capacity, Deadline deadline) {
  int want = static_cast<int>(capacity > INT_MAX ? INT_MAX : capacity);
  for (;;) {
    int n = SSL_read(ssl_, buffer, want);
    int err = n > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_, n);
    RETURN_IF_ERROR(SendPending(deadline));
    if (n > 0) return static_cast<size_t>(n);
    switch (err) {
      case SSL_ERROR_WANT_READ:
        RETURN_IF_ERROR(ReceiveMore(deadline));
        continue;
      case SSL_ERROR_ZERO_RETURN:
        return Status::Unavailable("connection closed by the client");
      default:
        return Status::IoError(fmt::format("TLS read failed: {}", TakeErrors()));
    }
  }
}

Status TlsTransport::Write(std::string_view data, Deadline deadline) {
  while (!data.empty()) {
    int chunk = static_cast<int>(data.size() > INT_MAX ? INT_MAX : data.size());
    int n = SSL_write(ssl_, data.data(), chunk);
    int err = n > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_, n);
    // Encrypted bytes go out as they are made: the outgoing buffer never holds more than one write's worth.
    RETURN_IF_ERROR(SendPending(deadline));
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (err == SSL_ERROR_WANT_READ) {
      RETURN_IF_ERROR(ReceiveMore(deadline));
      continue;
    }
    return Status::IoError(fmt::format("TLS write failed: {}", TakeErrors()));
  }
  return Status::Ok();
}

std::string TlsTransport::TlsDescription() const {
  if (ssl_ == nullptr || !SSL_is_init_finished(ssl_)) return {};
  return fmt::format("{} {}", SSL_get_version(ssl_), SSL_get_cipher_name(ssl_));
}

}  // namespace sluice::server
