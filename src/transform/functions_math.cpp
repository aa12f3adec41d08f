// abs, round, floor, ceil, mod: text arguments are read as DOUBLE first, as StarRocks does in arithmetic.
#include "transform/coercion.h"
#include "transform/function_map.h"

namespace sluice::transform {

namespace {

Result<TypedSql> Number(const TypedSql& v, const CallSite& site) {
  Result<TypedSql> n = AsNumber(v, site.call.text + "()");
  if (!n.ok()) return site.Error(n.status().message());
  return n;
}

Result<TypedSql> Abs(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(TypedSql x, Number(a[0], site));
  return MakeTyped("abs(" + x.sql + ")", x.type.cls == TypeClass::kNull ? TypeClass::kFloat : x.type.cls);
}

Result<TypedSql> Round(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(TypedSql x, Number(a[0], site));
  TypeClass cls = x.type.cls == TypeClass::kNull ? TypeClass::kFloat : x.type.cls;
  if (a.size() == 1) return MakeTyped("round(" + x.sql + ")", cls);
  // DuckDB rounds a DECIMAL only to a constant number of digits (it decides the result's scale when binding);
  // digits read from the data round the value as a DOUBLE.
  if (cls == TypeClass::kDecimal && !a[1].literal) {
    x = MakeTyped("CAST(" + x.sql + " AS DOUBLE)", TypeClass::kFloat, "DOUBLE");
    cls = TypeClass::kFloat;
  }
  return MakeTyped("round(" + x.sql + ", TRY_CAST(" + AsBigint(a[1], site.tz) + " AS INTEGER))", cls);
}

// StarRocks' floor and ceil return BIGINT; DuckDB's keep the argument's type.
template <const char* kName>
Result<TypedSql> Rounding(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(TypedSql x, Number(a[0], site));
  return MakeTyped(std::string("TRY_CAST(") + kName + "(" + x.sql + ") AS BIGINT)", TypeClass::kInteger, "BIGINT");
}

constexpr char kFloor[] = "floor";
constexpr char kCeil[] = "ceil";

Result<TypedSql> Mod(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(TypedSql x, Number(a[0], site));
  ASSIGN_OR_RETURN(TypedSql y, Number(a[1], site));
  bool integral = x.type.cls == TypeClass::kInteger && y.type.cls == TypeClass::kInteger;
  // MySQL: a remainder by zero is NULL.
  return MakeTyped("(" + x.sql + " % NULLIF(" + y.sql + ", 0))", integral ? TypeClass::kInteger : TypeClass::kFloat);
}

}  // namespace

void AddMathFunctions(std::vector<FunctionInfo>* out) {
  out->push_back({"abs", 1, 1, Abs, "abs(x)"});
  out->push_back({"round", 1, 2, Round, "round(x[, d])"});
  out->push_back({"floor", 1, 1, Rounding<kFloor>, "CAST(floor(x) AS BIGINT)"});
  out->push_back({"ceil", 1, 1, Rounding<kCeil>, "CAST(ceil(x) AS BIGINT)"});
  out->push_back({"ceiling", 1, 1, Rounding<kCeil>, "CAST(ceil(x) AS BIGINT)"});
  out->push_back({"mod", 2, 2, Mod, "a % NULLIF(b, 0)"});
}

}  // namespace sluice::transform
