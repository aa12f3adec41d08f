#pragma once
// TLS over a non-blocking socket, with the same deadlines as SocketTransport. OpenSSL reads and writes memory
// buffers only; this class moves the bytes between them and the socket itself, so every wait honours the
// caller's deadline, a vanished client gives EPIPE rather than SIGPIPE, and bytes read before the handshake
// (the client's hello, which can arrive together with its SSLRequest) are handed to OpenSSL first.
#include <string>
#include <string_view>

#include "common/status.h"
#include "server/transport.h"

struct ssl_st;
struct bio_st;

namespace sluice::server {

class TlsTransport final : public Transport {
 public:
  // Does not own `fd` (the server closes it). `received`: bytes of the TLS stream already read off the socket.
  TlsTransport(int fd, ssl_ctx_st* ctx, std::string_view received);
  ~TlsTransport() override;
  TlsTransport(const TlsTransport&) = delete;
  TlsTransport& operator=(const TlsTransport&) = delete;

  // The server side of the handshake. Fails with kTimeout at the deadline, kUnavailable when the client hung
  // up, kAccessDenied when the handshake itself failed (the client does not trust the certificate, no common
  // protocol version); the alert saying so has been sent to the client.
  Status Accept(Deadline deadline);

  Result<size_t> Read(char* buffer, size_t capacity, Deadline deadline) override;
  Status Write(std::string_view data, Deadline deadline) override;
  std::string TlsDescription() const override;

 private:
  // Sends what OpenSSL has written into its outgoing buffer.
  Status SendPending(Deadline deadline);
  // Reads once from the socket into OpenSSL's incoming buffer.
  Status ReceiveMore(Deadline deadline);

  SocketTransport socket_;
  ssl_st* ssl_ = nullptr;
  bio_st* in_ = nullptr;   // owned by ssl_
  bio_st* out_ = nullptr;  // owned by ssl_
};

}  // namespace sluice::server
