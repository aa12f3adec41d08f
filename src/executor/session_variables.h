#pragma once
// MySQL system variables a session reports. Clients read them at connect (version_comment, max_allowed_packet,
// sql_mode ...) and set some (NAMES, autocommit); Sluice keeps the values so SELECT @@x and SHOW VARIABLES answer
// consistently, though most change nothing: every statement commits on its own unless inside BEGIN ... COMMIT.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/like.h"
#include "common/result_set.h"

namespace sluice {

class SessionVariables {
 public:
  SessionVariables();
  std::optional<std::string> Get(std::string_view name) const;
  void Set(const std::string& name, const std::string& value);
  // SHOW VARIABLES [LIKE 'pattern'] (MySQL LIKE: % and _ wildcards, case-insensitive).
  // `server_settings` (SET GLOBAL ones) are listed with the session's own.
  ResultSet Show(const std::optional<std::string>& like,
                 const std::vector<std::pair<std::string, std::string>>& server_settings = {}) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace sluice
