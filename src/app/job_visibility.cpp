#include "app/job_visibility.h"

namespace sluice {

JobVisibility::JobVisibility(auth::AccountStore& accounts, std::string_view user) : accounts_(accounts), user_(user) {
  // HTTP users are matched from any host, as for the error log endpoint.
  auto account = accounts.MatchAccount(user, "%");
  who_.account = account.value_or(auth::UserIdentity{std::string(user), "%"});
  who_.active_roles = accounts.LoginRoles(who_.account);
  superuser_ = accounts.IsSuperuser(who_);
}

bool JobVisibility::Sees(const scheduler::JobStatus& job) {
  if (superuser_) return true;
  if (job.kind != "routine_load") {
    if (!job.creator.empty() && job.creator == user_) return true;
    if (accounts_.SeesObject(who_, auth::ObjectRef{auth::ObjectKind::kPipe, job.db, job.name})) return true;
  }
  auto key = std::make_pair(job.target_db, job.table);
  auto it = tables_.find(key);
  if (it == tables_.end())
    it = tables_.emplace(key, accounts_.SeesObject(who_, auth::ObjectRef{auth::ObjectKind::kTable, key.first, job.table}))
             .first;
  return it->second;
}

bool JobVisibility::MayControl(const scheduler::JobStatus& job) {
  if (superuser_) return true;
  if (job.kind != "routine_load") {
    if (!job.creator.empty() && job.creator == user_) return true;
    if (accounts_.Has(who_, auth::ObjectRef{auth::ObjectKind::kPipe, job.db, job.name}, "ALTER")) return true;
  }
  auto key = std::make_pair(job.target_db, job.table);
  auto it = insertable_.find(key);
  if (it == insertable_.end())
    it = insertable_
             .emplace(key, accounts_.Has(who_, auth::ObjectRef{auth::ObjectKind::kTable, key.first, job.table}, "INSERT"))
             .first;
  return it->second;
}

}  // namespace sluice
