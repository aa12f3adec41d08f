#include "transform/expression_compiler.h"

#include <algorithm>

#include "sql/lexer.h"
#include "sql/parser.h"
#include "transform/coercion.h"
#include "transform/function_map.h"
#include "transform/json_access.h"
#include "transform/utf8.h"

namespace sluice::transform {

void Scope::Add(const std::string& name, ColumnBinding binding) { entries_.emplace_back(name, std::move(binding)); }

const ColumnBinding* Scope::Find(std::string_view name) const {
  for (const auto& [n, b] : entries_) {
    if (sql::EqualsIgnoreCase(n, name)) return &b;
  }
  return parent_ ? parent_->Find(name) : nullptr;
}

std::string Scope::Names() const {
  std::string out;
  for (const auto& entry : entries_) out += (out.empty() ? "" : ", ") + entry.first;
  if (parent_) {
    std::string outer = parent_->Names();
    if (outer != "(none)") out += (out.empty() ? "" : ", ") + outer;
  }
  return out.empty() ? "(none)" : out;
}

namespace {

// `bound`: the parameters of the lambdas around `e`, which are names too.
void CollectUnknown(const Expr& e, const Scope& scope, std::vector<std::string>* bound,
                    std::vector<std::string>* out) {
  auto same = [&](const std::string& n) { return sql::EqualsIgnoreCase(n, e.text); };
  if (e.kind == ExprKind::kColumn && !scope.Find(e.text) && std::none_of(bound->begin(), bound->end(), same)) {
    bool seen = std::any_of(out->begin(), out->end(), same);
    if (!seen) out->push_back(e.text);
  }
  if (e.kind == ExprKind::kLambda) bound->insert(bound->end(), e.lambda_params.begin(), e.lambda_params.end());
  for (const auto& c : e.children) CollectUnknown(*c, scope, bound, out);
  if (e.kind == ExprKind::kLambda) bound->resize(bound->size() - e.lambda_params.size());
}

bool IsWideInteger(const TypedSql& v) {
  const std::string& t = v.type.duckdb;
  return t == "BIGINT" || t == "HUGEINT" || t == "UBIGINT" || t == "UHUGEINT";
}

// A source column as the SELECT names it from its raw and converted steps on (select_builder.cpp: RawAlias,
// ConvertedAlias, MetadataAlias), where the shared JSON reads are extracted; computed columns come later.
bool IsSourceAlias(const std::string& sql) {
  const std::string prefix = "__sluice_";
  if (sql.size() < prefix.size() + 2 || sql.compare(0, prefix.size(), prefix) != 0) return false;
  const char kind = sql[prefix.size()];
  if (kind != 'r' && kind != 'v' && kind != 'm') return false;
  return std::all_of(sql.begin() + static_cast<std::ptrdiff_t>(prefix.size()) + 1, sql.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

class Compiler {
 public:
  Compiler(const Scope& scope, const TimeZone& tz, JsonReadPlan* json_reads, int* lambda_names = nullptr)
      : scope_(scope), tz_(tz), json_reads_(json_reads), lambda_names_(lambda_names ? lambda_names : &own_names_) {}

  Result<TypedSql> Compile(const Expr& e) {
    ASSIGN_OR_RETURN(TypedSql out, CompileNode(e));
    if (out.sql.size() > kMaxGeneratedSqlBytes)
      return Error(e, "the expression is too complex: its DuckDB translation exceeds " +
                          std::to_string(kMaxGeneratedSqlBytes / 1024) + " KB");
    return out;
  }

 private:
  static Status Error(const Expr& e, const std::string& what) {
    return Status::InvalidArgument(what + " (at " + PositionOf(e) + ")");
  }

  Result<TypedSql> CompileNode(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kLiteral: return Literal(e);
      case ExprKind::kColumn: return Column(e);
      case ExprKind::kCall: return Call(e);
      case ExprKind::kUnary: return Unary(e);
      case ExprKind::kBinary: return Binary(e);
      case ExprKind::kIsNull: return IsNull(e);
      case ExprKind::kIn: return In(e);
      case ExprKind::kBetween: return Between(e);
      case ExprKind::kLike: return Like(e);
      case ExprKind::kCase: return Case(e);
      case ExprKind::kCast: return Cast(e);
      case ExprKind::kInterval: return Interval(e);
      case ExprKind::kSubscript: return Subscript(e);
      case ExprKind::kArray: return Array(e);
      case ExprKind::kLambda: return LambdaMisplaced(e, nullptr);
    }
    return Error(e, "unsupported expression");
  }

  // Compiles an operand that must be a value (an INTERVAL is only meaningful in date arithmetic).
  Result<TypedSql> Value(const Expr& e) {
    ASSIGN_OR_RETURN(TypedSql v, Compile(e));
    if (v.type.cls == TypeClass::kInterval)
      return Error(e, "INTERVAL can only be added to or subtracted from a date, or passed to date_add/date_sub");
    return v;
  }

  Result<TypedSql> Literal(const Expr& e) {
    TypedSql out;
    out.simple = true;
    switch (e.literal) {
      case LiteralKind::kNull:
        out = MakeTyped("NULL", TypeClass::kNull);
        break;
      case LiteralKind::kBoolean:
        out = MakeTyped(e.text == "TRUE" ? "true" : "false", TypeClass::kBoolean, "BOOLEAN");
        break;
      case LiteralKind::kInteger:
        out = MakeTyped(e.text, TypeClass::kInteger);
        break;
      case LiteralKind::kDecimal:
        out = MakeTyped(e.text, TypeClass::kDecimal);
        break;
      case LiteralKind::kFloat:
        out = MakeTyped(e.text, TypeClass::kFloat, "DOUBLE");
        break;
      case LiteralKind::kString:
        if (!IsValidUtf8(e.text)) return Error(e, "a string literal must be valid UTF-8 without NUL bytes");
        out = MakeTyped(sql::QuoteLiteral(e.text), TypeClass::kVarchar, "VARCHAR");
        out.constant = e.text;
        break;
    }
    out.simple = true;
    out.literal = true;
    return out;
  }

  Result<TypedSql> Column(const Expr& e) {
    const ColumnBinding* b = scope_.Find(e.text);
    if (!b) return Error(e, "unknown column '" + e.text + "'; known columns: " + scope_.Names());
    TypedSql out;
    out.sql = b->sql;
    out.type = b->type;
    out.simple = true;
    return out;
  }

  static bool AcceptsInterval(std::string_view name) {
    return name == "date_add" || name == "date_sub" || name == "adddate" || name == "subdate";
  }

  static Status LambdaMisplaced(const Expr& lambda, const Expr* call) {
    std::string names;
    for (const HigherOrderInfo& f : HigherOrderFunctions()) names += (names.empty() ? "" : ", ") + std::string(f.name);
    return Error(lambda, (call ? call->text + "() takes no lambda; a" : "A") +
                             std::string(" lambda can only be an argument of ") + names);
  }

  // [a, b, ...]: one element type (as CASE branches get one); integers as BIGINT, other numbers as DOUBLE when
  // DuckDB would choose, so lambdas over the array know their parameter's type.
  Result<TypedSql> Array(const Expr& e) {
    ASSIGN_OR_RETURN(std::vector<TypedSql> items, Values(e, 0, e.children.size()));
    SqlType type = UnifyResultTypes(Pointers(items), tz_);
    std::string element = type.duckdb;
    if (element.empty()) {
      element = type.cls == TypeClass::kInteger ? "BIGINT"
                : type.cls == TypeClass::kNull  ? "INTEGER"
                : IsNumeric(type.cls)           ? "DOUBLE"
                                                : "VARCHAR";
    }
    std::string sql = "CAST([";
    for (size_t i = 0; i < items.size(); i++) sql += (i ? ", " : "") + items[i].sql;
    TypedSql out;
    out.sql = sql + "] AS " + element + "[])";
    out.type = ClassifyDuckDBType(element + "[]");
    return out;
  }

  // array_map, array_filter, ...: the lambda (first or last, as StarRocks allows) is compiled by the function
  // with the parameters it binds, in a scope where they shadow columns of the same name.
  Result<TypedSql> HigherOrder(const Expr& e, const HigherOrderInfo& f) {
    HigherOrderCall call{e, tz_, {}, nullptr, {}, {}};
    for (size_t i = 0; i < e.children.size(); i++) {
      const Expr& c = *e.children[i];
      if (c.kind != ExprKind::kLambda) {
        ASSIGN_OR_RETURN(TypedSql v, Value(c));
        call.values.push_back(std::move(v));
        continue;
      }
      if (call.lambda) return Error(c, e.text + "() takes one lambda");
      if (i != 0 && i + 1 != e.children.size())
        return Error(c, e.text + "(): the lambda must be the first or the last argument");
      call.lambda = &c;
    }
    call.fresh_name = [this] { return "__sluice_l" + std::to_string((*lambda_names_)++); };
    call.compile_body = [this, &call](const std::vector<LambdaParam>& params) -> Result<TypedSql> {
      const Expr& lambda = *call.lambda;
      Scope inner(&scope_);
      for (size_t i = 0; i < params.size() && i < lambda.lambda_params.size(); i++)
        inner.Add(lambda.lambda_params[i], ColumnBinding{params[i].sql, params[i].type});
      return Compiler(inner, tz_, json_reads_, lambda_names_).Value(*lambda.children[0]);
    };
    return f.emit(call);
  }

  Result<TypedSql> Call(const Expr& e) {
    if (const HigherOrderInfo* h = FindHigherOrderFunction(e.text)) return HigherOrder(e, *h);
    for (const auto& c : e.children) {
      if (c->kind == ExprKind::kLambda) return LambdaMisplaced(*c, &e);
    }
    const FunctionInfo* f = FindFunction(e.text);
    if (!f) return Error(e, "unknown function '" + e.text + "'; supported: " + SupportedFunctionNames());
    int n = static_cast<int>(e.children.size());
    if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
      const std::string min = std::to_string(f->min_args), max = std::to_string(f->max_args);
      std::string expected = f->min_args == f->max_args ? min
                             : f->max_args < 0          ? "at least " + min
                                                        : min + " to " + max;
      bool one = f->max_args == 1 || (f->max_args < 0 && f->min_args == 1);  // "1 argument", "at least 1 argument"
      return Error(e, e.text + "() takes " + expected + " argument" + (one ? "" : "s") + ", got " + std::to_string(n));
    }
    std::vector<TypedSql> args;
    for (size_t i = 0; i < e.children.size(); i++) {
      if (i == 1 && AcceptsInterval(e.text)) {
        ASSIGN_OR_RETURN(TypedSql arg, Compile(*e.children[i]));
        args.push_back(std::move(arg));
      } else {
        ASSIGN_OR_RETURN(TypedSql arg, Value(*e.children[i]));
        args.push_back(std::move(arg));
      }
    }
    return f->emit(args, CallSite{e, tz_});
  }

  Result<TypedSql> Number(const Expr& e, const TypedSql& v, const std::string& where) {
    Result<TypedSql> n = AsNumber(v, where);
    if (!n.ok()) return Error(e, n.status().message());
    return n;
  }

  Result<TypedSql> Unary(const Expr& e) {
    ASSIGN_OR_RETURN(TypedSql x, Value(*e.children[0]));
    if (e.op == "NOT") return MakeTyped("(NOT " + AsBoolean(x, tz_) + ")", TypeClass::kBoolean, "BOOLEAN");
    ASSIGN_OR_RETURN(TypedSql n, Number(*e.children[0], x, "unary " + e.op));
    if (e.op == "+") return n;
    TypeClass cls = n.type.cls == TypeClass::kNull ? TypeClass::kInteger : n.type.cls;
    return MakeTyped("(- " + n.sql + ")", cls, n.type.duckdb);
  }

  static bool IsComparison(const std::string& op) {
    return op == "=" || op == "<=>" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=";
  }

  Result<TypedSql> Binary(const Expr& e) {
    const std::string& op = e.op;
    if (op == "AND" || op == "OR") {
      std::string out = "(";
      for (size_t i = 0; i < e.children.size(); i++) {
        ASSIGN_OR_RETURN(TypedSql v, Value(*e.children[i]));
        out += (i ? " " + op + " " : "") + AsBoolean(v, tz_);
      }
      return MakeTyped(out + ")", TypeClass::kBoolean, "BOOLEAN");
    }
    // Each operand is compiled once: compiling twice would double the work at every level of a+b+c+...
    ASSIGN_OR_RETURN(TypedSql a, Compile(*e.children[0]));
    ASSIGN_OR_RETURN(TypedSql b, Compile(*e.children[1]));
    if (op == "+" && a.type.cls == TypeClass::kInterval && b.type.cls != TypeClass::kInterval) std::swap(a, b);
    if ((op == "+" || op == "-") && b.type.cls == TypeClass::kInterval && a.type.cls != TypeClass::kInterval) {
      // MySQL date arithmetic: `dt + INTERVAL 1 DAY`.
      return MakeTyped("(" + AsTimestamp(a, tz_) + " " + op + " " + IntervalSql(b) + ")", TypeClass::kTimestamp,
                       "TIMESTAMP");
    }
    for (size_t i = 0; i < 2; i++) {
      if ((i == 0 ? a : b).type.cls == TypeClass::kInterval)
        return Error(*e.children[i], "INTERVAL can only be added to or subtracted from a date, or passed to "
                                     "date_add/date_sub");
    }
    if (op == "XOR") {
      return MakeTyped("(" + AsBoolean(a, tz_) + " <> " + AsBoolean(b, tz_) + ")", TypeClass::kBoolean, "BOOLEAN");
    }
    if (IsComparison(op)) {
      CoerceForComparison({&a, &b}, tz_);
      std::string duck_op = op == "<=>" ? "IS NOT DISTINCT FROM" : op;
      return MakeTyped("(" + a.sql + " " + duck_op + " " + b.sql + ")", TypeClass::kBoolean, "BOOLEAN");
    }
    return Arithmetic(e, std::move(a), std::move(b));
  }

  Result<TypedSql> Arithmetic(const Expr& e, TypedSql a, TypedSql b) {
    const std::string& op = e.op;
    const std::string where = "arithmetic (" + op + ")";
    ASSIGN_OR_RETURN(a, Number(*e.children[0], a, where));
    ASSIGN_OR_RETURN(b, Number(*e.children[1], b, where));
    auto cls = [](TypeClass x) { return x == TypeClass::kNull ? TypeClass::kInteger : x; };
    TypeClass ca = cls(a.type.cls), cb = cls(b.type.cls);
    bool integral = ca == TypeClass::kInteger && cb == TypeClass::kInteger;
    // MySQL: dividing by zero gives NULL (DuckDB would give inf or NULL depending on the operator).
    if (op == "/") return MakeTyped("(" + a.sql + " / NULLIF(" + b.sql + ", 0))", TypeClass::kFloat, "DOUBLE");
    if (op == "%") {
      TypeClass cls = integral ? TypeClass::kInteger : TypeClass::kFloat;
      return MakeTyped("(" + a.sql + " % NULLIF(" + b.sql + ", 0))", cls);
    }
    if (op == "DIV") {
      if (integral) return MakeTyped("(" + a.sql + " // NULLIF(" + b.sql + ", 0))", TypeClass::kInteger, "BIGINT");
      return MakeTyped("TRY_CAST(trunc(" + a.sql + " / NULLIF(" + b.sql + ", 0)) AS BIGINT)", TypeClass::kInteger,
                       "BIGINT");
    }
    if (integral) {
      // StarRocks computes integer arithmetic in BIGINT; DuckDB would overflow INTEGER operands (int_col + 1).
      std::string lhs = IsWideInteger(a) || IsWideInteger(b) ? a.sql : "CAST(" + a.sql + " AS BIGINT)";
      return MakeTyped("(" + lhs + " " + op + " " + b.sql + ")", TypeClass::kInteger,
                       a.type.duckdb == "HUGEINT" || b.type.duckdb == "HUGEINT" ? "HUGEINT" : "BIGINT");
    }
    TypeClass out = (ca == TypeClass::kFloat || cb == TypeClass::kFloat) ? TypeClass::kFloat : TypeClass::kDecimal;
    return MakeTyped("(" + a.sql + " " + op + " " + b.sql + ")", out);
  }

  Result<TypedSql> IsNull(const Expr& e) {
    ASSIGN_OR_RETURN(TypedSql x, Value(*e.children[0]));
    return MakeTyped("(" + x.sql + (e.negated ? " IS NOT NULL)" : " IS NULL)"), TypeClass::kBoolean, "BOOLEAN");
  }

  Result<std::vector<TypedSql>> Values(const Expr& e, size_t from, size_t to) {
    std::vector<TypedSql> out;
    for (size_t i = from; i < to; i++) {
      ASSIGN_OR_RETURN(TypedSql v, Value(*e.children[i]));
      out.push_back(std::move(v));
    }
    return out;
  }

  static std::vector<TypedSql*> Pointers(std::vector<TypedSql>& values) {
    std::vector<TypedSql*> out;
    for (TypedSql& v : values) out.push_back(&v);
    return out;
  }

  Result<TypedSql> In(const Expr& e) {
    ASSIGN_OR_RETURN(std::vector<TypedSql> v, Values(e, 0, e.children.size()));
    CoerceForComparison(Pointers(v), tz_);
    std::string out = "(" + v[0].sql + (e.negated ? " NOT IN (" : " IN (");
    for (size_t i = 1; i < v.size(); i++) out += (i > 1 ? ", " : "") + v[i].sql;
    return MakeTyped(out + "))", TypeClass::kBoolean, "BOOLEAN");
  }

  Result<TypedSql> Between(const Expr& e) {
    ASSIGN_OR_RETURN(std::vector<TypedSql> v, Values(e, 0, 3));
    CoerceForComparison(Pointers(v), tz_);
    return MakeTyped("(" + v[0].sql + (e.negated ? " NOT BETWEEN " : " BETWEEN ") + v[1].sql + " AND " + v[2].sql + ")",
                     TypeClass::kBoolean, "BOOLEAN");
  }

  Result<TypedSql> Like(const Expr& e) {
    ASSIGN_OR_RETURN(std::vector<TypedSql> v, Values(e, 0, 2));
    // MySQL's LIKE escapes with a backslash unless told otherwise; DuckDB's has no escape character by default.
    std::string escape = "'\\'";
    if (e.children.size() == 3) {
      ASSIGN_OR_RETURN(TypedSql esc, Value(*e.children[2]));
      if (!esc.constant || esc.constant->size() != 1)
        return Error(*e.children[2], "ESCAPE needs a one-character string literal");
      escape = esc.sql;
    }
    return MakeTyped("(" + AsVarchar(v[0], tz_) + (e.negated ? " NOT LIKE " : " LIKE ") + AsVarchar(v[1], tz_) +
                         " ESCAPE " + escape + ")",
                     TypeClass::kBoolean, "BOOLEAN");
  }

  Result<TypedSql> Case(const Expr& e) {
    size_t end = e.children.size() - (e.has_else ? 1 : 0);
    size_t first_when = e.has_operand ? 1 : 0;
    std::vector<TypedSql> conditions, results;
    TypedSql operand;
    if (e.has_operand) {
      ASSIGN_OR_RETURN(operand, Value(*e.children[0]));
    }
    for (size_t i = first_when; i < end; i += 2) {
      ASSIGN_OR_RETURN(TypedSql when, Value(*e.children[i]));
      ASSIGN_OR_RETURN(TypedSql then, Value(*e.children[i + 1]));
      conditions.push_back(std::move(when));
      results.push_back(std::move(then));
    }
    if (e.has_else) {
      ASSIGN_OR_RETURN(TypedSql otherwise, Value(*e.children.back()));
      results.push_back(std::move(otherwise));
    }
    if (e.has_operand) {
      std::vector<TypedSql*> compared = Pointers(conditions);
      compared.insert(compared.begin(), &operand);
      CoerceForComparison(compared, tz_);
    }
    SqlType type = UnifyResultTypes(Pointers(results), tz_);
    std::string out = e.has_operand ? "CASE " + operand.sql : "CASE";
    for (size_t i = 0; i < conditions.size(); i++) {
      std::string cond = e.has_operand ? conditions[i].sql : AsBoolean(conditions[i], tz_);
      out += " WHEN " + cond + " THEN " + results[i].sql;
    }
    if (e.has_else) out += " ELSE " + results.back().sql;
    TypedSql typed;
    typed.sql = out + " END";
    typed.type = type;
    return typed;
  }

  Result<TypedSql> Cast(const Expr& e) {
    ASSIGN_OR_RETURN(TypedSql x, Value(*e.children[0]));
    Result<SqlType> target = CastTargetType(e.cast_type);
    if (!target.ok()) return Error(e, target.status().message());
    TypedSql out = MakeTyped(ConvertTo(x, *target, tz_), target->cls, target->duckdb);
    out.type = *target;
    return out;
  }

  Result<TypedSql> Subscript(const Expr& e) {
    if (json_reads_) {
      if (std::optional<JsonRead> read = MatchJsonRead(e)) {
        ASSIGN_OR_RETURN(TypedSql base, Value(*read->base));
        if (base.type.cls == TypeClass::kVarchar && IsSourceAlias(base.sql)) {
          if (auto shared = json_reads_->Add(base.sql, read->pointer)) {
            TypedSql out = MakeTyped(shared->json_sql, TypeClass::kJson, "JSON");
            out.json_text = shared->text_sql;
            return out;
          }
        }
      }
    }
    std::vector<TypedSql> args;
    for (const auto& c : e.children) {
      ASSIGN_OR_RETURN(TypedSql arg, Value(*c));
      args.push_back(std::move(arg));
    }
    return EmitSubscript(args, CallSite{e, tz_});
  }

  Result<TypedSql> Interval(const Expr& e) {
    ASSIGN_OR_RETURN(TypedSql amount, Value(*e.children[0]));
    TypedSql out = MakeTyped(AsBigint(amount, tz_), TypeClass::kInterval);
    out.interval_unit = e.text;
    return out;
  }

  const Scope& scope_;
  const TimeZone& tz_;
  JsonReadPlan* json_reads_;  // nullptr: every JSON read parses on its own
  int own_names_ = 0;
  int* lambda_names_;  // the next lambda variable's number, shared by the compilers of nested lambda bodies
};

}  // namespace

std::vector<std::string> UnknownColumns(const Expr& expr, const Scope& scope) {
  std::vector<std::string> out, bound;
  CollectUnknown(expr, scope, &bound, &out);
  return out;
}

Result<TypedSql> CompileExpression(const Expr& expr, const Scope& scope, const TimeZone& tz,
                                   JsonReadPlan* json_reads) {
  return Compiler(scope, tz, json_reads).Compile(expr);
}

}  // namespace sluice::transform
