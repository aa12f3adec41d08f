#include "transform/coercion.h"

#include <algorithm>

#include "common/ascii.h"
#include "sql/lexer.h"

namespace sluice::transform {

namespace {

std::string TryCast(const std::string& sql, const std::string& type) {
  return "TRY_CAST(" + sql + " AS " + type + ")";
}

// The text of a JSON value with string scalars unquoted: '"abc"' -> 'abc', '{"a":1}' stays as it is.
std::string JsonText(const std::string& sql) { return "json_extract_string(" + sql + ", '$')"; }

// ISO-like text ('2020-05-08', '2020/05/08 10:00:00', '2020-05-08T10:00:00Z') goes to DuckDB's fast TIMESTAMP
// cast; digits only ('20200508', '20200508100000', what from_unixtime(x, '%Y%m%d') gives) to strptime. Trying the
// cast first on compact text would cost five times as much: a failed cast is slow.
std::string TimestampFromText(const std::string& sql) {
  return "CASE WHEN contains(" + sql + ", '-') OR contains(" + sql + ", '/') THEN " + TryCast(sql, "TIMESTAMP") +
         " ELSE try_strptime(" + sql + ", ['%Y%m%d', '%Y%m%d%H%M%S']) END";
}

// DuckDB rounds '12.5' to 13 when casting text to an integer; StarRocks rejects it. A value with a decimal
// point is accepted only when its fraction is zero. For a column reference the cheap cast handles the common case.
std::string IntegerFromText(const TypedSql& v, const std::string& type) {
  const std::string& x = v.sql;
  if (v.simple) {
    return "CASE WHEN contains(" + x + ", '.') THEN " +
           TryCast("regexp_extract(" + x + ", '^\\s*([-+]?[0-9]+)\\.0*\\s*$', 1)", type) + " ELSE " +
           TryCast(x, type) + " END";
  }
  return TryCast("regexp_extract(" + x + ", '^\\s*([-+]?[0-9]+)(\\.0*)?\\s*$', 1)", type);
}

// Dates and datetimes read as numbers the StarRocks way: 2020-05-08 -> 20200508, with time -> 20200508100000.
std::string NumberFromTemporal(const TypedSql& v, const std::string& type, const TimeZone& tz) {
  if (v.type.cls == TypeClass::kDate) return TryCast("strftime(" + v.sql + ", '%Y%m%d')", type);
  return TryCast("strftime(" + AsTimestamp(v, tz) + ", '%Y%m%d%H%M%S')", type);
}

bool IsIntegerText(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return i < s.size() && s.size() - i <= 18 && s.find_first_not_of("0123456789", i) == std::string::npos;
}

// How a group of values is compared.
enum class CompareAs { kNative, kNumber, kTimestamp, kBoolean, kText };

CompareAs ChooseComparison(const std::vector<TypedSql*>& values) {
  bool any_numeric = false, any_temporal = false, any_bool = false, any_other = false;
  TypeClass first = TypeClass::kNull;
  bool all_same = true;
  for (const TypedSql* v : values) {
    TypeClass c = v->type.cls;
    if (c == TypeClass::kNull) continue;
    if (first == TypeClass::kNull) first = c;
    all_same = all_same && c == first;
    if (IsNumeric(c)) any_numeric = true;
    else if (IsTemporal(c)) any_temporal = true;
    else if (c == TypeClass::kBoolean) any_bool = true;
    else if (c != TypeClass::kVarchar && c != TypeClass::kJson) any_other = true;
  }
  if (all_same && first != TypeClass::kJson) return CompareAs::kNative;
  if (any_other) return CompareAs::kText;
  if (any_temporal) return any_bool ? CompareAs::kText : CompareAs::kTimestamp;
  if (any_numeric) return CompareAs::kNumber;
  if (any_bool) return CompareAs::kBoolean;
  return CompareAs::kText;
}

}  // namespace

std::string AsVarchar(const TypedSql& v, const TimeZone& tz) {
  switch (v.type.cls) {
    case TypeClass::kVarchar:
      return v.sql;
    case TypeClass::kNull:
      return "CAST(NULL AS VARCHAR)";
    case TypeClass::kBoolean:
      return "CAST(CAST(" + v.sql + " AS INTEGER) AS VARCHAR)";
    case TypeClass::kFloat:  // StarRocks prints the double 875 as 875, DuckDB as 875.0
      return "regexp_replace(CAST(" + v.sql + " AS VARCHAR), '\\.0$', '')";
    case TypeClass::kJson:
      return v.json_text ? *v.json_text : JsonText(v.sql);
    case TypeClass::kTimestampTz:
      return "CAST(" + tz.ToLocal(v.sql) + " AS VARCHAR)";
    default:
      return "CAST(" + v.sql + " AS VARCHAR)";
  }
}

std::string AsBoolean(const TypedSql& v, const TimeZone& tz) {
  switch (v.type.cls) {
    case TypeClass::kBoolean:
    case TypeClass::kNull:
      return v.sql;
    case TypeClass::kInteger:
    case TypeClass::kFloat:
    case TypeClass::kDecimal:
      return "(" + v.sql + " <> 0)";
    case TypeClass::kVarchar:
      return TryCast(v.sql, "BOOLEAN");
    default:
      return TryCast(AsVarchar(v, tz), "BOOLEAN");
  }
}

Result<TypedSql> AsNumber(const TypedSql& v, const std::string& where) {
  switch (v.type.cls) {
    case TypeClass::kInteger:
    case TypeClass::kFloat:
    case TypeClass::kDecimal:
    case TypeClass::kNull:
      return v;
    case TypeClass::kVarchar:
      return MakeTyped(TryCast(v.sql, "DOUBLE"), TypeClass::kFloat, "DOUBLE");
    case TypeClass::kJson:
      return MakeTyped(TryCast(v.json_text ? *v.json_text : JsonText(v.sql), "DOUBLE"), TypeClass::kFloat, "DOUBLE");
    case TypeClass::kBoolean:
      return MakeTyped("CAST(" + v.sql + " AS INTEGER)", TypeClass::kInteger, "INTEGER");
    case TypeClass::kDate:
    case TypeClass::kTimestamp:
    case TypeClass::kTimestampTz:
      return Status::InvalidArgument(std::string("cannot use ") + TypeClassName(v.type.cls) + " values in " +
                                     where + "; use date_add, date_sub or datediff for date arithmetic");
    default:
      return Status::InvalidArgument(std::string("cannot use ") + TypeClassName(v.type.cls) + " values in " + where);
  }
}

std::string AsBigint(const TypedSql& v, const TimeZone& tz) {
  switch (v.type.cls) {
    case TypeClass::kInteger:
    case TypeClass::kNull:
      return v.sql;
    case TypeClass::kFloat:
    case TypeClass::kDecimal:
      return TryCast("trunc(" + v.sql + ")", "BIGINT");
    case TypeClass::kBoolean:
      return "CAST(" + v.sql + " AS BIGINT)";
    case TypeClass::kVarchar:
      return TryCast(v.sql, "BIGINT");
    default:
      return TryCast(AsVarchar(v, tz), "BIGINT");
  }
}

std::string AsDouble(const TypedSql& v, const TimeZone& tz) {
  switch (v.type.cls) {
    case TypeClass::kInteger:
    case TypeClass::kFloat:
    case TypeClass::kDecimal:
    case TypeClass::kBoolean:
      return "CAST(" + v.sql + " AS DOUBLE)";
    case TypeClass::kNull:
      return "CAST(NULL AS DOUBLE)";
    case TypeClass::kVarchar:
      return TryCast(v.sql, "DOUBLE");
    default:
      return TryCast(AsVarchar(v, tz), "DOUBLE");
  }
}

std::string AsTimestamp(const TypedSql& v, const TimeZone& tz) {
  switch (v.type.cls) {
    case TypeClass::kTimestamp:
      return v.type.duckdb.empty() || v.type.duckdb == "TIMESTAMP" ? v.sql : "CAST(" + v.sql + " AS TIMESTAMP)";
    case TypeClass::kDate:
      return "CAST(" + v.sql + " AS TIMESTAMP)";
    case TypeClass::kTimestampTz:
      return tz.ToLocal(v.sql);
    case TypeClass::kNull:
      return "CAST(NULL AS TIMESTAMP)";
    case TypeClass::kVarchar:
      return TimestampFromText(v.sql);
    default:
      return TimestampFromText(AsVarchar(v, tz));
  }
}

std::string ConvertTo(const TypedSql& v, const SqlType& target, const TimeZone& tz) {
  const std::string& t = target.duckdb;
  const TypeClass from = v.type.cls;
  if (from == TypeClass::kNull) return "CAST(NULL AS " + t + ")";
  if (from == target.cls && !v.type.duckdb.empty() && v.type.duckdb == t) return v.sql;
  switch (target.cls) {
    case TypeClass::kVarchar:
      return AsVarchar(v, tz);
    case TypeClass::kInteger:
      if (from == TypeClass::kInteger || from == TypeClass::kBoolean) return TryCast(v.sql, t);
      if (from == TypeClass::kFloat || from == TypeClass::kDecimal) return TryCast("trunc(" + v.sql + ")", t);
      if (from == TypeClass::kVarchar) return IntegerFromText(v, t);
      if (IsTemporal(from)) return NumberFromTemporal(v, t, tz);
      return TryCast(AsVarchar(v, tz), t);
    case TypeClass::kFloat:
    case TypeClass::kDecimal:
      if (IsNumeric(from) || from == TypeClass::kBoolean || from == TypeClass::kVarchar) return TryCast(v.sql, t);
      if (IsTemporal(from)) return NumberFromTemporal(v, t, tz);
      return TryCast(AsVarchar(v, tz), t);
    case TypeClass::kBoolean:
      return AsBoolean(v, tz);
    case TypeClass::kDate:
      if (from == TypeClass::kDate) return v.sql;
      return "CAST(" + AsTimestamp(v, tz) + " AS DATE)";
    case TypeClass::kTimestamp:
      return t == "TIMESTAMP" ? AsTimestamp(v, tz) : "CAST(" + AsTimestamp(v, tz) + " AS " + t + ")";
    case TypeClass::kTimestampTz:
      if (from == TypeClass::kTimestampTz) return v.sql;
      return tz.FromLocal(AsTimestamp(v, tz));
    case TypeClass::kJson:
      if (from == TypeClass::kJson) return v.sql;
      if (from == TypeClass::kVarchar) return TryCast(v.sql, "JSON");
      return "to_json(" + v.sql + ")";
    case TypeClass::kList:
    case TypeClass::kMap:
    case TypeClass::kStruct:
      // Text holds nested values as JSON ('[1,2]', '{"k":"v"}'), which DuckDB converts faithfully, quotes and all.
      if (from == TypeClass::kVarchar) return TryCast(TryCast(v.sql, "JSON"), t);
      if (from == TypeClass::kJson || from == target.cls) return TryCast(v.sql, t);
      return TryCast(TryCast(AsVarchar(v, tz), "JSON"), t);
    case TypeClass::kTime:
      if (from == TypeClass::kTimestamp) return "CAST(" + v.sql + " AS TIME)";
      return TryCast(AsVarchar(v, tz), t);
    default:
      // BLOB keeps the text's bytes as they are (a cast would read backslash escapes); UUID and others parse text.
      if (AsciiUpper(t) == "BLOB" && from == TypeClass::kVarchar) return "encode(" + v.sql + ")";
      return TryCast(AsVarchar(v, tz), t);
  }
}

namespace {

void CoerceOne(TypedSql* v, CompareAs how, bool others_integral, const TimeZone& tz) {
  const TypeClass c = v->type.cls;
  if (c == TypeClass::kNull || how == CompareAs::kNative) return;
  switch (how) {
    case CompareAs::kNumber:
      if (IsNumeric(c)) return;
      if (v->constant && IsIntegerText(*v->constant) && others_integral) {
        // `id = '42'`: compare exactly, as an integer, not through DOUBLE.
        *v = MakeTyped(TryCast(v->sql, "BIGINT"), TypeClass::kInteger, "BIGINT");
      } else if (c == TypeClass::kBoolean) {
        *v = MakeTyped("CAST(" + v->sql + " AS INTEGER)", TypeClass::kInteger, "INTEGER");
      } else {
        *v = MakeTyped(AsDouble(*v, tz), TypeClass::kFloat, "DOUBLE");
      }
      return;
    case CompareAs::kTimestamp:
      if (c == TypeClass::kTimestamp || c == TypeClass::kDate) return;  // DuckDB compares these two itself
      *v = MakeTyped(AsTimestamp(*v, tz), TypeClass::kTimestamp, "TIMESTAMP");
      return;
    case CompareAs::kBoolean:
      if (c != TypeClass::kBoolean) *v = MakeTyped(AsBoolean(*v, tz), TypeClass::kBoolean, "BOOLEAN");
      return;
    case CompareAs::kText:
      if (c != TypeClass::kVarchar) *v = MakeTyped(AsVarchar(*v, tz), TypeClass::kVarchar, "VARCHAR");
      return;
    case CompareAs::kNative:
      return;
  }
}

}  // namespace

void CoerceForComparison(std::vector<TypedSql*> values, const TimeZone& tz) {
  CompareAs how = ChooseComparison(values);
  bool integral = true;
  for (const TypedSql* v : values) {
    if (IsNumeric(v->type.cls) && v->type.cls != TypeClass::kInteger) integral = false;
  }
  for (TypedSql* v : values) CoerceOne(v, how, integral, tz);
}

SqlType UnifyResultTypes(std::vector<TypedSql*> values, const TimeZone& tz) {
  SqlType first;
  first.cls = TypeClass::kNull;
  bool all_same = true, all_numeric = true, all_temporal = true, any_float = false, any_decimal = false;
  for (const TypedSql* v : values) {
    TypeClass c = v->type.cls;
    if (c == TypeClass::kNull) continue;
    if (first.cls == TypeClass::kNull) first = v->type;
    all_same = all_same && c == first.cls && v->type.duckdb == first.duckdb;
    all_numeric = all_numeric && (IsNumeric(c) || c == TypeClass::kBoolean);
    all_temporal = all_temporal && IsTemporal(c);
    any_float = any_float || c == TypeClass::kFloat;
    any_decimal = any_decimal || c == TypeClass::kDecimal;
  }
  if (first.cls == TypeClass::kNull || all_same) return first;
  SqlType out;
  if (all_numeric) {
    for (TypedSql* v : values) {
      if (v->type.cls == TypeClass::kBoolean)
        *v = MakeTyped("CAST(" + v->sql + " AS INTEGER)", TypeClass::kInteger, "INTEGER");
    }
    out.cls = any_float ? TypeClass::kFloat : any_decimal ? TypeClass::kDecimal : TypeClass::kInteger;
    return out;  // the exact type is DuckDB's choice
  }
  out = ClassifyDuckDBType(all_temporal ? "TIMESTAMP" : "VARCHAR");
  for (TypedSql* v : values) {
    if (v->type.cls == TypeClass::kNull) continue;
    if (all_temporal) {
      *v = MakeTyped(AsTimestamp(*v, tz), TypeClass::kTimestamp, "TIMESTAMP");
    } else if (v->type.cls != TypeClass::kVarchar) {
      *v = MakeTyped(AsVarchar(*v, tz), TypeClass::kVarchar, "VARCHAR");
    }
  }
  return out;
}

}  // namespace sluice::transform
