// JSON functions and element_at. StarRocks' JSON paths ('$.a.b', '$.a[0]') are DuckDB's JSONPath too; a path
// without '$' is read as one under the root. Text that is not valid JSON gives NULL (TRY_CAST to JSON) instead
// of failing the row.
#include "sql/parser.h"
#include "transform/coercion.h"
#include "transform/function_map.h"

namespace sluice::transform {

namespace {

std::string JsonValue(const TypedSql& v, const CallSite& site) {
  if (v.type.cls == TypeClass::kJson) return v.sql;
  return "TRY_CAST(" + AsVarchar(v, site.tz) + " AS JSON)";
}

// A value as a JSON document for the StarRocks JSON functions: JSON as it is, ARRAY/MAP/STRUCT as their JSON,
// anything else read as JSON text (NULL when it is not JSON).
std::string JsonDocument(const TypedSql& v, const CallSite& site) {
  switch (v.type.cls) {
    case TypeClass::kList:
    case TypeClass::kMap:
    case TypeClass::kStruct: return "to_json(" + v.sql + ")";
    default: return JsonValue(v, site);
  }
}

// Whether DuckDB's JSONPath reader takes `p` ('$', '$.a.b', '$.a[0]', '$.a[#-1]', '$."x.y"', '$.*', '$[*]') or
// it is a JSON pointer ('/a/0'). A constant path DuckDB refuses fails the SQL when it is bound, so every batch of
// the job; it is refused when the job is created instead.
bool IsJsonPath(std::string_view p) {
  if (!p.empty() && p[0] == '/') return true;
  if (p.empty() || p[0] != '$') return false;
  size_t i = 1;
  while (i < p.size()) {
    if (p[i] == '.') {
      i++;
      if (i < p.size() && p[i] == '*') {
        i++;
      } else if (i < p.size() && p[i] == '.') {
        // '$..key' (any depth): the second '.' reads the key
      } else if (i < p.size() && p[i] == '"') {
        size_t close = p.find('"', i + 1);
        if (close == std::string_view::npos) return false;
        i = close + 1;
      } else {
        size_t start = i;
        while (i < p.size() && p[i] != '.' && p[i] != '[') i++;
        if (i == start) return false;
      }
    } else if (p[i] == '[') {
      size_t close = p.find(']', i);
      if (close == std::string_view::npos) return false;
      std::string_view inside = p.substr(i + 1, close - i - 1);
      if (inside != "*") {
        if (!inside.empty() && inside[0] == '#') inside.remove_prefix(1);
        if (!inside.empty() && inside[0] == '-') inside.remove_prefix(1);
        if (inside.empty() && p[i + 1] != '#') return false;
        for (char c : inside) {
          if (c < '0' || c > '9') return false;
        }
      }
      i = close + 1;
    } else {
      return false;
    }
  }
  return true;
}

// Whether a path can match several values ('$.a[*]', '$.*', '$..b'): DuckDB then returns a list, not one value.
bool HasWildcard(std::string_view p) {
  return p.find("[*]") != std::string_view::npos || p.find(".*") != std::string_view::npos ||
         p.find("..") != std::string_view::npos;
}

// StarRocks' JSON paths ('$.a.b', '$.a[0]'); a constant path without '$' is read under the root ('a.b').
// Wildcards only where the caller turns the list DuckDB returns into one value (`wildcards`).
Result<std::string> JsonPath(const TypedSql& path, const CallSite& site, bool* wildcards = nullptr) {
  if (path.constant) {
    const std::string& p = *path.constant;
    std::string full = !p.empty() && (p[0] == '$' || p[0] == '/') ? p : "$." + p;
    if (!IsJsonPath(full))
      return site.Error("'" + p + "' is not a JSON path; write '$' for the whole document, '$.key', '$.a.b', "
                        "'$.arr[0]' or '$.\"key.with.dots\"'");
    bool many = full[0] == '$' && HasWildcard(full);
    if (many && !wildcards)
      return site.Error("the path '" + p + "' has a wildcard ([*], .*, ..), which only json_query supports");
    if (wildcards) *wildcards = many;
    return sql::QuoteLiteral(full);
  }
  return AsVarchar(path, site.tz);
}

Result<std::string> ExtractString(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string path, JsonPath(a[1], site));
  return "json_extract_string(" + JsonValue(a[0], site) + ", " + path + ")";
}

Result<TypedSql> GetJsonString(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string sql, ExtractString(a, site));
  return MakeTyped(sql, TypeClass::kVarchar, "VARCHAR");
}

Result<TypedSql> GetJsonInt(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string sql, ExtractString(a, site));
  return MakeTyped("TRY_CAST(" + sql + " AS BIGINT)", TypeClass::kInteger, "BIGINT");
}

Result<TypedSql> GetJsonDouble(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string sql, ExtractString(a, site));
  return MakeTyped("TRY_CAST(" + sql + " AS DOUBLE)", TypeClass::kFloat, "DOUBLE");
}

Result<TypedSql> JsonExtract(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string path, JsonPath(a[1], site));
  return MakeTyped("json_extract(" + JsonValue(a[0], site) + ", " + path + ")", TypeClass::kJson, "JSON");
}

// json_query(j, path): the JSON at path; SQL NULL when nothing is there (a JSON null stays a JSON null).
// A wildcard path gives the JSON array of every match ([] when none).
Result<TypedSql> JsonQuery(std::vector<TypedSql>& a, const CallSite& site) {
  bool many = false;
  ASSIGN_OR_RETURN(std::string path, JsonPath(a[1], site, &many));
  std::string sql = "json_extract(" + JsonDocument(a[0], site) + ", " + path + ")";
  return MakeTyped(many ? "to_json(" + sql + ")" : sql, TypeClass::kJson, "JSON");
}

// json_exists(j, path): whether anything (a JSON null too) is at path; NULL for NULL or text that is not JSON.
Result<TypedSql> JsonExists(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string path, JsonPath(a[1], site));
  return MakeTyped("json_exists(" + JsonDocument(a[0], site) + ", " + path + ")", TypeClass::kBoolean, "BOOLEAN");
}

// json_length(j[, path]), StarRocks' rules: an array counts its elements, an object its members, a scalar (null
// included) is 1, nothing at path is 0. NULL for NULL or text that is not JSON (StarRocks fails the statement).
// Nested CASEs, so a row parses the document twice at most (its type, then its length).
Result<TypedSql> JsonLength(std::vector<TypedSql>& a, const CallSite& site) {
  std::string doc = JsonDocument(a[0], site);
  std::string at = ", '$'";
  if (a.size() > 1) {
    ASSIGN_OR_RETURN(std::string path, JsonPath(a[1], site));
    at = ", " + path;
  }
  std::string sql = "CAST(CASE json_type(" + doc + at + ") WHEN 'ARRAY' THEN json_array_length(" + doc + at +
                    ") WHEN 'OBJECT' THEN len(json_keys(" + doc + at + ")) ELSE CASE WHEN " + doc +
                    " IS NULL THEN NULL WHEN json_exists(" + doc + at + ") THEN 1 ELSE 0 END END AS INTEGER)";
  return MakeTyped(sql, TypeClass::kInteger, "INTEGER");
}

// Doris' json_unquote(s): a JSON string literal ('"a\tb"') becomes its text, escapes decoded; anything else,
// malformed literals included, comes back as it is. A JSON value gives its text (a string without quotes).
Result<TypedSql> JsonUnquote(std::vector<TypedSql>& a, const CallSite& site) {
  if (a[0].type.cls == TypeClass::kJson) return MakeTyped(AsVarchar(a[0], site.tz), TypeClass::kVarchar, "VARCHAR");
  std::string t = AsVarchar(a[0], site.tz);
  return MakeTyped("CASE WHEN " + t + " LIKE '\"%\"' THEN coalesce(json_extract_string(TRY_CAST(" + t +
                       " AS JSON), '$'), " + t + ") ELSE " + t + " END",
                   TypeClass::kVarchar, "VARCHAR");
}

Result<TypedSql> ParseJson(std::vector<TypedSql>& a, const CallSite& site) {
  return MakeTyped(JsonValue(a[0], site), TypeClass::kJson, "JSON");
}

// (x)[k] of a list; `one_based` says whether k counts from 1 (element_at) or from 0 (Lakehouse subscripts).
TypedSql ListElement(const TypedSql& x, const TypedSql& k, const CallSite& site, bool one_based) {
  SqlType element = ClassifyDuckDBType(ListElementType(x.type.duckdb));
  TypedSql out = MakeTyped("(" + x.sql + ")[" + AsBigint(k, site.tz) + (one_based ? "" : " + 1") + "]", element.cls,
                           element.duckdb);
  out.type = element;
  return out;
}

// A JSON pointer to element k (an integer, counted from 1 or 0) or to key k, with ~ and / escaped as RFC 6901 says:
// '/3' is the 4th element, '/name' a key.
std::string JsonPointer(const TypedSql& k, const CallSite& site, bool one_based) {
  if (k.type.cls == TypeClass::kInteger) return "'/' || CAST(" + k.sql + (one_based ? " - 1" : "") + " AS VARCHAR)";
  if (k.constant) {
    std::string key;
    for (char c : *k.constant) {
      if (c == '~') key += "~0";
      else if (c == '/') key += "~1";
      else key += c;
    }
    return sql::QuoteLiteral("/" + key);
  }
  return "'/' || replace(replace(" + AsVarchar(k, site.tz) + ", '~', '~0'), '/', '~1')";
}

// element_at(array, i) is 1-based and element_at(map, k) reads a key; both are NULL when absent. DuckDB 1.4's own
// element_at(map, k) returned NULL, so maps and lists use subscripts. Text is read as JSON (an object or array).
Result<TypedSql> ElementAt(std::vector<TypedSql>& a, const CallSite& site) {
  const TypedSql& x = a[0];
  const TypedSql& k = a[1];
  switch (x.type.cls) {
    case TypeClass::kNull:
      return MakeTyped("NULL", TypeClass::kNull);
    case TypeClass::kList:
      return ListElement(x, k, site, /*one_based=*/true);
    case TypeClass::kMap: {
      SqlType value = ClassifyDuckDBType(MapValueType(x.type.duckdb));
      SqlType key = ClassifyDuckDBType(MapKeyType(x.type.duckdb));
      TypedSql out = MakeTyped("(" + x.sql + ")[" + ConvertTo(k, key, site.tz) + "]", value.cls);
      out.type = value;
      return out;
    }
    case TypeClass::kVarchar:
    case TypeClass::kJson: {
      std::string pointer = JsonPointer(k, site, /*one_based=*/true);
      return MakeTyped("json_extract_string(" + JsonValue(x, site) + ", " + pointer + ")", TypeClass::kVarchar,
                       "VARCHAR");
    }
    default:
      return site.Error(std::string("needs an ARRAY, a MAP or JSON text, not a ") + TypeClassName(x.type.cls));
  }
}

// Lakehouse map('k1', v1, 'k2', v2, ...): a MAP(VARCHAR, VARCHAR); map() is the empty map.
Result<TypedSql> MakeMap(std::vector<TypedSql>& a, const CallSite& site) {
  if (a.size() % 2 != 0) return site.Error("needs pairs of key and value, got " + std::to_string(a.size()) + " arguments");
  std::string keys, values;
  for (size_t i = 0; i < a.size(); i += 2) {
    keys += (i ? ", " : "") + AsVarchar(a[i], site.tz);
    values += (i ? ", " : "") + AsVarchar(a[i + 1], site.tz);
  }
  TypedSql out = MakeTyped("map(CAST([" + keys + "] AS VARCHAR[]), CAST([" + values + "] AS VARCHAR[]))",
                           TypeClass::kMap, "MAP(VARCHAR, VARCHAR)");
  out.type = ClassifyDuckDBType("MAP(VARCHAR, VARCHAR)");
  return out;
}

}  // namespace

Result<TypedSql> EmitSubscript(std::vector<TypedSql>& a, const CallSite& site) {
  const TypedSql& x = a[0];
  const TypedSql& k = a[1];
  switch (x.type.cls) {
    case TypeClass::kNull:
      return MakeTyped("NULL", TypeClass::kNull);
    case TypeClass::kList:
      return ListElement(x, k, site, /*one_based=*/false);
    case TypeClass::kMap:
      return ElementAt(a, site);
    case TypeClass::kVarchar:
    case TypeClass::kJson: {
      // Lakehouse indexes JSON arrays from 0.
      std::string pointer = JsonPointer(k, site, /*one_based=*/false);
      return MakeTyped("json_extract(" + JsonValue(x, site) + ", " + pointer + ")", TypeClass::kJson, "JSON");
    }
    default:
      return site.Error(std::string("[] needs JSON, a MAP or an ARRAY, not a ") + TypeClassName(x.type.cls));
  }
}

void AddJsonFunctions(std::vector<FunctionInfo>* out) {
  out->push_back({"get_json_string", 2, 2, GetJsonString, "json_extract_string(TRY_CAST(j AS JSON), path)"});
  out->push_back({"get_json_int", 2, 2, GetJsonInt, "TRY_CAST(json_extract_string(j, path) AS BIGINT)"});
  out->push_back({"get_json_double", 2, 2, GetJsonDouble, "TRY_CAST(json_extract_string(j, path) AS DOUBLE)"});
  out->push_back({"json_extract", 2, 2, JsonExtract, "json_extract(TRY_CAST(j AS JSON), path) (JSON)"});
  out->push_back({"parse_json", 1, 1, ParseJson, "TRY_CAST(s AS JSON)"});
  out->push_back({"json_query", 2, 2, JsonQuery, "json_extract(j, path) (JSON; NULL when nothing is at path)"});
  out->push_back({"json_exists", 2, 2, JsonExists, "json_exists(j, path) (BOOLEAN)"});
  out->push_back({"json_length", 1, 2, JsonLength,
                  "json_array_length / len(json_keys) by json_type; scalar 1, missing path 0 (INT)"});
  out->push_back({"json_unquote", 1, 1, JsonUnquote,
                  "json_extract_string(s, '$') for a JSON string literal, else s (VARCHAR)"});
  out->push_back({"json_parse", 1, 1, ParseJson, "TRY_CAST(s AS JSON)"});
  out->push_back({"map", 0, -1, MakeMap, "map(['k', ...], ['v', ...]) (MAP(VARCHAR, VARCHAR), from key/value pairs)"});
  out->push_back({"element_at", 2, 2, ElementAt,
                  "list[i] / map[k] / json_extract_string(text, '/k') (NULL when absent)"});
}

}  // namespace sluice::transform
