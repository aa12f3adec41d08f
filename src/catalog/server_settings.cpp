#include "catalog/server_settings.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/ascii.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

struct SettingSpec {
  const char* name;
  const char* default_value;
  int64_t min;
  int64_t max;
  const char* unit;
};

// Whole numbers only for now; a new kind of setting adds its own check here.
constexpr SettingSpec kSpecs[] = {
    {kLoadHistoryRetentionDays, "7", 1, 3650, "days"},
    // StarRocks' name, default and upper bound (3 days).
    {kQueryTimeout, "300", 1, 259200, "seconds"},
    {kMaxPipeNum, "100", 0, 100000, "pipes"},
    {kMaxRoutineLoadJobNum, "100", 0, 100000, "routine loads"},
};

const SettingSpec* FindSpec(std::string_view name) {
  for (const auto& s : kSpecs)
    if (name == s.name) return &s;
  return nullptr;
}

Result<std::string> ValidateSpec(const SettingSpec& spec, const std::string& value) {
  std::string_view v = value;
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < spec.min || n > spec.max) {
    return Status::InvalidArgument(std::string(spec.name) + " must be a whole number of " + spec.unit + " from " +
                                   std::to_string(spec.min) + " to " + std::to_string(spec.max) + ", not '" + value +
                                   "'");
  }
  return std::to_string(n);
}

}  // namespace

Result<std::unique_ptr<ServerSettings>> ServerSettings::Open(storage::Database& db) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  RETURN_IF_ERROR(con->Execute(
      "CREATE SCHEMA IF NOT EXISTS __sluice;"
      "CREATE TABLE IF NOT EXISTS __sluice.server_settings (name VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)"));
  std::unique_ptr<ServerSettings> settings(new ServerSettings(std::move(con)));
  for (const auto& s : kSpecs) settings->values_[s.name] = s.default_value;
  ASSIGN_OR_RETURN(auto stored, settings->con_->Query("SELECT name, value FROM __sluice.server_settings"));
  for (const auto& row : stored.result_set->rows) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    const SettingSpec* spec = FindSpec(*row[0]);
    if (!spec) continue;  // a setting a later version added and this one does not know
    auto value = ValidateSpec(*spec, *row[1]);
    if (value.ok()) settings->values_[spec->name] = *value;
  }
  return settings;
}

bool ServerSettings::IsServerSetting(std::string_view name) { return FindSpec(AsciiLower(name)) != nullptr; }

bool ServerSettings::IsSessionSetting(std::string_view name) { return AsciiLower(name) == kQueryTimeout; }

Result<std::string> ServerSettings::Validate(std::string_view name, const std::string& value) {
  const SettingSpec* spec = FindSpec(AsciiLower(name));
  if (!spec) return Status::InvalidArgument("'" + std::string(name) + "' is not a server setting");
  return ValidateSpec(*spec, value);
}

Status ServerSettings::Set(const std::string& name, const std::string& value) {
  const SettingSpec* spec = FindSpec(AsciiLower(name));
  if (!spec) return Status::InvalidArgument("'" + name + "' is not a server setting");
  ASSIGN_OR_RETURN(std::string normalized, ValidateSpec(*spec, value));
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(con_->Execute("INSERT OR REPLACE INTO __sluice.server_settings VALUES (" +
                                sql::QuoteLiteral(spec->name) + ", " + sql::QuoteLiteral(normalized) + ")"));
  values_[spec->name] = normalized;
  return Status::Ok();
}

std::optional<std::string> ServerSettings::Get(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = values_.find(AsciiLower(name));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, std::string>> ServerSettings::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {values_.begin(), values_.end()};
}

int64_t ServerSettings::LoadHistoryRetentionMs() const {
  auto days = Get(kLoadHistoryRetentionDays);
  return std::stoll(days.value_or("7")) * 24 * 3600 * 1000;
}

int64_t ServerSettings::QueryTimeoutSeconds() const {
  auto seconds = Get(kQueryTimeout);
  return std::stoll(seconds.value_or("300"));

}

int64_t ServerSettings::MaxPipeNum() const {
  auto n = Get(kMaxPipeNum);
  return n ? std::stoll(*n) : kDefaultMaxPipeNum;
}

int64_t ServerSettings::MaxRoutineLoadJobNum() const {
  auto n = Get(kMaxRoutineLoadJobNum);
  return n ? std::stoll(*n) : kDefaultMaxRoutineLoadJobNum;
}

}  // namespace sluice::catalog
