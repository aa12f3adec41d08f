#pragma once
// Which jobs an HTTP user sees: the rule of SHOW ROUTINE LOAD and SHOW PIPES (any privilege on the job's table; for
// a pipe also its creator or a privilege on the pipe; everything for an administrator), decided once per table per
// request so a scrape of 1,000 jobs asks the account store a handful of times.
#include <map>
#include <string>
#include <utility>

#include "auth/account_store.h"
#include "scheduler/routine_load_manager.h"

namespace sluice {

class JobVisibility {
 public:
  JobVisibility(auth::AccountStore& accounts, std::string_view user);
  bool Sees(const scheduler::JobStatus& job);
  // Whether the user may pause and resume the job: the rule of PAUSE ROUTINE LOAD and ALTER PIPE (INSERT on the
  // job's table; for a pipe also its creator or ALTER on the pipe; everything for an administrator). Only decides
  // what the dashboard offers: the action itself runs as SQL and is checked there.
  bool MayControl(const scheduler::JobStatus& job);
  bool superuser() const { return superuser_; }

 private:
  auth::AccountStore& accounts_;
  std::string user_;
  auth::Principal who_;
  bool superuser_ = false;
  std::map<std::pair<std::string, std::string>, bool> tables_;
  std::map<std::pair<std::string, std::string>, bool> insertable_;
};

}  // namespace sluice
