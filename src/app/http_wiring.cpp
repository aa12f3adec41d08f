#include "app/http_wiring.h"

#include <filesystem>

namespace sluice {

http::Authenticator AccountAuthenticator(auth::AccountStore& accounts) {
  return [&accounts](std::string_view user, std::string_view password,
                     std::string_view client_ip) -> std::optional<std::string> {
    auth::LoginGate gate = accounts.BeforeLogin(user, client_ip);
    if (gate.locked) {
      accounts.AfterLogin(user, client_ip, false);
      return std::nullopt;
    }
    // The HTTP layer delays failures itself (HttpLimits::delay_failed_logins); the store counts them towards
    // FAILED_LOGIN_ATTEMPTS, shared with the MySQL port.
    bool ok = accounts.VerifyPassword(user, client_ip, password);
    accounts.AfterLogin(user, client_ip, ok);
    if (!ok) return std::nullopt;
    return std::string(user);
  };
}

MayReadJob AccountMayReadJob(auth::AccountStore& accounts, scheduler::RoutineLoadManager& jobs) {
  return [&accounts, &jobs](std::string_view user, std::string_view db, std::string_view job, bool pipe) {
    // The account is the one the user logged in as; HTTP users are matched from any host.
    auto account = accounts.MatchAccount(user, "%");
    if (!account) account = auth::UserIdentity{std::string(user), "%"};
    auth::Principal who{*account, accounts.LoginRoles(*account)};
    if (accounts.IsSuperuser(who)) return true;  // root learns whether the job exists (404); others get 403
    auto target = jobs.TargetOf(std::string(db), std::string(job), pipe);
    if (!target.ok()) return false;
    if (pipe && !target->creator.empty() && target->creator == user) return true;
    if (pipe && accounts.SeesObject(who, auth::ObjectRef{auth::ObjectKind::kPipe, target->db, std::string(job)}))
      return true;
    return accounts.Has(who, auth::ObjectRef{auth::ObjectKind::kTable, target->db, target->table}, "SELECT");
  };
}

http::HttpHandler WithoutServerPaths(http::HttpHandler handler, auth::AccountStore& accounts,
                                     const storage::StorageHealth& health) {
  return [handler = std::move(handler), &accounts, &health](const http::HttpRequest& request) {
    http::HttpReply reply = handler(request);
    auto account = accounts.MatchAccount(request.user, "%");
    if (!account) account = auth::UserIdentity{request.user, "%"};
    auth::Principal who{*account, accounts.LoginRoles(*account)};
    if (accounts.IsSuperuser(who) || accounts.Has(who, auth::ObjectRef{auth::ObjectKind::kSystem, "", ""}, "OPERATE"))
      return reply;
    reply.body = health.WithoutDataDirectory(reply.body);
    return reply;
  };
}

Status ResolveHttpTls(const ServeOptions& options, http::HttpOptions& http) {
  if (!options.http_tls) return Status::Ok();
  std::string cert = options.tls_cert, key = options.tls_key;
  if (cert.empty() != key.empty())
    return Status::InvalidArgument("--tls-cert and --tls-key go together: give both, or neither to use the "
                                   "certificate in " + options.data_dir + "/tls/");
  if (cert.empty()) {
    cert = options.data_dir + "/tls/server-cert.pem";
    key = options.data_dir + "/tls/server-key.pem";
    std::error_code ec;
    if (!std::filesystem::exists(cert, ec) || !std::filesystem::exists(key, ec))
      return Status::InvalidArgument("--http-tls needs a certificate: give --tls-cert and --tls-key (PEM files), or "
                                     "put server-cert.pem and server-key.pem in " + options.data_dir + "/tls/");
  }
  http.tls_cert_file = cert;
  http.tls_key_file = key;
  return Status::Ok();
}

}  // namespace sluice
