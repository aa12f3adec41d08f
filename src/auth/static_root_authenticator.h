#pragma once
// The one account of a server without an account store: root@'%' with the password given at start
// (--root-password), an administrator. Stands in until the account store (auth/account_store.h) takes over.
#include <mutex>
#include <string>

#include "auth/authenticator.h"

namespace sluice::auth {

class StaticRootAuthenticator final : public Authenticator {
 public:
  // `plugin`: what root logs in with. With caching_sha2_password, the fast path works after the first full
  // authentication (over TLS), as MySQL's cache.
  explicit StaticRootAuthenticator(std::string_view root_password,
                                   AuthPlugin plugin = AuthPlugin::kNativePassword);

  std::optional<AccountCredentials> FindAccount(std::string_view user, std::string_view host) override;
  bool VerifyPassword(std::string_view user, std::string_view host, std::string_view password) override;
  LoginGate BeforeLogin(std::string_view user, std::string_view host) override;
  void AfterLogin(std::string_view user, std::string_view host, bool succeeded) override;

 private:
  const AuthPlugin plugin_;
  const bool empty_password_;
  const std::string native_stage2_;
  const std::string salted_hash_;  // what a full authentication is checked against
  std::mutex mu_;
  std::string sha2_stage2_;        // the caching_sha2_password cache; guarded by mu_
};

}  // namespace sluice::auth
