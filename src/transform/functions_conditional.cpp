// if, ifnull/nvl, nullif, coalesce, greatest, least: their branches get one result type first, because DuckDB
// refuses (or fails at run time on) CASE and COALESCE over mixed text and numbers.
#include "transform/coercion.h"
#include "transform/function_map.h"

namespace sluice::transform {

namespace {

std::vector<TypedSql*> Pointers(std::vector<TypedSql>& args, size_t from) {
  std::vector<TypedSql*> out;
  for (size_t i = from; i < args.size(); i++) out.push_back(&args[i]);
  return out;
}

TypedSql Typed(std::string sql, const SqlType& type) {
  TypedSql out;
  out.sql = std::move(sql);
  out.type = type;
  return out;
}

std::string JoinSql(const std::vector<TypedSql>& args, size_t from) {
  std::string out;
  for (size_t i = from; i < args.size(); i++) out += (i > from ? ", " : "") + args[i].sql;
  return out;
}

Result<TypedSql> If(std::vector<TypedSql>& a, const CallSite& site) {
  std::string cond = AsBoolean(a[0], site.tz);
  SqlType type = UnifyResultTypes(Pointers(a, 1), site.tz);
  return Typed("CASE WHEN " + cond + " THEN " + a[1].sql + " ELSE " + a[2].sql + " END", type);
}

Result<TypedSql> Coalesce(std::vector<TypedSql>& a, const CallSite& site) {
  SqlType type = UnifyResultTypes(Pointers(a, 0), site.tz);
  return Typed("COALESCE(" + JoinSql(a, 0) + ")", type);
}

Result<TypedSql> NullIf(std::vector<TypedSql>& a, const CallSite& site) {
  TypedSql value = a[0], other = a[1];
  CoerceForComparison({&value, &other}, site.tz);
  // The result is the first argument as it was, even when the comparison needed it converted.
  if (value.sql == a[0].sql) return Typed("NULLIF(" + value.sql + ", " + other.sql + ")", a[0].type);
  return Typed("CASE WHEN " + value.sql + " = " + other.sql + " THEN NULL ELSE " + a[0].sql + " END", a[0].type);
}

template <const char* kName>
Result<TypedSql> Extreme(std::vector<TypedSql>& a, const CallSite& site) {
  SqlType type = UnifyResultTypes(Pointers(a, 0), site.tz);
  return Typed(std::string(kName) + "(" + JoinSql(a, 0) + ")", type);
}

constexpr char kGreatest[] = "greatest";
constexpr char kLeast[] = "least";

}  // namespace

void AddConditionalFunctions(std::vector<FunctionInfo>* out) {
  out->push_back({"if", 3, 3, If, "CASE WHEN c THEN a ELSE b END"});
  out->push_back({"ifnull", 2, 2, Coalesce, "COALESCE(a, b)"});
  out->push_back({"nvl", 2, 2, Coalesce, "COALESCE(a, b)"});
  out->push_back({"coalesce", 1, -1, Coalesce, "COALESCE(...)"});
  out->push_back({"nullif", 2, 2, NullIf, "NULLIF(a, b)"});
  out->push_back({"greatest", 1, -1, Extreme<kGreatest>, "greatest(...)"});
  out->push_back({"least", 1, -1, Extreme<kLeast>, "least(...)"});
}

}  // namespace sluice::transform
