#include "auth/static_root_authenticator.h"

#include "auth/password_hash.h"

namespace sluice::auth {

namespace {
constexpr std::string_view kRoot = "root";
}

StaticRootAuthenticator::StaticRootAuthenticator(std::string_view root_password, AuthPlugin plugin)
    : plugin_(plugin),
      empty_password_(root_password.empty()),
      native_stage2_(NativeStage2(root_password)),
      salted_hash_(SaltedHash(root_password)) {}

std::optional<AccountCredentials> StaticRootAuthenticator::FindAccount(std::string_view user, std::string_view) {
  if (user != kRoot) return std::nullopt;
  AccountCredentials account;
  account.user = std::string(kRoot);
  account.host = "%";
  account.plugin = plugin_;
  account.empty_password = empty_password_;
  account.administrator = true;
  if (plugin_ == AuthPlugin::kNativePassword) {
    account.native_stage2 = native_stage2_;
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    account.sha2_stage2 = sha2_stage2_;
  }
  return account;
}

bool StaticRootAuthenticator::VerifyPassword(std::string_view user, std::string_view, std::string_view password) {
  // The slow hash runs for any user, so an unknown one costs the same time.
  bool ok = VerifySaltedHash(salted_hash_, password) && user == kRoot;
  if (ok && plugin_ == AuthPlugin::kCachingSha2Password) {
    std::lock_guard<std::mutex> lock(mu_);
    sha2_stage2_ = Sha2Stage2(password);
  }
  return ok;
}

LoginGate StaticRootAuthenticator::BeforeLogin(std::string_view, std::string_view) { return {}; }

void StaticRootAuthenticator::AfterLogin(std::string_view, std::string_view, bool) {}

}  // namespace sluice::auth
