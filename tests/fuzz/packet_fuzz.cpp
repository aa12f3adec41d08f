// libFuzzer target for the MySQL front door: arbitrary bytes go to the packet decoders directly and, as a client's
// byte stream, through a whole Connection (greeting, handshake response, auth switch, command loop) over an
// in-memory transport with a canned session. Whatever the input, nothing may crash, hang or read out of bounds,
// and every byte the server writes must be well-formed frames.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "auth/static_root_authenticator.h"
#include "common/log.h"
#include "executor/session.h"
#include "server/command.h"
#include "server/connection.h"
#include "server/handshake.h"
#include "server/packet_io.h"
#include "server/protocol.h"
#include "server/result_encoder.h"
#include "server/wire.h"

namespace {

using namespace sluice;
using namespace sluice::server;

// Feeds the input in chunks of varying size (to exercise partial frames), then reports the peer gone.
class MemoryTransport : public Transport {
 public:
  explicit MemoryTransport(std::string_view input) : input_(input) {}
  Result<size_t> Read(char* buffer, size_t capacity, Deadline) override {
    if (input_.empty()) return Status::Unavailable("end of input");
    static constexpr size_t kChunks[] = {1, 3, 17, 256, 4096, 7};
    size_t n = std::min({capacity, input_.size(), kChunks[reads_++ % 6]});
    std::copy(input_.begin(), input_.begin() + static_cast<long>(n), buffer);
    input_.remove_prefix(n);
    return n;
  }
  Status Write(std::string_view data, Deadline) override {
    output_.Append(data);
    // Everything the server sends must frame cleanly.
    Packet p;
    for (;;) {
      auto r = output_.Next(&p);
      if (!r.ok()) abort();
      if (!*r) break;
    }
    return Status::Ok();
  }

 private:
  std::string_view input_;
  size_t reads_ = 0;
  FrameAssembler output_{1u << 30};
};

class CannedSession : public Session {
 public:
  Result<StatementResult> Execute(std::string_view statement) override {
    StatementResult r;
    if (statement.empty()) return r;
    switch (statement[0] % 4) {
      case 0: return Status::SyntaxError("canned syntax error");
      case 1: return Status::InvalidArgument("No database selected");
      case 2: r.affected_rows = statement.size(); r.info = "canned"; return r;
      default: break;
    }
    ResultSet rs;
    rs.AddColumn("text");
    rs.AddColumn("flag", ValueType::kBoolean);
    rs.AddColumn("n", ValueType::kDecimal);
    rs.rows.push_back({std::string(statement), std::string("true"), std::nullopt});
    rs.rows.push_back({std::nullopt});  // shorter than the column list
    r.result_set = std::move(rs);
    return r;
  }
  Status UseDatabase(std::string_view db) override {
    if (db.empty()) return Status::UnknownDatabase("Unknown database ''");
    db_ = std::string(db);
    return Status::Ok();
  }
  Result<ResultSet> FieldList(std::string_view table) override {
    if (table.empty()) return Status::UnknownTable("no table");
    ResultSet rs;
    rs.AddColumn(std::string(table), ValueType::kBigInt);
    return rs;
  }
  const std::string& current_database() const override { return db_; }
  uint32_t connection_id() const override { return 1; }

 private:
  std::string db_;
};

class CannedFactory : public SessionFactory {
 public:
  Result<std::unique_ptr<Session>> NewSession(uint32_t, std::string, std::string, std::string database) override {
    if (database == "missing") return Status::UnknownDatabase("Unknown database 'missing'");
    return std::unique_ptr<Session>(new CannedSession());
  }
};

void DecodeDirectly(std::string_view data) {
  (void)ParseHandshakeResponse(data);
  uint32_t caps = 0;
  if (data.size() >= 4) {
    caps = static_cast<uint32_t>(static_cast<uint8_t>(data[0])) |
           static_cast<uint32_t>(static_cast<uint8_t>(data[1])) << 8 |
           static_cast<uint32_t>(static_cast<uint8_t>(data[2])) << 16 |
           static_cast<uint32_t>(static_cast<uint8_t>(data[3])) << 24;
  }
  (void)ParseCommand(data, caps);
  (void)ParseCommand(data, cap::kServerDefault);

  WireReader r(data);
  while (!r.empty()) {
    auto s = r.LenencString();
    if (!s.ok()) {
      (void)r.NulStringOrRest();
    }
  }

  FrameAssembler frames(1 << 20);
  frames.Append(data);
  Packet p;
  for (int i = 0; i < 1000; ++i) {
    auto got = frames.Next(&p);
    if (!got.ok() || !*got) break;
    (void)ParseHandshakeResponse(p.payload);
    (void)ParseCommand(p.payload, cap::kServerDefault);
  }
}

void RunConnection(std::string_view data) {
  static CannedFactory factory;
  static auth::StaticRootAuthenticator root("");  // root without a password: the command loop is reachable
  static ConnectionConfig config = [] {
    ConnectionConfig c;
    c.authenticator = &root;
    c.max_packet_bytes = 1 << 20;  // small, so oversized packets are reachable
    return c;
  }();
  static ServerCounters counters;
  MemoryTransport transport(data);
  Connection connection(transport, factory, config, counters, 7, "fuzz", "abcdefghijklmnopqrst");
  (void)connection.Run();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sluice::log::SetLevel(sluice::log::Level::kError);  // auth failures log at info: keep the fuzzer quiet
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  DecodeDirectly(data);
  RunConnection(data);
  return 0;
}
