#include "common/secret_redaction.h"

#include <regex>

namespace sluice {

std::string RedactSecrets(std::string_view sql) {
  // "key" = "value" and 'key' = 'value', where the key mentions a secret; also map('key', 'value') (READ_KAFKA's
  // settings) and DuckDB's MAP {'key': 'value'}.
  static const std::regex kQuotedProperty(
      R"re((["'][^"']*(password|passwd|secret|token|jaas|access_key|access\.key|key\.pem|credential)[^"']*["']\s*[=,:]\s*)(["'])((?:\\.|(?!\3).)*)\3)re",
      std::regex::icase);
  // Keyword forms: PASSWORD 'x', IDENTIFIED BY 'x', ACCESS_KEY 'x', ACCESS_ID 'x', ACCESS_KEY = 'x'.
  static const std::regex kKeyword(
      R"re(\b(password|identified\s+by|access_key|access_id|secret_key)(\s*=\s*|\s+)(["'])((?:\\.|(?!\3).)*)\3)re",
      std::regex::icase);
  // Credentials inside a URL: scheme://key:secret@host (e.g. "confluent.schema.registry.url").
  static const std::regex kUrlCredentials(R"re(([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s"':]+:[^/@\s"']*@)re");
  std::string out = std::regex_replace(std::string(sql), kQuotedProperty, "$1$3******$3");
  out = std::regex_replace(out, kUrlCredentials, "$1******@");
  return std::regex_replace(out, kKeyword, "$1$2$3******$3");
}

std::string StripUrlCredentials(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t host_start = scheme + 3;
  size_t at = url.find('@', host_start);
  size_t slash = url.find('/', host_start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, host_start) + url.substr(at + 1);
}

}  // namespace sluice
