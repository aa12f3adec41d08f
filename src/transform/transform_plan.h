#pragma once
// What Compile() decided before writing SQL: where each loaded column comes from and the compiled expressions.
// compiler.cpp builds it (validation, scopes); select_builder.cpp turns it into the SELECT.
#include <optional>
#include <string>
#include <vector>

#include "transform/compiler.h"
#include "transform/json_access.h"
#include "transform/time_zone.h"
#include "transform/typed_sql.h"

namespace sluice::transform {

// Where a value goes: a table column, the __op pseudo column, or nowhere (a placeholder source column).
struct Destination {
  int table_index = -1;  // into TransformSpec::table
  bool is_op = false;
  SqlType type;          // the table column's type
  bool loaded() const { return table_index >= 0 || is_op; }
};

struct PlannedSource {
  std::string name;  // as written in COLUMNS
  Destination dest;
};

struct PlannedDerived {
  std::string name;
  std::string expr_text;
  Destination dest;
  TypedSql expr;  // compiled over the source columns
};

struct TransformPlan {
  const TransformSpec* spec = nullptr;
  TimeZone tz;
  std::vector<PlannedSource> sources;
  std::vector<PlannedDerived> derived;
  std::optional<TypedSql> where;  // compiled over converted, derived and placeholder columns
  JsonReadPlan json_reads;        // JSON reads of source columns that share one parse per row
};

// Aliases the generated SQL gives each value, so user column names never clash with Sluice's own.
std::string RawAlias(size_t source_index);        // the source text
std::string ConvertedAlias(size_t source_index);  // converted to the table column's type
std::string ComputedAlias(size_t derived_index);  // TRY(expression), in the expression's own type
std::string ComputedTextAlias(size_t derived_index);  // TRY(its json_text), for a JSON expression that has one
std::string DerivedAlias(size_t derived_index);   // converted to the table column's type
std::string MetadataAlias(size_t metadata_index); // a metadata value in its own type

CompiledTransform BuildSelect(const TransformPlan& plan);

}  // namespace sluice::transform
