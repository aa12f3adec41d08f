// Renderings of the expression tree: positions for error messages, and a canonical form for tests.
#include "transform/expression.h"

namespace sluice::transform {

std::string PositionText(uint32_t line, uint32_t column) {
  if (line > 1) return "line " + std::to_string(line) + ", column " + std::to_string(column);
  return "column " + std::to_string(column);
}

std::string PositionOf(const Expr& expr) { return PositionText(expr.line, expr.column); }

namespace {

void AppendDebug(const Expr& e, std::string* out);

std::string TypeText(const TypeName& t) {
  std::string out = t.name;
  for (size_t i = 0; i < t.params.size(); i++) out += (i ? "," : "(") + std::to_string(t.params[i]);
  if (!t.params.empty()) out += ")";
  if (!t.element.empty()) out += "<" + TypeText(t.element[0]) + ">";
  return out;
}

void AppendChildren(const Expr& e, size_t from, std::string* out) {
  for (size_t i = from; i < e.children.size(); i++) {
    out->push_back(' ');
    AppendDebug(*e.children[i], out);
  }
}

void AppendDebug(const Expr& e, std::string* out) {
  switch (e.kind) {
    case ExprKind::kLiteral:
      if (e.literal == LiteralKind::kString) {
        *out += "'" + e.text + "'";
      } else {
        *out += e.text;
      }
      return;
    case ExprKind::kColumn:
      *out += "`" + e.text + "`";
      return;
    case ExprKind::kCall:
      *out += e.text + "(";
      for (size_t i = 0; i < e.children.size(); i++) {
        if (i) *out += ", ";
        AppendDebug(*e.children[i], out);
      }
      *out += ")";
      return;
    case ExprKind::kUnary:
    case ExprKind::kBinary:
      *out += "(" + e.op;
      AppendChildren(e, 0, out);
      *out += ")";
      return;
    case ExprKind::kIsNull:
      *out += e.negated ? "(IS NOT NULL" : "(IS NULL";
      AppendChildren(e, 0, out);
      *out += ")";
      return;
    case ExprKind::kIn:
    case ExprKind::kBetween:
    case ExprKind::kLike: {
      const char* name = e.kind == ExprKind::kIn ? "IN" : e.kind == ExprKind::kBetween ? "BETWEEN" : "LIKE";
      *out += std::string("(") + (e.negated ? "NOT " : "") + name;
      AppendChildren(e, 0, out);
      *out += ")";
      return;
    }
    case ExprKind::kCase: {
      *out += "(CASE";
      size_t i = 0;
      if (e.has_operand) {
        *out += " ";
        AppendDebug(*e.children[i++], out);
      }
      size_t end = e.children.size() - (e.has_else ? 1 : 0);
      for (; i < end; i += 2) {
        *out += " (WHEN ";
        AppendDebug(*e.children[i], out);
        *out += " ";
        AppendDebug(*e.children[i + 1], out);
        *out += ")";
      }
      if (e.has_else) {
        *out += " (ELSE ";
        AppendDebug(*e.children.back(), out);
        *out += ")";
      }
      *out += ")";
      return;
    }
    case ExprKind::kCast: {
      *out += "(CAST ";
      AppendDebug(*e.children[0], out);
      *out += " AS " + TypeText(e.cast_type);
      *out += ")";
      return;
    }
    case ExprKind::kSubscript:
      *out += "([]";
      AppendChildren(e, 0, out);
      *out += ")";
      return;
    case ExprKind::kArray:
      *out += "[";
      for (size_t i = 0; i < e.children.size(); i++) {
        if (i) *out += ", ";
        AppendDebug(*e.children[i], out);
      }
      *out += "]";
      return;
    case ExprKind::kLambda:
      *out += "(LAMBDA (";
      for (size_t i = 0; i < e.lambda_params.size(); i++) *out += (i ? " " : "") + e.lambda_params[i];
      *out += ")";
      AppendChildren(e, 0, out);
      *out += ")";
      return;
    case ExprKind::kInterval:
      *out += "(INTERVAL ";
      AppendDebug(*e.children[0], out);
      *out += " " + e.text + ")";
      return;
  }
}

}  // namespace

std::string DebugString(const Expr& expr) {
  std::string out;
  AppendDebug(expr, &out);
  return out;
}

}  // namespace sluice::transform
