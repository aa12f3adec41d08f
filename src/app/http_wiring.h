#pragma once
// What `sluice serve` gives the HTTP port: who may log in, and which certificate HTTPS uses.
#include <string>
#include <string_view>

#include "app/error_log_endpoint.h"
#include "app/serve_command.h"
#include "auth/account_store.h"
#include "scheduler/routine_load_manager.h"
#include "storage/storage_health.h"
#include "common/status.h"
#include "http/http_server.h"

namespace sluice {

// HTTP Basic logins against Sluice's accounts, through the same gate as the MySQL port: a blocked account is
// refused, failures wait the account store's growing delay and count towards FAILED_LOGIN_ATTEMPTS.
http::Authenticator AccountAuthenticator(auth::AccountStore& accounts);

// Whether an HTTP user may read a routine load's rejected rows: SELECT on the job's table (they are its data).
MayReadJob AccountMayReadJob(auth::AccountStore& accounts, scheduler::RoutineLoadManager& jobs);

// `handler`, with the data directory and the scratch folder written as "<data directory>" and "<scratch folder>"
// in its reply for users without SYSTEM OPERATE, as SQL errors and SHOW output are (a job paused for a full disk
// names the directory in its reason; an error names a file). Administrators and the server log see the paths.
http::HttpHandler WithoutServerPaths(http::HttpHandler handler, auth::AccountStore& accounts,
                                     const storage::StorageHealth& health);

// Fills the HTTP options' TLS files when --http-tls is given: --tls-cert/--tls-key, or else the certificate Sluice
// keeps in <data dir>/tls/ (server-cert.pem, server-key.pem). Fails saying which flag to give when neither exists.
Status ResolveHttpTls(const ServeOptions& options, http::HttpOptions& http);

}  // namespace sluice
