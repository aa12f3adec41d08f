#pragma once
// Turns a parsed load expression into DuckDB SQL over the columns in scope, adding the implicit conversions
// StarRocks makes (coercion.h) and mapping function calls (function_map.h).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "transform/expression.h"
#include "transform/time_zone.h"
#include "transform/typed_sql.h"

namespace sluice::transform {

// A name an expression may use, and the SQL that reads it in the generated query.
struct ColumnBinding {
  std::string sql;
  SqlType type;
};

// The columns visible to an expression; names match case-insensitively, as in StarRocks.
class Scope {
 public:
  Scope() = default;
  // A scope inside `parent` (a lambda's body): its own names shadow the parent's.
  explicit Scope(const Scope* parent) : parent_(parent) {}
  void Add(const std::string& name, ColumnBinding binding);
  const ColumnBinding* Find(std::string_view name) const;
  // "a, b, c" in the order added, for error messages.
  std::string Names() const;

 private:
  std::vector<std::pair<std::string, ColumnBinding>> entries_;  // (name as declared, binding)
  const Scope* parent_ = nullptr;
};

// Names the expression uses that the scope does not have, each once, in order of appearance.
std::vector<std::string> UnknownColumns(const Expr& expr, const Scope& scope);

class JsonReadPlan;

// Compiles an expression whose columns are all in scope. Errors name the position of the offending part.
// With `json_reads`, constant-path JSON reads of a text column are registered there and share one parse per row
// (json_access.h); the SELECT must then include json_reads->Columns() in a step before the expression's.
Result<TypedSql> CompileExpression(const Expr& expr, const Scope& scope, const TimeZone& tz,
                                   JsonReadPlan* json_reads = nullptr);

}  // namespace sluice::transform
