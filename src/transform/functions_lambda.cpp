// StarRocks' higher-order functions: array_map / transform, array_filter, map_filter, transform_values and
// transform_keys. Each becomes one of DuckDB's vectorised list functions with a DuckDB lambda
// (`list_transform(l, lambda v: ...)`), so a load still runs column-at-a-time. Several arrays are walked together
// through list_zip; maps through map_entries / map_from_entries. The lambda may come first or last, as StarRocks
// allows; its body sees its parameters and every column in scope.
#include "transform/coercion.h"
#include "transform/function_map.h"

namespace sluice::transform {

namespace {

std::string Describe(const TypedSql& v) {
  return v.type.duckdb.empty() ? TypeClassName(v.type.cls) : v.type.duckdb;
}

SqlType ElementOf(const TypedSql& list) {
  if (list.type.duckdb.empty()) return SqlType{};
  return ClassifyDuckDBType(ListElementType(list.type.duckdb));
}

// A value whose exact DuckDB type is known, so a list built from it has one too (and a lambda over that list
// knows its parameter's type): integers as BIGINT, as StarRocks computes them, other numbers as DOUBLE.
TypedSql WithKnownType(TypedSql v) {
  if (!v.type.duckdb.empty()) return v;
  switch (v.type.cls) {
    case TypeClass::kInteger: return MakeTyped("CAST(" + v.sql + " AS BIGINT)", TypeClass::kInteger, "BIGINT");
    case TypeClass::kFloat:
    case TypeClass::kDecimal: return MakeTyped("CAST(" + v.sql + " AS DOUBLE)", TypeClass::kFloat, "DOUBLE");
    case TypeClass::kBoolean: return MakeTyped(v.sql, TypeClass::kBoolean, "BOOLEAN");
    case TypeClass::kVarchar: return MakeTyped(v.sql, TypeClass::kVarchar, "VARCHAR");
    case TypeClass::kNull: return MakeTyped("CAST(NULL AS INTEGER)", TypeClass::kInteger, "INTEGER");
    default: return v;
  }
}

// A result of class `cls` (a list or a map), with its exact type when known.
TypedSql Typed(std::string sql, const std::string& duckdb_type, TypeClass cls) {
  TypedSql out;
  out.sql = std::move(sql);
  out.type = duckdb_type.empty() ? SqlType{cls, "", std::nullopt} : ClassifyDuckDBType(duckdb_type);
  return out;
}

TypedSql NullResult() { return MakeTyped("NULL", TypeClass::kNull); }

bool AnyNull(const std::vector<TypedSql>& values) {
  for (const TypedSql& v : values) {
    if (v.type.cls == TypeClass::kNull) return true;
  }
  return false;
}

// Every value must be an ARRAY (or NULL); `usage` shows the right call in the error.
Status CheckArrays(const HigherOrderCall& c, const std::vector<TypedSql>& values, const std::string& usage) {
  if (values.empty()) return c.Error("expects " + usage + ", got no array");
  for (const TypedSql& v : values) {
    if (v.type.cls != TypeClass::kList && v.type.cls != TypeClass::kNull)
      return c.Error("expects " + usage + ", got " + Describe(v) +
                     (v.type.cls == TypeClass::kVarchar || v.type.cls == TypeClass::kJson
                          ? "; text is no ARRAY: load the field into an ARRAY column first (COLUMNS expressions "
                            "see it converted) or write CAST(x AS ARRAY<type>)"
                          : ""));
  }
  return Status::Ok();
}

Status CheckParams(const HigherOrderCall& c, size_t expected, const std::string& why) {
  size_t got = c.lambda->lambda_params.size();
  if (got == expected) return Status::Ok();
  return c.Error("the lambda takes " + std::to_string(expected) + " parameter" + (expected == 1 ? "" : "s") + " (" +
                 why + "), got " + std::to_string(got));
}

// The arrays a lambda walks: one array binds its element; several are zipped (StarRocks requires equal lengths;
// arrays of different lengths give NULL, where StarRocks fails the statement).
struct Walk {
  std::string list;   // the list the DuckDB lambda runs over
  std::string var;    // its variable
  std::vector<LambdaParam> params;
  std::string equal_lengths;  // "" for one array
};

Walk WalkArrays(HigherOrderCall& c, const std::vector<TypedSql>& arrays) {
  Walk w;
  w.var = c.fresh_name();
  if (arrays.size() == 1) {
    w.list = arrays[0].sql;
    w.params.push_back({w.var, ElementOf(arrays[0])});
    return w;
  }
  w.list = "list_zip(";
  for (size_t i = 0; i < arrays.size(); i++) {
    w.list += (i ? ", " : "") + arrays[i].sql;
    w.params.push_back({w.var + "[" + std::to_string(i + 1) + "]", ElementOf(arrays[i])});
    if (i > 0) w.equal_lengths += (i > 1 ? " AND len(" : "len(") + arrays[0].sql + ") = len(" + arrays[i].sql + ")";
  }
  w.list += ")";
  return w;
}

std::string Guarded(const Walk& w, const std::string& sql) {
  return w.equal_lengths.empty() ? sql : "CASE WHEN " + w.equal_lengths + " THEN " + sql + " END";
}

Status NeedLambda(const HigherOrderCall& c, const std::string& usage) {
  if (c.lambda) return Status::Ok();
  return c.Error("expects " + usage + ", got no lambda");
}

// array_map(x -> expr, arr1[, arr2 ...]) (or the lambda last): the array of the body's values.
Result<TypedSql> ArrayMap(HigherOrderCall& c) {
  const std::string usage = "a lambda and one ARRAY per parameter, e.g. array_map(x -> x * 2, arr)";
  RETURN_IF_ERROR(NeedLambda(c, usage));
  RETURN_IF_ERROR(CheckArrays(c, c.values, usage));
  RETURN_IF_ERROR(CheckParams(c, c.values.size(), "one per array"));
  if (AnyNull(c.values)) return NullResult();
  Walk w = WalkArrays(c, c.values);
  ASSIGN_OR_RETURN(TypedSql body, c.compile_body(w.params));
  body = WithKnownType(std::move(body));
  std::string sql = "list_transform(" + w.list + ", lambda " + w.var + ": " + body.sql + ")";
  return Typed(Guarded(w, sql), body.type.duckdb.empty() ? "" : body.type.duckdb + "[]", TypeClass::kList);
}

// array_filter(x -> cond, arr1[, arr2 ...]): the elements of arr1 for which cond holds (NULL counts as false).
// array_filter(arr, bool_array): the elements whose flag is true; a NULL flag array gives [], as in StarRocks.
Result<TypedSql> ArrayFilter(HigherOrderCall& c) {
  const std::string usage = "a lambda and an ARRAY (array_filter(x -> x > 0, arr)) or an ARRAY and an ARRAY of "
                            "booleans (array_filter(arr, [true, false]))";
  if (!c.lambda) {
    if (c.values.size() != 2) return c.Error("expects " + usage + ", got " + std::to_string(c.values.size()) +
                                             " arguments");
    const TypedSql& arr = c.values[0];
    const TypedSql& mask = c.values[1];
    RETURN_IF_ERROR(CheckArrays(c, c.values, usage));
    if (arr.type.cls == TypeClass::kNull) return NullResult();
    std::string x = c.fresh_name(), i = c.fresh_name();
    std::string keep = mask.type.cls == TypeClass::kNull
                           ? "false"
                           : "coalesce((TRY_CAST(" + mask.sql + " AS BOOLEAN[]))[" + i + "], false)";
    return Typed("list_filter(" + arr.sql + ", lambda " + x + ", " + i + ": " + keep + ")", arr.type.duckdb,
                 TypeClass::kList);
  }
  RETURN_IF_ERROR(CheckArrays(c, c.values, usage));
  RETURN_IF_ERROR(CheckParams(c, c.values.size(), "one per array"));
  if (AnyNull(c.values)) return NullResult();
  Walk w = WalkArrays(c, c.values);
  ASSIGN_OR_RETURN(TypedSql body, c.compile_body(w.params));
  std::string cond = AsBoolean(body, c.tz);
  std::string sql = "list_filter(" + w.list + ", lambda " + w.var + ": " + cond + ")";
  if (c.values.size() > 1) {
    std::string first = c.fresh_name();
    sql = "list_transform(" + sql + ", lambda " + first + ": " + first + "[1])";
  }
  return Typed(Guarded(w, sql), c.values[0].type.duckdb, TypeClass::kList);
}

Status CheckMap(const HigherOrderCall& c, const TypedSql& m, const std::string& usage) {
  if (m.type.cls == TypeClass::kMap || m.type.cls == TypeClass::kNull) return Status::Ok();
  return c.Error("expects " + usage + ", got " + Describe(m));
}

// The (key, value) parameters of a lambda over map `m`'s entries, read from entry variable `var`.
std::vector<LambdaParam> EntryParams(const TypedSql& m, const std::string& var) {
  return {{var + ".key", ClassifyDuckDBType(MapKeyType(m.type.duckdb))},
          {var + ".value", ClassifyDuckDBType(MapValueType(m.type.duckdb))}};
}

// map_filter((k, v) -> cond, m): the entries for which cond holds. map_filter(m, bool_array): the entries whose
// flag is true (a NULL flag array gives an empty map).
Result<TypedSql> MapFilter(HigherOrderCall& c) {
  const std::string usage = "a lambda and a MAP (map_filter((k, v) -> v IS NOT NULL, m)) or a MAP and an ARRAY of "
                            "booleans";
  if (!c.lambda) {
    if (c.values.size() != 2) return c.Error("expects " + usage + ", got " + std::to_string(c.values.size()) +
                                             " arguments");
    const TypedSql& m = c.values[0];
    const TypedSql& mask = c.values[1];
    RETURN_IF_ERROR(CheckMap(c, m, usage));
    RETURN_IF_ERROR(CheckArrays(c, {mask}, usage));
    if (m.type.cls == TypeClass::kNull) return NullResult();
    std::string e = c.fresh_name(), i = c.fresh_name();
    std::string keep = mask.type.cls == TypeClass::kNull
                           ? "false"
                           : "coalesce((TRY_CAST(" + mask.sql + " AS BOOLEAN[]))[" + i + "], false)";
    return Typed("map_from_entries(list_filter(map_entries(" + m.sql + "), lambda " + e + ", " + i + ": " + keep +
                     "))",
                 m.type.duckdb, TypeClass::kMap);
  }
  if (c.values.size() != 1) return c.Error("expects " + usage + ", got " + std::to_string(c.values.size()) +
                                           " values besides the lambda");
  const TypedSql& m = c.values[0];
  RETURN_IF_ERROR(CheckMap(c, m, usage));
  RETURN_IF_ERROR(CheckParams(c, 2, "the key and the value"));
  if (m.type.cls == TypeClass::kNull) return NullResult();
  std::string e = c.fresh_name();
  ASSIGN_OR_RETURN(TypedSql body, c.compile_body(EntryParams(m, e)));
  return Typed("map_from_entries(list_filter(map_entries(" + m.sql + "), lambda " + e + ": " +
                   AsBoolean(body, c.tz) + "))",
               m.type.duckdb, TypeClass::kMap);
}

// transform_values((k, v) -> expr, m) / transform_keys((k, v) -> expr, m): the map with each value (key)
// replaced by expr. Keys that collide or become NULL make the result NULL (StarRocks fails the statement).
Result<TypedSql> TransformMap(HigherOrderCall& c, bool keys) {
  const std::string usage = std::string("a lambda and a MAP, e.g. ") +
                            (keys ? "transform_keys((k, v) -> upper(k), m)" : "transform_values((k, v) -> v * 2, m)");
  RETURN_IF_ERROR(NeedLambda(c, usage));
  if (c.values.size() != 1) return c.Error("expects " + usage + ", got " + std::to_string(c.values.size()) +
                                           " values besides the lambda");
  const TypedSql& m = c.values[0];
  RETURN_IF_ERROR(CheckMap(c, m, usage));
  RETURN_IF_ERROR(CheckParams(c, 2, "the key and the value"));
  if (m.type.cls == TypeClass::kNull) return NullResult();
  std::string e = c.fresh_name();
  ASSIGN_OR_RETURN(TypedSql body, c.compile_body(EntryParams(m, e)));
  body = WithKnownType(std::move(body));
  std::string entry = keys ? "{'key': " + body.sql + ", 'value': " + e + ".value}"
                           : "{'key': " + e + ".key, 'value': " + body.sql + "}";
  std::string key_type = keys ? body.type.duckdb : MapKeyType(m.type.duckdb);
  std::string value_type = keys ? MapValueType(m.type.duckdb) : body.type.duckdb;
  std::string type = key_type.empty() || value_type.empty() ? "" : "MAP(" + key_type + ", " + value_type + ")";
  return Typed("map_from_entries(list_transform(map_entries(" + m.sql + "), lambda " + e + ": " + entry + "))", type,
               TypeClass::kMap);
}

Result<TypedSql> TransformValues(HigherOrderCall& c) { return TransformMap(c, /*keys=*/false); }
Result<TypedSql> TransformKeys(HigherOrderCall& c) { return TransformMap(c, /*keys=*/true); }

}  // namespace

const std::vector<HigherOrderInfo>& HigherOrderFunctions() {
  static const std::vector<HigherOrderInfo> kFunctions = {
      {"array_filter", ArrayFilter,
       "list_filter(arr, lambda x: cond); several arrays through list_zip; with a boolean array, by position"},
      {"array_map", ArrayMap, "list_transform(arr, lambda x: expr); several arrays through list_zip"},
      {"map_filter", MapFilter, "map_from_entries(list_filter(map_entries(m), lambda e: cond(e.key, e.value)))"},
      {"transform", ArrayMap, "= array_map"},
      {"transform_keys", TransformKeys, "map_from_entries(list_transform(map_entries(m), ...)) with new keys"},
      {"transform_values", TransformValues, "map_from_entries(list_transform(map_entries(m), ...)) with new values"},
  };
  return kFunctions;
}

const HigherOrderInfo* FindHigherOrderFunction(std::string_view name) {
  for (const HigherOrderInfo& f : HigherOrderFunctions()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace sluice::transform
