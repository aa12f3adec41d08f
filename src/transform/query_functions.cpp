#include "transform/query_functions.h"

#include "sql/starrocks_functions.h"
#include "transform/function_map.h"

namespace sluice::transform {

const std::vector<std::string>& QueryFunctionMacros() {
  static const std::vector<std::string> statements = [] {
    std::vector<std::string> out = sql::StarRocksFunctionMacros();
    for (const FunctionInfo& f : AllFunctions()) {
      if (f.query_macro) out.push_back("CREATE OR REPLACE TEMP MACRO " + std::string(f.name) + f.query_macro());
    }
    return out;
  }();
  return statements;
}

const std::vector<std::string>& QueryFunctionNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (std::string_view n : sql::StarRocksFunctionNames()) out.emplace_back(n);
    for (const FunctionInfo& f : AllFunctions()) {
      if (f.query_macro) out.emplace_back(f.name);
    }
    return out;
  }();
  return names;
}

}  // namespace sluice::transform
