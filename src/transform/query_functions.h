#pragma once
// The MySQL/StarRocks functions of user SQL (sessions' queries), from the same function map as load expressions
// (function_map.h): every FunctionInfo with a query_macro becomes a DuckDB TEMP MACRO of the function's name, so
// date_format, str_to_date, from_unixtime, unix_timestamp, curdate, datediff ... mean in a SELECT what they mean
// in a load's COLUMNS. The StarRocks JSON functions (sql/starrocks_functions.h) come along.
#include <string>
#include <vector>

namespace sluice::transform {

// CREATE OR REPLACE TEMP MACRO statements, to run on a session's connection before user SQL.
const std::vector<std::string>& QueryFunctionMacros();

// The macro names, which users may not replace with objects of their own.
const std::vector<std::string>& QueryFunctionNames();

}  // namespace sluice::transform
