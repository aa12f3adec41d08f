#pragma once
// StarRocks/Doris scalar functions DuckDB lacks, defined for every session as temporary macros so plain queries
// can call them as StarRocks users write them: json_query, json_length, json_unquote, get_json_string,
// get_json_int, get_json_double. Macros expand into DuckDB's own vectorised JSON functions when a query is bound.
// Load expressions (COLUMNS, WHERE, pipe SELECTs) do not use these: transform/ compiles its own SQL for them.
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/database.h"

namespace sluice {

Status DefineStarRocksFunctions(storage::Connection& con);

// The macro names, which users may not replace with objects of their own.
const std::vector<std::string_view>& StarRocksFunctionNames();

}  // namespace sluice
