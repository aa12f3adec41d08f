#pragma once
// Where the server may connect on behalf of a statement: Kafka brokers (routine loads, pipes, READ_KAFKA), schema
// registries, S3 endpoints of storage connections and external catalogs, and JDBC catalog databases. A user allowed
// to create those objects names the host and port, so without a limit the server would connect wherever they say
// (a request forgery and port scan from inside the operator's network). The operator sets the allow list with
// `sluice serve --allow-egress 'kafka.internal:9092,10.0.0.0/8:9092,*.s3.amazonaws.com:443'`; without it, egress
// is unrestricted and the start says so (docs/security.md, "Egress").
//
// The list is checked twice: when a statement names a target (CheckEgressTarget: a clear error naming the host and
// the flag), and when the connection is made, on the address the name resolved to (AllowsConnection), so a name
// that resolves, or later resolves again, to an address outside the list is refused too.
#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::egress {

// One entry of the list: a host name (`kafka.internal`, `*.example.com` for any name under example.com, `*` for
// every host), or an address with an optional prefix length (`10.0.0.5`, `10.0.0.0/8`, `::1`, `fd00::/8`); and a
// port (`:9092`), none meaning any port. IPv6 with a port is written in brackets: `[fd00::/8]:9092`.
struct EgressRule {
  std::string name;             // lower case; empty for an address rule
  bool any_host = false;        // `*`
  int family = 0;               // AF_INET or AF_INET6 for an address rule
  unsigned char address[16]{};  // network byte order
  int prefix_bits = 0;
  int port = 0;                 // 0: any port
  std::string text;             // as written, for messages
};

class EgressPolicy {
 public:
  // No list: every host and port is allowed.
  EgressPolicy() = default;
  // Parses a comma-separated list. An empty list allows nothing.
  static Result<EgressPolicy> Parse(std::string_view list);

  bool unrestricted() const { return unrestricted_; }
  // The list as given (for the start-up log and messages).
  const std::string& text() const { return text_; }

  // The name as written matches a name rule for this port (the operator vouched for the name, whatever its
  // addresses).
  bool AllowsName(std::string_view host, int port) const;
  // The address matches an address rule for this port.
  bool AllowsAddress(const sockaddr* address) const;
  // A connection to `address`, reached by resolving `host` (empty when unknown): AllowsName or AllowsAddress.
  bool AllowsConnection(std::string_view host, const sockaddr* address) const;

  // The statement-time check of `host`:`port` (a name, or an address literal): allowed by name, or (for an
  // address, or a name resolved now) by address — a name is allowed when at least one of its addresses is (the
  // connection then uses only those). `what` says what the host is for ("Kafka broker", "S3 endpoint").
  Status CheckTarget(std::string_view what, std::string_view host, int port) const;

 private:
  bool unrestricted_ = true;
  std::vector<EgressRule> rules_;
  std::string text_;
};

// The policy of this process. Set once at start (SetEgressPolicy), before any job, session or client exists.
const EgressPolicy& CurrentEgressPolicy();
void SetEgressPolicy(EgressPolicy policy);

// CurrentEgressPolicy().CheckTarget of each `host:port` of a comma-separated list (a Kafka broker list;
// `PLAINTEXT://host:port` forms too); an entry without a port uses `default_port`.
Status CheckEgressHostList(std::string_view what, std::string_view list, int default_port);
// CurrentEgressPolicy().CheckTarget of a URL's host and port (`https://user:pw@host:8081/path`; the port defaults by
// scheme: 443 for https, 80 for http, `default_port` otherwise).
Status CheckEgressUrl(std::string_view what, std::string_view url, int default_port);

// The host and port of a URL, without credentials (empty host when it has none).
struct HostPort {
  std::string host;
  int port = 0;
};
HostPort UrlHostPort(std::string_view url, int default_port);

// For clients that resolve names themselves (libpq): nothing when the connection may go by name as usual
// (unrestricted, or the name is allowed by name); else the first address of `host` the policy allows, to connect to
// instead of the name. An error naming the host and the flag when none is allowed or the name does not resolve.
Result<std::optional<std::string>> AllowedAddressFor(std::string_view what, std::string_view host, int port);

}  // namespace sluice::egress
