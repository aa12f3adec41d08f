#include "common/egress_policy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>

#include "common/ascii.h"

namespace sluice::egress {

namespace {

EgressPolicy& Policy() {
  static EgressPolicy policy;
  return policy;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "1" .. "65535", or "*" (any: 0).
std::optional<int> ParsePort(std::string_view s) {
  if (s == "*") return 0;
  if (s.empty() || s.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

bool ParseAddress(std::string_view text, int* family, unsigned char* bytes) {
  std::string s(text);
  if (inet_pton(AF_INET, s.c_str(), bytes) == 1) {
    *family = AF_INET;
    return true;
  }
  if (inet_pton(AF_INET6, s.c_str(), bytes) == 1) {
    *family = AF_INET6;
    return true;
  }
  return false;
}

bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  std::string_view rest = name;
  if (rest.substr(0, 2) == "*.") rest.remove_prefix(2);
  if (rest.empty()) return false;
  for (char c : rest)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) return false;
  return true;
}

Status BadEntry(std::string_view entry, const std::string& why) {
  return Status::InvalidArgument("--allow-egress: cannot read '" + std::string(entry) + "': " + why +
                                 "; write host[:port], *.domain[:port], address[/bits][:port] or [ipv6[/bits]]:port, "
                                 "separated by commas");
}

Result<EgressRule> ParseRule(std::string_view entry) {
  EgressRule rule;
  rule.text = std::string(entry);
  std::string_view host = entry;
  std::string_view port;
  if (entry.front() == '[') {
    size_t close = entry.find(']');
    if (close == std::string_view::npos) return BadEntry(entry, "no closing ']'");
    host = entry.substr(1, close - 1);
    std::string_view after = entry.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return BadEntry(entry, "expected ':port' after ']'");
      port = after.substr(1);
      if (port.empty()) return BadEntry(entry, "no port after ':'");
    }
  } else if (std::count(entry.begin(), entry.end(), ':') == 1) {
    size_t colon = entry.find(':');
    host = entry.substr(0, colon);
    port = entry.substr(colon + 1);
    if (port.empty()) return BadEntry(entry, "no port after ':'");
  }
  if (!port.empty()) {
    auto p = ParsePort(port);
    if (!p) return BadEntry(entry, "the port must be 1 to 65535 or *");
    rule.port = *p;
  }
  if (host.empty()) return BadEntry(entry, "no host");
  if (host == "*") {
    rule.any_host = true;
    return rule;
  }
  std::string_view address = host;
  std::optional<int> bits;
  if (size_t slash = host.find('/'); slash != std::string_view::npos) {
    address = host.substr(0, slash);
    std::string_view b = host.substr(slash + 1);
    if (b.empty() || b.size() > 3 || b.find_first_not_of("0123456789") != std::string_view::npos)
      return BadEntry(entry, "the prefix length after '/' must be a number");
    bits = std::stoi(std::string(b));
  }
  if (ParseAddress(address, &rule.family, rule.address)) {
    const int max_bits = rule.family == AF_INET ? 32 : 128;
    rule.prefix_bits = bits.value_or(max_bits);
    if (rule.prefix_bits > max_bits)
      return BadEntry(entry, "the prefix length is at most " + std::to_string(max_bits));
    return rule;
  }
  if (bits) return BadEntry(entry, "'" + std::string(address) + "' is not an IP address");
  if (!ValidName(host)) return BadEntry(entry, "'" + std::string(host) + "' is not a host name");
  rule.name = AsciiLower(host);
  return rule;
}

// The family, the address bytes and the port of a socket address; an IPv4-mapped IPv6 address counts as IPv4.
bool Unpack(const sockaddr* sa, int* family, unsigned char* bytes, int* port) {
  if (sa == nullptr) return false;
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    *family = AF_INET;
    std::memcpy(bytes, &in->sin_addr, 4);
    *port = ntohs(in->sin_port);
    return true;
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    *port = ntohs(in6->sin6_port);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      *family = AF_INET;
      std::memcpy(bytes, reinterpret_cast<const unsigned char*>(&in6->sin6_addr) + 12, 4);
    } else {
      *family = AF_INET6;
      std::memcpy(bytes, &in6->sin6_addr, 16);
    }
    return true;
  }
  return false;
}

bool PrefixMatches(const unsigned char* a, const unsigned char* b, int bits) {
  int whole = bits / 8;
  if (std::memcmp(a, b, whole) != 0) return false;
  int rest = bits % 8;
  if (rest == 0) return true;
  unsigned char mask = static_cast<unsigned char>(0xFF << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

std::string WithoutBrackets(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return std::string(host);
}

std::string Shown(std::string_view host, int port) {
  std::string h(host);
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  return h + ":" + std::to_string(port);
}

Status Refused(std::string_view what, std::string_view host, int port, std::string_view why) {
  return Status::AccessDenied("Access denied: " + std::string(what) + " '" + Shown(host, port) + "' is not allowed" +
                              std::string(why) + ": this server connects only to the hosts of its egress allow "
                              "list (sluice serve --allow-egress); an operator can add the host there");
}

struct AddrInfoDeleter {
  void operator()(addrinfo* ai) const { freeaddrinfo(ai); }
};

std::unique_ptr<addrinfo, AddrInfoDeleter> Resolve(const std::string& host, int port, int* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  *error = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  return std::unique_ptr<addrinfo, AddrInfoDeleter>(*error == 0 ? found : nullptr);
}

}  // namespace

Result<EgressPolicy> EgressPolicy::Parse(std::string_view list) {
  EgressPolicy policy;
  policy.unrestricted_ = false;
  policy.text_ = std::string(Trim(list));
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = list.find(',', at);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view entry = Trim(list.substr(at, comma - at));
    if (!entry.empty()) {
      ASSIGN_OR_RETURN(EgressRule rule, ParseRule(entry));
      policy.rules_.push_back(std::move(rule));
    }
    at = comma + 1;
  }
  return policy;
}

bool EgressPolicy::AllowsName(std::string_view host, int port) const {
  if (unrestricted_) return true;
  const std::string name = AsciiLower(WithoutBrackets(host));
  for (const EgressRule& r : rules_) {
    if (r.port != 0 && r.port != port) continue;
    if (r.any_host) return true;
    if (r.name.empty()) continue;
    if (r.name == name) return true;
    if (r.name.size() > 2 && r.name[0] == '*' && name.size() > r.name.size() - 1 &&
        name.compare(name.size() - (r.name.size() - 1), r.name.size() - 1, r.name, 1) == 0)
      return true;
  }
  return false;
}

bool EgressPolicy::AllowsAddress(const sockaddr* address) const {
  if (unrestricted_) return true;
  int family = 0, port = 0;
  unsigned char bytes[16]{};
  if (!Unpack(address, &family, bytes, &port)) return false;
  for (const EgressRule& r : rules_) {
    if (r.port != 0 && r.port != port) continue;
    if (r.any_host) return true;
    if (r.family == family && PrefixMatches(r.address, bytes, r.prefix_bits)) return true;
  }
  return false;
}

bool EgressPolicy::AllowsConnection(std::string_view host, const sockaddr* address) const {
  if (unrestricted_) return true;
  int family = 0, port = 0;
  unsigned char bytes[16]{};
  if (!Unpack(address, &family, bytes, &port)) return false;
  if (!host.empty() && AllowsName(host, port)) return true;
  return AllowsAddress(address);
}

Status EgressPolicy::CheckTarget(std::string_view what, std::string_view host_as_written, int port) const {
  if (unrestricted_) return Status::Ok();
  const std::string host = WithoutBrackets(Trim(host_as_written));
  if (host.empty()) return Status::InvalidArgument(std::string(what) + " has no host name");
  if (AllowsName(host, port)) return Status::Ok();
  int family = 0;
  unsigned char bytes[16]{};
  int error = 0;
  auto found = Resolve(host, port, &error);
  if (!found) {
    if (ParseAddress(host, &family, bytes)) return Refused(what, host, port, "");
    return Refused(what, host, port, std::string(" (the name does not resolve: ") + gai_strerror(error) + ")");
  }
  for (const addrinfo* ai = found.get(); ai != nullptr; ai = ai->ai_next)
    if (AllowsAddress(ai->ai_addr)) return Status::Ok();
  return Refused(what, host, port, ParseAddress(host, &family, bytes) ? "" : " (nor is any address it resolves to)");
}

const EgressPolicy& CurrentEgressPolicy() { return Policy(); }

void SetEgressPolicy(EgressPolicy policy) { Policy() = std::move(policy); }

HostPort UrlHostPort(std::string_view url, int default_port) {
  HostPort out;
  std::string_view rest = Trim(url);
  int port = default_port;
  if (size_t scheme = rest.find("://"); scheme != std::string_view::npos) {
    std::string s = AsciiLower(rest.substr(0, scheme));
    if (s == "https") port = 443;
    else if (s == "http") port = 80;
    rest.remove_prefix(scheme + 3);
  }
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return out;
    out.host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (!rest.empty() && rest.front() == ':') port = ParsePort(rest.substr(1)).value_or(port);
  } else if (size_t colon = rest.rfind(':'); colon != std::string_view::npos &&
                                               rest.find(':') == colon) {
    out.host = std::string(rest.substr(0, colon));
    port = ParsePort(rest.substr(colon + 1)).value_or(port);
  } else {
    out.host = std::string(rest);
  }
  out.port = port;
  return out;
}

Status CheckEgressHostList(std::string_view what, std::string_view list, int default_port) {
  const EgressPolicy& policy = CurrentEgressPolicy();
  if (policy.unrestricted()) return Status::Ok();
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = list.find(',', at);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view entry = Trim(list.substr(at, comma - at));
    at = comma + 1;
    if (entry.empty()) continue;
    // "host:port" and listener forms ("SASL_SSL://host:port") alike: the port is the broker's, whatever the
    // scheme says.
    if (size_t scheme = entry.find("://"); scheme != std::string_view::npos) entry.remove_prefix(scheme + 3);
    HostPort hp = UrlHostPort("kafka://" + std::string(entry), default_port);
    RETURN_IF_ERROR(policy.CheckTarget(what, hp.host, hp.port));
  }
  return Status::Ok();
}

Status CheckEgressUrl(std::string_view what, std::string_view url, int default_port) {
  const EgressPolicy& policy = CurrentEgressPolicy();
  if (policy.unrestricted()) return Status::Ok();
  HostPort hp = UrlHostPort(url, default_port);
  return policy.CheckTarget(what, hp.host, hp.port);
}

Result<std::optional<std::string>> AllowedAddressFor(std::string_view what, std::string_view host_as_written,
                                                     int port) {
  const EgressPolicy& policy = CurrentEgressPolicy();
  const std::string host = WithoutBrackets(host_as_written);
  if (policy.unrestricted() || policy.AllowsName(host, port)) return std::optional<std::string>();
  int error = 0;
  auto found = Resolve(host, port, &error);
  if (!found) return Refused(what, host, port, std::string(" (the name does not resolve: ") + gai_strerror(error) + ")");
  for (const addrinfo* ai = found.get(); ai != nullptr; ai = ai->ai_next) {
    if (!policy.AllowsAddress(ai->ai_addr)) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* bytes = ai->ai_family == AF_INET
                            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(ai->ai_addr)->sin_addr)
                            : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(ai->ai_addr)->sin6_addr);
    if (inet_ntop(ai->ai_family, bytes, text, sizeof text) != nullptr) return std::optional<std::string>(text);
  }
  return Refused(what, host, port, "");
}

}  // namespace sluice::egress
