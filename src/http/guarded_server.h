#pragma once
// An httplib::Server whose connections are served by Sluice's own loop instead of the library's. cpp-httplib 0.11
// (Debian 12) bounds only each single read by its read timeout and never the whole request, does not bound the
// request line or the number of header lines, and reads (and throws away) a too-big body before answering 413 — so
// one client dribbling a byte per second holds a thread for ever, and the default pool has 8 threads. This loop
// reads through GuardedStream: every request must arrive whole within a deadline and a byte budget, the keep-alive
// wait is bounded, and a stop ends every connection within a fraction of a second. It also speaks TLS itself
// (OpenSSL) so HTTPS gets the same bounds. Requests still go through the library's parser and router
// (Server::process_request).
#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <string>

#include "common/status.h"
#include "http/http_server.h"

namespace sluice::http {

// Per connection, for the request being served: a handler sets close_after_response when it answers without
// reading the body (413), so the unread bytes are never parsed as a next request.
struct ConnectionControl {
  bool close_after_response = false;
};
// The connection served by the calling thread (null outside a connection).
ConnectionControl* CurrentConnection();

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(const HttpLimits& limits);
  ~GuardedServer() override;
  // Serves HTTPS from now on; the files are PEM (the certificate file may hold the chain).
  Status UseTls(const std::string& cert_file, const std::string& key_file);
  // After binding: the library listens with a backlog of 5, so a burst of connections (an attack, or just many
  // clients) leaves others waiting for SYN retransmits, a second and more. Linux lets listen() raise it.
  void WidenBacklog(int backlog);

 private:
  bool process_and_close_socket(socket_t sock) override;

  HttpLimits limits_;
  SSL_CTX* tls_ = nullptr;
};

}  // namespace sluice::http
