#pragma once
// A minimal MySQL client over a raw socket, for the loopback tests: it speaks just enough of the protocol to log in,
// send commands and decode the replies, and lets a test send anything at all (garbage, oversized or split packets).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/caching_sha2_password.h"
#include "server/native_password.h"
#include "server/packet_io.h"
#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server::test {

struct Greeting {
  uint8_t protocol = 0;
  std::string version;
  uint32_t connection_id = 0;
  std::string scramble;
  uint32_t capabilities = 0;
  uint16_t status = 0;
  std::string plugin;
};

struct Err {
  uint16_t code = 0;
  std::string sqlstate;
  std::string message;
};

struct ResultData {
  bool is_ok = false;  // OK packet instead of a result set
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t status = 0;
  uint16_t warnings = 0;
  std::string info;
  std::vector<std::string> column_names;
  std::vector<uint8_t> column_types;
  std::vector<uint16_t> column_charsets;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

// What a command produced: results in order, then possibly an error that ended the chain.
struct Response {
  std::vector<ResultData> results;
  std::optional<Err> err;
  bool io_error = false;  // the connection broke
};

inline Err ParseErr(std::string_view p) {
  Err e;
  WireReader r2(p.substr(1));
  e.code = *r2.U16();
  if (!r2.empty() && r2.Peek() == '#') {
    (void)r2.U8();
    e.sqlstate = std::string(*r2.Bytes(5));
  }
  e.message = std::string(r2.Rest());
  return e;
}

inline void ParseOk(std::string_view p, ResultData* d) {
  WireReader r(p);
  (void)r.U8();
  d->is_ok = true;
  d->affected_rows = *r.LenencInt();
  d->last_insert_id = *r.LenencInt();
  d->status = *r.U16();
  d->warnings = *r.U16();
  if (!r.empty()) d->info = std::string(*r.LenencString());
}

class TestClient {
 public:
  TestClient() = default;
  TestClient(const TestClient&) = delete;
  ~TestClient() { Close(); }

  static constexpr uint32_t kDefaultCapabilities = cap::kProtocol41 | cap::kSecureConnection | cap::kPluginAuth |
                                                   cap::kPluginAuthLenencClientData | cap::kDeprecateEof |
                                                   cap::kMultiResults | cap::kTransactions | cap::kLongPassword;

  bool Connect(uint16_t port, int timeout_ms = 5000) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }

  void Close() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    ssl_ = nullptr;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }

  bool SendRaw(std::string_view bytes) {
    if (ssl_ != nullptr) {
      while (!bytes.empty()) {
        int n = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
        if (n <= 0 || !SendTlsOutput()) return false;
        bytes.remove_prefix(static_cast<size_t>(n));
      }
      return true;
    }
    return SendPlain(bytes);
  }
  bool SendPlain(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  bool SendPacket(std::string_view payload, uint8_t seq) {
    std::string frames;
    AppendFrames(frames, payload, &seq);
    return SendRaw(frames);
  }
  bool SendCommand(CommandCode code, std::string_view body = {}) {
    std::string p(1, static_cast<char>(code));
    p.append(body);
    return SendPacket(p, 0);
  }

  // The next packet, or nullopt when the connection closed, broke or timed out.
  std::optional<Packet> ReadPacket() {
    Packet p;
    for (;;) {
      auto complete = assembler_.Next(&p);
      if (!complete.ok()) return std::nullopt;
      if (*complete) {
        last_seq_ = p.seq;
        return p;
      }
      char buf[65536];
      ssize_t n = Receive(buf, sizeof buf);
      if (n <= 0) return std::nullopt;
      assembler_.Append(std::string_view(buf, static_cast<size_t>(n)));
    }
  }
  uint8_t last_seq() const { return last_seq_; }

  // True when the server closed the connection (EOF or reset) rather than sending more or timing out.
  bool ServerClosed() {
    char buf[4096];
    for (;;) {
      ssize_t n = Receive(buf, sizeof buf);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET || errno == EPIPE;
    }
  }

  // Sends the SSLRequest and does the client side of the TLS handshake, checking the server's certificate
  // against the CA in `ctx` and `host`. The SSLRequest and the TLS hello go out in one write, as the server
  // must handle (clients do not wait between them). After this, everything is encrypted.
  bool StartTls(SSL_CTX* ctx, const std::string& host = "127.0.0.1") {
    std::string req;
    if (capabilities_ == 0) capabilities_ = kDefaultCapabilities;
    PutU32(req, capabilities_ | cap::kSsl);
    PutU32(req, 16u << 20);
    PutU8(req, 45);
    req.append(23, '\0');
    std::string wire;
    uint8_t seq = 1;
    AppendFrames(wire, req, &seq);
    ssl_ = SSL_new(ctx);
    in_ = BIO_new(BIO_s_mem());
    out_ = BIO_new(BIO_s_mem());
    BIO_set_mem_eof_return(in_, -1);
    SSL_set_bio(ssl_, in_, out_);
    SSL_set_connect_state(ssl_);
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) != 1) {
      X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
      SSL_set_tlsext_host_name(ssl_, host.c_str());
    }
    int rc = SSL_do_handshake(ssl_);  // writes the hello, then wants the server's answer
    wire += TakeTlsOutput();
    if (!SendPlain(wire)) return false;
    while (rc != 1) {
      int err = SSL_get_error(ssl_, rc);
      if (err != SSL_ERROR_WANT_READ || !ReceiveTlsInput()) {
        tls_error_ = ERR_error_string(ERR_get_error(), nullptr);
        return false;
      }
      rc = SSL_do_handshake(ssl_);
      if (!SendTlsOutput()) return false;
    }
    return true;
  }
  std::string TlsVersion() const { return ssl_ ? SSL_get_version(ssl_) : ""; }
  const std::string& tls_error() const { return tls_error_; }

  std::optional<Greeting> ReadGreeting() {
    auto p = ReadPacket();
    if (!p) return std::nullopt;
    WireReader r(p->payload);
    Greeting g;
    g.protocol = *r.U8();
    if (g.protocol != 10) return std::nullopt;
    g.version = std::string(*r.NulString());
    g.connection_id = *r.U32();
    g.scramble = std::string(*r.Bytes(8));
    (void)r.U8();
    g.capabilities = *r.U16();
    (void)r.U8();
    g.status = *r.U16();
    g.capabilities |= static_cast<uint32_t>(*r.U16()) << 16;
    uint8_t auth_len = *r.U8();
    (void)r.Skip(10);
    size_t part2 = auth_len > 8 ? auth_len - 8 : 13;
    std::string rest(*r.Bytes(part2));
    g.scramble += rest.substr(0, rest.find('\0'));
    g.plugin = std::string(*r.NulString());
    greeting_ = g;
    return g;
  }

  struct LoginOptions {
    std::string user = "root";
    std::string password;
    std::string database;
    std::string plugin = "mysql_native_password";
    uint32_t capabilities = kDefaultCapabilities;
    SSL_CTX* tls = nullptr;  // set: log in over TLS, verifying the server with this context's CA
  };

  static std::string AuthResponse(std::string_view plugin, std::string_view password, std::string_view nonce) {
    if (plugin == "mysql_native_password") return NativePasswordResponse(password, nonce);
    if (plugin == "caching_sha2_password") return CachingSha2Response(password, nonce);
    return std::string(32, 'x');  // a plugin the server does not know: it must switch instead of checking this
  }

  // Reads the greeting, sends the response (handling an auth switch and caching_sha2_password's extra round
  // trips); the server's final answer. Over plain TCP a request for full authentication is returned as is.
  std::optional<Packet> Login(const LoginOptions& o) {
    if (!ReadGreeting()) return std::nullopt;
    capabilities_ = o.capabilities;
    if (!o.database.empty()) capabilities_ |= cap::kConnectWithDb;
    uint8_t seq = 1;
    if (o.tls != nullptr) {
      capabilities_ |= cap::kSsl;
      if (!StartTls(o.tls)) return std::nullopt;
      seq = 2;
    }
    std::string resp;
    PutU32(resp, capabilities_);
    PutU32(resp, 16u << 20);
    PutU8(resp, 45);
    resp.append(23, '\0');
    PutNulString(resp, o.user);
    std::string auth = AuthResponse(o.plugin, o.password, greeting_.scramble);
    if (capabilities_ & cap::kPluginAuthLenencClientData) {
      PutLenencString(resp, auth);
    } else {
      PutU8(resp, static_cast<uint8_t>(auth.size()));
      resp += auth;
    }
    if (capabilities_ & cap::kConnectWithDb) PutNulString(resp, o.database);
    PutNulString(resp, o.plugin);
    if (!SendPacket(resp, seq)) return std::nullopt;
    return FinishAuth(o.password);
  }

  // Follows the server's auth switches and AuthMoreData packets until OK or ERR (or a full-auth request
  // without TLS).
  std::optional<Packet> FinishAuth(std::string_view password) {
    auto reply = ReadPacket();
    for (int round = 0; reply && round < 4; ++round) {
      if (reply->payload.empty()) return reply;
      auto first = static_cast<uint8_t>(reply->payload[0]);
      auto next = static_cast<uint8_t>(reply->seq + 1);
      if (first == 0xfe) {
        // AuthSwitchRequest: plugin name, then the challenge.
        WireReader r(std::string_view(reply->payload).substr(1));
        std::string plugin(*r.NulString());
        std::string challenge(r.NulStringOrRest());
        switched_to_ = plugin;
        if (!SendPacket(AuthResponse(plugin, password, challenge), next)) return std::nullopt;
        reply = ReadPacket();
      } else if (first == kAuthMoreData && reply->payload.size() == 2) {
        auto what = static_cast<uint8_t>(reply->payload[1]);
        if (what == kFastAuthSuccess) {
          fast_auth_ = true;
          reply = ReadPacket();
        } else if (what == kPerformFullAuthentication) {
          full_auth_requested_ = true;
          if (ssl_ == nullptr) return reply;
          std::string cleartext(password);
          cleartext.push_back('\0');
          if (!SendPacket(cleartext, next)) return std::nullopt;
          reply = ReadPacket();
        } else {
          return reply;
        }
      } else {
        return reply;
      }
    }
    return reply;
  }

  // Logs in and expects OK.
  bool LoginOk(const LoginOptions& o) {
    auto p = Login(o);
    return p && !p->payload.empty() && p->payload[0] == 0x00;
  }
  bool LoginOk() { return LoginOk(LoginOptions{}); }

  // Reads every result of a command.
  Response ReadResponse() {
    Response resp;
    for (;;) {
      auto p = ReadPacket();
      if (!p || p->payload.empty()) {
        resp.io_error = true;
        return resp;
      }
      auto first = static_cast<uint8_t>(p->payload[0]);
      ResultData d;
      if (first == 0xff) {
        resp.err = ParseErr(p->payload);
        return resp;
      }
      if (first == 0x00) {
        ParseOk(p->payload, &d);
      } else {
        WireReader cr(p->payload);
        uint64_t ncols = *cr.LenencInt();
        for (uint64_t i = 0; i < ncols; ++i) {
          auto def = ReadPacket();
          if (!def) {
            resp.io_error = true;
            return resp;
          }
          WireReader r(def->payload);
          for (int k = 0; k < 4; ++k) (void)r.LenencString();
          d.column_names.emplace_back(*r.LenencString());
          (void)r.LenencString();
          (void)r.LenencInt();
          d.column_charsets.push_back(*r.U16());
          (void)r.U32();
          d.column_types.push_back(*r.U8());
        }
        if (!(capabilities_ & cap::kDeprecateEof)) {
          auto eof = ReadPacket();
          if (!eof || static_cast<uint8_t>(eof->payload[0]) != 0xfe) {
            resp.io_error = true;
            return resp;
          }
        }
        for (;;) {
          auto row = ReadPacket();
          if (!row) {
            resp.io_error = true;
            return resp;
          }
          auto h = static_cast<uint8_t>(row->payload[0]);
          if (h == 0xff) {
            resp.err = ParseErr(row->payload);
            return resp;
          }
          if (h == 0xfe && row->payload.size() < 0xffffff) {
            if (capabilities_ & cap::kDeprecateEof) {
              ParseOk(row->payload, &d);
              d.is_ok = false;
            } else {
              WireReader r(std::string_view(row->payload).substr(1));
              d.warnings = *r.U16();
              d.status = *r.U16();
            }
            break;
          }
          WireReader r(row->payload);
          std::vector<std::optional<std::string>> values;
          for (uint64_t i = 0; i < ncols; ++i) {
            if (r.Peek() == 0xfb) {
              (void)r.U8();
              values.emplace_back(std::nullopt);
            } else {
              values.emplace_back(std::string(*r.LenencString()));
            }
          }
          d.rows.push_back(std::move(values));
        }
      }
      bool more = d.status & status_flag::kMoreResultsExist;
      resp.results.push_back(std::move(d));
      if (!more) return resp;
    }
  }

  Response Query(std::string_view sql) {
    if (!SendCommand(CommandCode::kQuery, sql)) return Response{{}, std::nullopt, true};
    return ReadResponse();
  }

  const Greeting& greeting() const { return greeting_; }
  const std::string& switched_to() const { return switched_to_; }
  bool fast_auth() const { return fast_auth_; }
  bool full_auth_requested() const { return full_auth_requested_; }
  uint32_t capabilities() const { return capabilities_; }

 private:
  std::string TakeTlsOutput() {
    std::string out;
    char buf[16384];
    int n;
    while ((n = BIO_read(out_, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }
  bool SendTlsOutput() { return SendPlain(TakeTlsOutput()); }
  bool ReceiveTlsInput() {
    char buf[16384];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    BIO_write(in_, buf, static_cast<int>(n));
    return true;
  }
  // recv(), through TLS once it started: > 0 bytes, 0 at the end of the stream, < 0 on error or timeout.
  ssize_t Receive(char* buf, size_t size) {
    if (ssl_ == nullptr) return ::recv(fd_, buf, size, 0);
    for (;;) {
      int n = SSL_read(ssl_, buf, static_cast<int>(size));
      if (n > 0) return n;
      int err = SSL_get_error(ssl_, n);
      if (err == SSL_ERROR_ZERO_RETURN) return 0;
      if (err != SSL_ERROR_WANT_READ) return -1;
      char raw[16384];
      ssize_t got = ::recv(fd_, raw, sizeof raw, 0);
      if (got <= 0) return got;
      BIO_write(in_, raw, static_cast<int>(got));
    }
  }

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  BIO* in_ = nullptr;   // owned by ssl_
  BIO* out_ = nullptr;  // owned by ssl_
  std::string tls_error_;
  bool fast_auth_ = false;
  bool full_auth_requested_ = false;
  FrameAssembler assembler_{1u << 30};
  uint8_t last_seq_ = 0;
  Greeting greeting_;
  uint32_t capabilities_ = 0;
  std::string switched_to_;
};

}  // namespace sluice::server::test
