#pragma once
// Bytes in and out of one client connection, with deadlines. The protocol code talks to this interface rather than
// to a socket so that tests and the fuzzer can drive a whole connection from memory.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace sluice::server {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

class Transport {
 public:
  virtual ~Transport() = default;
  // Reads between 1 and `capacity` bytes. Fails with kUnavailable when the peer closed the connection,
  // kTimeout when nothing arrived before `deadline`, kIoError on any other failure.
  virtual Result<size_t> Read(char* buffer, size_t capacity, Deadline deadline) = 0;
  // Writes all of `data` or fails (kTimeout when the peer stopped reading, kIoError when it went away).
  virtual Status Write(std::string_view data, Deadline deadline) = 0;

  // Accepts a TLS handshake on this connection (after the client's SSLRequest) and returns the transport the
  // connection goes on with. `received`: bytes already read past the SSLRequest -- the start of the client's
  // TLS hello, which clients send without waiting. Transports that cannot do TLS fail with kNotSupported.
  virtual Result<std::unique_ptr<Transport>> StartTls(ssl_ctx_st* ctx, std::string_view received, Deadline deadline);
  // The protocol and cipher ("TLSv1.3 TLS_AES_256_GCM_SHA384") when the bytes are encrypted, else empty.
  virtual std::string TlsDescription() const { return {}; }
};

// A non-blocking TCP socket. Does not own the descriptor: the server closes it, so that Stop() can shut down a
// descriptor without racing against its reuse.
class SocketTransport final : public Transport {
 public:
  explicit SocketTransport(int fd) : fd_(fd) {}
  Result<size_t> Read(char* buffer, size_t capacity, Deadline deadline) override;
  Status Write(std::string_view data, Deadline deadline) override;
  Result<std::unique_ptr<Transport>> StartTls(ssl_ctx_st* ctx, std::string_view received, Deadline deadline) override;

 private:
  // Waits until the socket is readable (POLLIN) or writable (POLLOUT), or the deadline passes.
  Status Wait(short events, Deadline deadline);
  int fd_;
};

}  // namespace sluice::server
