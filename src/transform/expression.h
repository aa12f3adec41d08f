#pragma once
// The expressions users write in a load's COLUMNS (`col = expr`) and WHERE: the StarRocks/MySQL subset, parsed
// into a small tree. The tree knows nothing about DuckDB; expression_compiler.h turns it into DuckDB SQL.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::transform {

// Deeper trees are refused, so neither the parser, the compiler nor DuckDB's own parser can run out of stack.
inline constexpr int kMaxExpressionDepth = 200;

enum class ExprKind {
  kLiteral,   // `literal` says which; `text` holds the value (strings unquoted, numbers as written, hex as decimal)
  kColumn,    // `text` is the column name as written, quotes resolved
  kCall,      // `text` is the function name in lower case; `children` are the arguments
  kUnary,     // `op` is "-", "+" or "NOT"; children[0]
  kBinary,    // `op` is + - * / % DIV = <=> <> < <= > >= AND OR XOR; AND and OR keep whole chains (n children)
  kIsNull,    // children[0] IS [NOT] NULL
  kIn,        // children[0] [NOT] IN (children[1..])
  kBetween,   // children[0] [NOT] BETWEEN children[1] AND children[2]
  kLike,      // children[0] [NOT] LIKE children[1] [ESCAPE children[2]]
  kCase,      // CASE [operand] WHEN a THEN b ... [ELSE c] END: children = [operand] a b ... [c]
  kCast,      // CAST(children[0] AS cast_type), also TRY_CAST(...), CONVERT(children[0], cast_type) and x::cast_type
  kInterval,  // INTERVAL children[0] <unit>: `text` is the unit in upper case (DAY, HOUR, ...)
  kSubscript, // children[0][children[1]]: a JSON key or index, a map key, a list index (Lakehouse `j['a']`)
  kArray,     // [children...]: an array literal, StarRocks' `[1, 2, 3]`
  kLambda,    // `x -> body`, `(x, y) -> body`: `lambda_params`; children[0] is the body. Only a function argument
};

enum class LiteralKind { kNull, kBoolean, kInteger, kDecimal, kFloat, kString };

// A type as written in CAST: name in upper case (INT, VARCHAR, DECIMAL, DATETIME, SIGNED ...) and its parameters.
struct TypeName {
  std::string name;
  std::vector<int64_t> params;
  std::vector<TypeName> element;  // ARRAY<T>: T (one entry)
};

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  uint32_t line = 1;    // where the node starts in the expression text, for error messages
  uint32_t column = 1;  // 1-based, in characters
  std::string text;
  std::string op;
  LiteralKind literal = LiteralKind::kNull;
  bool negated = false;      // IS NOT NULL, NOT IN, NOT BETWEEN, NOT LIKE
  bool has_operand = false;  // CASE x WHEN ...
  bool has_else = false;
  TypeName cast_type;
  std::vector<std::string> lambda_params;  // kLambda: the parameter names as written
  std::vector<std::unique_ptr<Expr>> children;
  int depth = 1;  // height of the subtree
};

using ExprPtr = std::unique_ptr<Expr>;

// Parses one expression. Errors are InvalidArgument naming the position ("at column 12") and what was expected.
Result<ExprPtr> ParseExpression(std::string_view text);

// A canonical, fully parenthesized rendering of the tree (for tests and debugging), e.g. "(+ a 1)".
std::string DebugString(const Expr& expr);

// Where a node is, as the error messages say it: "column 12" or "line 2, column 3".
std::string PositionOf(const Expr& expr);
std::string PositionText(uint32_t line, uint32_t column);

}  // namespace sluice::transform
