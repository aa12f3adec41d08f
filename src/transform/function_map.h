#pragma once
// The StarRocks/MySQL functions a load expression may call, each mapped onto DuckDB SQL. Arguments arrive
// compiled (with their types); an emitter adds the conversions DuckDB needs and returns the call's SQL.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "transform/expression.h"
#include "transform/time_zone.h"
#include "transform/typed_sql.h"

namespace sluice::transform {

struct CallSite {
  const Expr& call;
  const TimeZone& tz;
  // InvalidArgument naming the function and where the call is: "from_unixtime(): ... (at column 9)".
  Status Error(const std::string& what) const;
};

using FunctionEmitter = Result<TypedSql> (*)(std::vector<TypedSql>& args, const CallSite& site);

struct FunctionInfo {
  std::string_view name;     // lower case, as users write it
  int min_args;
  int max_args;              // -1: any number
  FunctionEmitter emit;
  std::string_view duckdb;   // the mapping in words, for the module README and the user docs
  // The same function in user SQL (the front door's queries), where argument types are known only to DuckDB:
  // the parameter lists and bodies of a DuckDB TEMP MACRO named `name` ("(d, f) AS strftime(...)"), which every
  // session defines (query_functions.h). nullptr where DuckDB's own function of that name already behaves as
  // MySQL's (if, ifnull, concat_ws, ...) or where the query form is not offered.
  std::string (*query_macro)() = nullptr;
};

// Higher-order functions (array_map, array_filter, map_filter, ...) take a lambda, whose body the compiler
// compiles with the parameters the function binds. They map onto DuckDB's vectorised list functions
// (list_transform, list_filter) with DuckDB lambdas, never a per-row callback.
struct LambdaParam {
  std::string sql;  // how the body reads the parameter: a DuckDB lambda variable, or a field of one
  SqlType type;
};

struct HigherOrderCall {
  const Expr& call;
  const TimeZone& tz;
  std::vector<TypedSql> values;  // the arguments other than the lambda, compiled, in order
  const Expr* lambda = nullptr;  // the lambda argument (ExprKind::kLambda), if there is one
  // Compiles the lambda's body with its parameters (in the order written) bound as given.
  std::function<Result<TypedSql>(const std::vector<LambdaParam>&)> compile_body;
  // A DuckDB lambda variable name unique within the whole expression (nested lambdas need distinct ones).
  std::function<std::string()> fresh_name;
  Status Error(const std::string& what) const;
};

struct HigherOrderInfo {
  std::string_view name;
  Result<TypedSql> (*emit)(HigherOrderCall& call);
  std::string_view duckdb;  // the mapping in words
};

// nullptr when `name` (lower case) is no higher-order function.
const HigherOrderInfo* FindHigherOrderFunction(std::string_view name);
const std::vector<HigherOrderInfo>& HigherOrderFunctions();

// nullptr for an unknown function. `name` must be lower case.
const FunctionInfo* FindFunction(std::string_view name);
// Every function, sorted by name (aliases are separate entries).
const std::vector<FunctionInfo>& AllFunctions();
// "abs, adddate, ..." for the unknown-function error.
std::string SupportedFunctionNames();

// Groups of functions, one file each; AllFunctions() concatenates them.
void AddConditionalFunctions(std::vector<FunctionInfo>* out);
void AddMathFunctions(std::vector<FunctionInfo>* out);
void AddStringFunctions(std::vector<FunctionInfo>* out);
void AddTimeFunctions(std::vector<FunctionInfo>* out);
void AddJsonFunctions(std::vector<FunctionInfo>* out);
void AddArrayFunctions(std::vector<FunctionInfo>* out);
// x[k] (ExprKind::kSubscript): JSON (or text read as JSON) -> JSON by key or 0-based index; map -> value by key;
// list -> element by 0-based index. NULL when absent.
Result<TypedSql> EmitSubscript(std::vector<TypedSql>& args, const CallSite& site);

// An INTERVAL operand (TypeClass::kInterval) as a DuckDB interval value, for date_add and `dt + INTERVAL ...`.
std::string IntervalSql(const TypedSql& interval);
// A string-literal argument that must be constant (formats); InvalidArgument otherwise.
Result<std::string> ConstantArgument(const TypedSql& arg, const CallSite& site, const char* what);

}  // namespace sluice::transform
