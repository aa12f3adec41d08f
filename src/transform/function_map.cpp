#include "transform/function_map.h"

#include <algorithm>

namespace sluice::transform {

Status CallSite::Error(const std::string& what) const {
  return Status::InvalidArgument(call.text + "(): " + what + " (at " + PositionOf(call) + ")");
}

Status HigherOrderCall::Error(const std::string& what) const {
  return Status::InvalidArgument(call.text + "(): " + what + " (at " + PositionOf(call) + ")");
}

const std::vector<FunctionInfo>& AllFunctions() {
  static const std::vector<FunctionInfo> kFunctions = [] {
    std::vector<FunctionInfo> all;
    AddConditionalFunctions(&all);
    AddMathFunctions(&all);
    AddStringFunctions(&all);
    AddTimeFunctions(&all);
    AddJsonFunctions(&all);
    AddArrayFunctions(&all);
    std::sort(all.begin(), all.end(), [](const FunctionInfo& a, const FunctionInfo& b) { return a.name < b.name; });
    return all;
  }();
  return kFunctions;
}

const FunctionInfo* FindFunction(std::string_view name) {
  const auto& all = AllFunctions();
  auto it = std::lower_bound(all.begin(), all.end(), name,
                             [](const FunctionInfo& f, std::string_view n) { return f.name < n; });
  return it != all.end() && it->name == name ? &*it : nullptr;
}

std::string SupportedFunctionNames() {
  std::vector<std::string_view> names;
  for (const FunctionInfo& f : AllFunctions()) names.push_back(f.name);
  for (const HigherOrderInfo& f : HigherOrderFunctions()) names.push_back(f.name);
  std::sort(names.begin(), names.end());
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out + ", cast(x AS type), convert(x, type) and CASE";
}

std::string IntervalSql(const TypedSql& interval) {
  const std::string& u = interval.interval_unit;
  const std::string& n = interval.sql;
  // DuckDB's to_* constructors take INTEGER for calendar units and BIGINT/DOUBLE for clock units.
  if (u == "YEAR") return "to_years(TRY_CAST(" + n + " AS INTEGER))";
  if (u == "QUARTER") return "to_months(TRY_CAST(" + n + " * 3 AS INTEGER))";
  if (u == "MONTH") return "to_months(TRY_CAST(" + n + " AS INTEGER))";
  if (u == "WEEK") return "to_days(TRY_CAST(" + n + " * 7 AS INTEGER))";
  if (u == "DAY") return "to_days(TRY_CAST(" + n + " AS INTEGER))";
  if (u == "HOUR") return "to_hours(" + n + ")";
  if (u == "MINUTE") return "to_minutes(" + n + ")";
  if (u == "SECOND") return "to_seconds(" + n + ")";
  if (u == "MILLISECOND") return "to_milliseconds(" + n + ")";
  return "to_microseconds(" + n + ")";
}

Result<std::string> ConstantArgument(const TypedSql& arg, const CallSite& site, const char* what) {
  if (!arg.constant) return site.Error(std::string("the ") + what + " must be a string literal");
  return *arg.constant;
}

}  // namespace sluice::transform
