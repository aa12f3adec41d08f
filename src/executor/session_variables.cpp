#include "executor/session_variables.h"

#include <algorithm>
#include <cctype>

#include "common/ascii.h"
#include "common/version.h"

namespace sluice {

SessionVariables::SessionVariables() {
  values_ = {
      {"auto_increment_increment", "1"},
      {"autocommit", "1"},
      {"character_set_client", "utf8mb4"},
      {"character_set_connection", "utf8mb4"},
      {"character_set_results", "utf8mb4"},
      {"character_set_server", "utf8mb4"},
      {"collation_connection", "utf8mb4_general_ci"},
      {"collation_database", "utf8mb4_general_ci"},
      {"collation_server", "utf8mb4_general_ci"},
      {"init_connect", ""},
      {"interactive_timeout", "28800"},
      {"license", "Apache License 2.0"},
      {"lower_case_table_names", "0"},
      {"max_allowed_packet", "67108864"},
      {"max_execution_time", "0"},
      {"net_buffer_length", "16384"},
      {"net_write_timeout", "60"},
      {"performance_schema", "0"},
      {"query_cache_size", "0"},
      {"query_cache_type", "OFF"},
      {"sql_mode", "ONLY_FULL_GROUP_BY"},
      {"sql_select_limit", "18446744073709551615"},
      {"system_time_zone", "UTC"},
      {"time_zone", "UTC"},
      {"transaction_isolation", "REPEATABLE-READ"},
      {"transaction_read_only", "0"},
      {"tx_isolation", "REPEATABLE-READ"},
      {"tx_read_only", "0"},
      {"version", kMysqlServerVersion},
      {"version_comment", std::string("Sluice ") + kSluiceVersion + " (continuous ingestion over DuckDB)"},
      {"wait_timeout", "28800"},
  };
}

std::optional<std::string> SessionVariables::Get(std::string_view name) const {
  auto it = values_.find(AsciiLower(name));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

void SessionVariables::Set(const std::string& name, const std::string& value) {
  std::string key = AsciiLower(name);
  if (key == "names" || key == "character set" || key == "charset") {
    for (const char* v : {"character_set_client", "character_set_connection", "character_set_results"})
      values_[v] = value;
    return;
  }
  if (key == "autocommit") {
    std::string v = AsciiLower(value);
    values_[key] = (v == "0" || v == "off" || v == "false") ? "0" : "1";
    return;
  }
  values_[key] = value;
}

ResultSet SessionVariables::Show(const std::optional<std::string>& like,
                                 const std::vector<std::pair<std::string, std::string>>& server_settings) const {
  std::map<std::string, std::string> all(server_settings.begin(), server_settings.end());
  for (const auto& [k, v] : values_) all[k] = k == "autocommit" ? (v == "1" ? "ON" : "OFF") : v;
  ResultSet rs;
  rs.AddColumn("Variable_name");
  rs.AddColumn("Value");
  for (const auto& [k, v] : all)
    if (!like || LikeMatch(k, *like)) rs.rows.push_back({k, v});
  return rs;
}

}  // namespace sluice
