#include "server/server_counters.h"

#include <cctype>

namespace sluice::server {

void ServerCounters::CountStatement(std::string_view s) {
  size_t i = 0;
  // Leading blanks, comments and parentheses ("(SELECT ...)") do not decide the kind.
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == '(') {
      ++i;
    } else if (s.substr(i, 2) == "/*") {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (s.substr(i, 2) == "--" || s[i] == '#') {
      size_t end = s.find('\n', i);
      i = end == std::string_view::npos ? s.size() : end + 1;
    } else {
      break;
    }
  }
  char word[16];
  size_t n = 0;
  while (i < s.size() && n < sizeof word && std::isalpha(static_cast<unsigned char>(s[i])))
    word[n++] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i++])));
  std::string_view w(word, n);
  if (w == "desc" || w == "explain") w = "describe";
  if (w == "start") w = "begin";
  if (w == "with") w = "select";
  size_t k = 0;
  while (k + 1 < kKinds.size() && kKinds[k] != w) ++k;
  by_kind_[k].fetch_add(1, std::memory_order_relaxed);
}

void ServerCounters::CountError(uint16_t code) {
  std::lock_guard<std::mutex> lock(errors_mu_);
  errors_[code]++;
}

std::map<std::string, uint64_t> ServerCounters::StatementsByKind() const {
  std::map<std::string, uint64_t> out;
  for (size_t k = 0; k < kKinds.size(); ++k)
    if (uint64_t n = by_kind_[k].load(std::memory_order_relaxed)) out[std::string(kKinds[k])] = n;
  return out;
}

std::map<uint16_t, uint64_t> ServerCounters::ErrorsByCode() const {
  std::lock_guard<std::mutex> lock(errors_mu_);
  return errors_;
}

}  // namespace sluice::server
