// Array functions that go with the lambdas of functions_lambda.cpp: array_length / cardinality and
// array_contains, DuckDB's len and list_contains.
#include "transform/coercion.h"
#include "transform/function_map.h"

namespace sluice::transform {

namespace {

Status NeedArray(const TypedSql& v, const CallSite& site) {
  if (v.type.cls == TypeClass::kList || v.type.cls == TypeClass::kNull) return Status::Ok();
  return site.Error(std::string("expects an ARRAY, got ") + (v.type.duckdb.empty() ? TypeClassName(v.type.cls)
                                                                                    : v.type.duckdb.c_str()));
}

Result<TypedSql> ArrayLength(std::vector<TypedSql>& a, const CallSite& site) {
  RETURN_IF_ERROR(NeedArray(a[0], site));
  return MakeTyped("CAST(len(" + a[0].sql + ") AS INTEGER)", TypeClass::kInteger, "INTEGER");
}

// array_contains(arr, x): whether an element equals x (x converted to the element type).
Result<TypedSql> ArrayContains(std::vector<TypedSql>& a, const CallSite& site) {
  RETURN_IF_ERROR(NeedArray(a[0], site));
  if (a[0].type.cls == TypeClass::kNull) return MakeTyped("CAST(NULL AS BOOLEAN)", TypeClass::kBoolean, "BOOLEAN");
  std::string element = ListElementType(a[0].type.duckdb);
  std::string x = element.empty() ? a[1].sql : ConvertTo(a[1], ClassifyDuckDBType(element), site.tz);
  return MakeTyped("list_contains(" + a[0].sql + ", " + x + ")", TypeClass::kBoolean, "BOOLEAN");
}

}  // namespace

void AddArrayFunctions(std::vector<FunctionInfo>* out) {
  out->push_back({"array_length", 1, 1, ArrayLength, "len(arr) (INT)"});
  out->push_back({"cardinality", 1, 1, ArrayLength, "len(arr) (INT)"});
  out->push_back({"array_contains", 2, 2, ArrayContains, "list_contains(arr, x)"});
}

}  // namespace sluice::transform
