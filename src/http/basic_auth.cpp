#include "http/basic_auth.h"

#include <algorithm>
#include <cctype>

namespace sluice::http {

std::optional<std::string> DecodeBase64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    size_t pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      bool last_group = i + 4 == text.size();
      if (c == '=' && last_group && k >= 2 && (k == 3 || text[i + 3] == '=')) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;  // data after padding
      v[k] = value(c);
      if (v[k] < 0) return std::nullopt;
    }
    uint32_t n = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(static_cast<char>((n >> 16) & 0xFF));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(n & 0xFF));
  }
  return out;
}

std::optional<BasicCredentials> ParseBasicAuthorization(std::string_view header) {
  constexpr std::string_view kScheme = "basic";
  if (header.size() <= kScheme.size() || header[kScheme.size()] != ' ') return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return std::nullopt;
  std::string_view token = header.substr(kScheme.size() + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  auto decoded = DecodeBase64(token);
  if (!decoded) return std::nullopt;
  size_t colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

std::chrono::milliseconds FailedLoginDelay::Fail(std::string_view client, std::chrono::steady_clock::time_point now) {
  std::lock_guard lock(mu_);
  MakeRoom(now);
  Entry& e = entries_[std::string(client)];
  if (e.failures > 0 && now - e.last > kForget) e.failures = 0;
  e.failures = std::min<uint32_t>(e.failures + 1, 64);
  e.last = now;
  auto delay = kFirst * (int64_t{1} << std::min<uint32_t>(e.failures - 1, 10));
  return std::min<std::chrono::milliseconds>(delay, kMax);
}

bool FailedLoginDelay::Enter(std::string_view client, std::chrono::steady_clock::time_point now) {
  std::lock_guard lock(mu_);
  MakeRoom(now);
  Entry& e = entries_[std::string(client)];
  if (e.failures > 0 && now - e.last > kForget) e.failures = 0;
  if (e.waiting >= (e.failures > 0 ? kMaxWaiting : kMaxCheckingClean)) return false;
  ++e.waiting;
  if (e.failures == 0) e.last = now;
  return true;
}

void FailedLoginDelay::Leave(std::string_view client) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(std::string(client));
  if (it != entries_.end() && it->second.waiting > 0) --it->second.waiting;
}

size_t FailedLoginDelay::failures(std::string_view client) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(std::string(client));
  return it == entries_.end() ? 0 : it->second.failures;
}

void FailedLoginDelay::MakeRoom(std::chrono::steady_clock::time_point now) {
  if (entries_.size() < kMaxAddresses) return;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (now - it->second.last > kForget && it->second.waiting == 0) it = entries_.erase(it);
    else ++it;
  }
  if (entries_.size() < kMaxAddresses) return;
  // Still full of recent failures: forget the stalest address with nothing waiting rather than grow without bound.
  auto stalest = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->second.waiting == 0 && (stalest == entries_.end() || it->second.last < stalest->second.last)) stalest = it;
  if (stalest != entries_.end()) entries_.erase(stalest);
}

}  // namespace sluice::http
