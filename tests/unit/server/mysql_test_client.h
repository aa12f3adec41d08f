#pragma once
// A minimal MySQL client over a raw socket, for the loopback tests: it speaks just enough of the protocol to log in,
// send commands and decode the replies, and lets a test send anything at all (garbage, oversized or split packets).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }

  bool SendRaw(std::string_view bytes) {
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
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      assembler_.Append(std::string_view(buf, static_cast<size_t>(n)));
    }
  }
  uint8_t last_seq() const { return last_seq_; }

  // True when the server closed the connection (EOF or reset) rather than sending more or timing out.
  bool ServerClosed() {
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET || errno == EPIPE;
    }
  }

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
    uint32_t capabilities = cap::kProtocol41 | cap::kSecureConnection | cap::kPluginAuth |
                            cap::kPluginAuthLenencClientData | cap::kDeprecateEof | cap::kMultiResults |
                            cap::kTransactions | cap::kLongPassword;
  };

  // Reads the greeting, sends the response (handling an auth switch); the server's final answer.
  std::optional<Packet> Login(const LoginOptions& o) {
    if (!ReadGreeting()) return std::nullopt;
    capabilities_ = o.capabilities;
    if (!o.database.empty()) capabilities_ |= cap::kConnectWithDb;
    std::string resp;
    PutU32(resp, capabilities_);
    PutU32(resp, 16u << 20);
    PutU8(resp, 45);
    resp.append(23, '\0');
    PutNulString(resp, o.user);
    // A plugin other than native gets garbage auth data here; the server must switch instead of checking it.
    std::string auth = o.plugin == "mysql_native_password" ? NativePasswordResponse(o.password, greeting_.scramble)
                                                           : std::string(32, 'x');
    if (capabilities_ & cap::kPluginAuthLenencClientData) {
      PutLenencString(resp, auth);
    } else {
      PutU8(resp, static_cast<uint8_t>(auth.size()));
      resp += auth;
    }
    if (capabilities_ & cap::kConnectWithDb) PutNulString(resp, o.database);
    PutNulString(resp, o.plugin);
    if (!SendPacket(resp, 1)) return std::nullopt;
    auto reply = ReadPacket();
    if (reply && !reply->payload.empty() && static_cast<uint8_t>(reply->payload[0]) == 0xfe) {
      // AuthSwitchRequest: plugin name, then the challenge.
      WireReader r(std::string_view(reply->payload).substr(1));
      std::string plugin(*r.NulString());
      std::string challenge(r.NulStringOrRest());
      switched_to_ = plugin;
      if (!SendPacket(NativePasswordResponse(o.password, challenge), static_cast<uint8_t>(reply->seq + 1))) {
        return std::nullopt;
      }
      reply = ReadPacket();
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
  uint32_t capabilities() const { return capabilities_; }

 private:
  int fd_ = -1;
  FrameAssembler assembler_{1u << 30};
  uint8_t last_seq_ = 0;
  Greeting greeting_;
  uint32_t capabilities_ = 0;
  std::string switched_to_;
};

}  // namespace sluice::server::test
