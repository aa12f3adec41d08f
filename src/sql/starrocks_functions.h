#pragma once
// StarRocks/Doris scalar functions DuckDB lacks, as DuckDB TEMP macros that every connection running user SQL
// defines (sessions, and the workers that run volume pipes' SELECTs), so queries call them as StarRocks users write
// them: json_query, json_length, json_unquote, get_json_string, get_json_int, get_json_double. A macro expands into
// DuckDB's own vectorised JSON functions when the query is bound. Load expressions (COLUMNS, WHERE, Kafka pipes'
// SELECTs) do not use these: transform/ compiles its own SQL for them.
#include <string>
#include <string_view>
#include <vector>

namespace sluice::sql {

// CREATE OR REPLACE TEMP MACRO statements, to run on a connection before user SQL.
const std::vector<std::string>& StarRocksFunctionMacros();

// The macro names, which users may not replace with objects of their own.
const std::vector<std::string_view>& StarRocksFunctionNames();

}  // namespace sluice::sql
