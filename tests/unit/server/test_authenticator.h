#pragma once
// An in-memory account store for the loopback tests: accounts by user name (any host), their passwords kept in
// the clear here only so the test can derive the hashes, and a record of what the server asked.
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "auth/authenticator.h"
#include "auth/password_hash.h"

namespace sluice::server::test {

struct TestAccount {
  // A constructor rather than an aggregate, so tests can give just the leading fields.
  TestAccount(std::string password_ = "", auth::AuthPlugin plugin_ = auth::AuthPlugin::kNativePassword,
              bool require_ssl_ = false, int max_user_connections_ = 0, bool administrator_ = false,
              bool locked_ = false, std::string lock_message_ = "")
      : password(std::move(password_)),
        plugin(plugin_),
        require_ssl(require_ssl_),
        max_user_connections(max_user_connections_),
        administrator(administrator_),
        locked(locked_),
        lock_message(std::move(lock_message_)) {}

  std::string password;
  auth::AuthPlugin plugin = auth::AuthPlugin::kNativePassword;
  bool require_ssl = false;
  int max_user_connections = 0;
  bool administrator = false;
  bool locked = false;
  std::string lock_message;
};

class TestAuthenticator final : public auth::Authenticator {
 public:
  TestAuthenticator() { Add("root", TestAccount{"", auth::AuthPlugin::kNativePassword, false, 0, true}); }

  void Add(const std::string& user, TestAccount account) {
    std::lock_guard<std::mutex> lock(mu_);
    accounts_[user] = std::move(account);
    sha2_cache_.erase(user);
  }
  void SetDelay(std::chrono::milliseconds delay) {
    std::lock_guard<std::mutex> lock(mu_);
    delay_ = delay;
  }
  void ClearCache() {
    std::lock_guard<std::mutex> lock(mu_);
    sha2_cache_.clear();
  }

  std::optional<auth::AccountCredentials> FindAccount(std::string_view user, std::string_view host) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = accounts_.find(std::string(user));
    if (it == accounts_.end()) return std::nullopt;
    const TestAccount& a = it->second;
    auth::AccountCredentials c;
    c.user = std::string(user);
    c.host = "%";
    c.plugin = a.plugin;
    c.empty_password = a.password.empty();
    if (a.plugin == auth::AuthPlugin::kNativePassword) c.native_stage2 = auth::NativeStage2(a.password);
    if (auto cached = sha2_cache_.find(c.user); cached != sha2_cache_.end()) c.sha2_stage2 = cached->second;
    c.require_ssl = a.require_ssl;
    c.max_user_connections = a.max_user_connections;
    c.administrator = a.administrator;
    return c;
  }
  bool VerifyPassword(std::string_view user, std::string_view host, std::string_view password) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++full_authentications_;
    auto it = accounts_.find(std::string(user));
    if (it == accounts_.end() || it->second.password != password) return false;
    if (it->second.plugin == auth::AuthPlugin::kCachingSha2Password) {
      sha2_cache_[std::string(user)] = auth::Sha2Stage2(password);
    }
    return true;
  }
  auth::LoginGate BeforeLogin(std::string_view user, std::string_view host) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++before_;
    auth::LoginGate gate;
    gate.delay = delay_;
    if (auto it = accounts_.find(std::string(user)); it != accounts_.end() && it->second.locked) {
      gate.locked = true;
      gate.message = it->second.lock_message;
    }
    return gate;
  }
  void AfterLogin(std::string_view user, std::string_view host, bool succeeded) override {
    std::lock_guard<std::mutex> lock(mu_);
    after_.push_back(std::string(user) + (succeeded ? ":ok" : ":failed"));
  }

  std::vector<std::string> after() {
    std::lock_guard<std::mutex> lock(mu_);
    return after_;
  }
  int before() {
    std::lock_guard<std::mutex> lock(mu_);
    return before_;
  }
  int full_authentications() {
    std::lock_guard<std::mutex> lock(mu_);
    return full_authentications_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, TestAccount> accounts_;
  std::map<std::string, std::string> sha2_cache_;
  std::chrono::milliseconds delay_{0};
  int before_ = 0;
  std::vector<std::string> after_;
  int full_authentications_ = 0;
};

}  // namespace sluice::server::test
