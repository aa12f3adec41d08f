// String functions. Every argument is made VARCHAR first (StarRocks converts numbers and dates to text for
// string functions; DuckDB would refuse them), and MySQL's edge cases are kept: concat() is NULL when any
// argument is NULL, a negative length gives '', length() counts bytes.
#include "transform/coercion.h"
#include "transform/function_map.h"

namespace sluice::transform {

namespace {

TypedSql Text(std::string sql) { return MakeTyped(std::move(sql), TypeClass::kVarchar, "VARCHAR"); }

std::string Str(const TypedSql& v, const CallSite& site) { return AsVarchar(v, site.tz); }

Result<TypedSql> Concat(std::vector<TypedSql>& a, const CallSite& site) {
  // DuckDB's concat() skips NULLs; its || operator is NULL when either side is, like MySQL's CONCAT.
  std::string out = "(";
  for (size_t i = 0; i < a.size(); i++) out += (i ? " || " : "") + Str(a[i], site);
  return Text(out + ")");
}

Result<TypedSql> ConcatWs(std::vector<TypedSql>& a, const CallSite& site) {
  std::string out = "concat_ws(";
  for (size_t i = 0; i < a.size(); i++) out += (i ? ", " : "") + Str(a[i], site);
  return Text(out + ")");
}

bool IsLiteralZero(const TypedSql& v) { return v.literal && v.sql == "0"; }

Result<TypedSql> Substr(std::vector<TypedSql>& a, const CallSite& site) {
  std::string s = Str(a[0], site);
  // MySQL: position 0 yields ''; DuckDB would start at the first character.
  if (IsLiteralZero(a[1])) return Text("left(" + s + ", 0)");
  std::string out = "substring(" + s + ", " + AsBigint(a[1], site.tz);
  if (a.size() == 3) out += ", greatest(" + AsBigint(a[2], site.tz) + ", 0)";
  return Text(out + ")");
}

template <const char* kName>
Result<TypedSql> Side(std::vector<TypedSql>& a, const CallSite& site) {
  // DuckDB's left('abc', -1) drops the last character; MySQL gives ''.
  return Text(std::string(kName) + "(" + Str(a[0], site) + ", greatest(" + AsBigint(a[1], site.tz) + ", 0))");
}
constexpr char kLeft[] = "left";
constexpr char kRight[] = "right";

// One-argument string functions with a DuckDB function of their own.
template <const char* kName>
Result<TypedSql> Unary(std::vector<TypedSql>& a, const CallSite& site) {
  return Text(std::string(kName) + "(" + Str(a[0], site) + ")");
}
constexpr char kUpper[] = "upper";
constexpr char kLower[] = "lower";
constexpr char kTrim[] = "trim";
constexpr char kLtrim[] = "ltrim";
constexpr char kRtrim[] = "rtrim";
constexpr char kMd5[] = "md5";

template <const char* kName>
Result<TypedSql> Count(std::vector<TypedSql>& a, const CallSite& site) {
  return MakeTyped(std::string(kName) + "(" + Str(a[0], site) + ")", TypeClass::kInteger, "BIGINT");
}
constexpr char kStrlen[] = "strlen";  // bytes, as MySQL's length()
constexpr char kLength[] = "length";  // characters

Result<TypedSql> Replace(std::vector<TypedSql>& a, const CallSite& site) {
  return Text("replace(" + Str(a[0], site) + ", " + Str(a[1], site) + ", " + Str(a[2], site) + ")");
}

template <const char* kName>
Result<TypedSql> Pad(std::vector<TypedSql>& a, const CallSite& site) {
  return Text(std::string(kName) + "(" + Str(a[0], site) + ", TRY_CAST(" + AsBigint(a[1], site.tz) +
              " AS INTEGER), " + Str(a[2], site) + ")");
}
constexpr char kLpad[] = "lpad";
constexpr char kRpad[] = "rpad";

Result<TypedSql> SplitPart(std::vector<TypedSql>& a, const CallSite& site) {
  return Text("split_part(" + Str(a[0], site) + ", " + Str(a[1], site) + ", " + AsBigint(a[2], site.tz) + ")");
}

// A pattern read from the data may not compile. DuckDB's TRY() around the whole expression misses that error
// when the call sits inside AND (or BETWEEN), failing the batch; a TRY() of its own catches it (NULL for the row).
std::string GuardPattern(const TypedSql& pattern, std::string call) {
  return pattern.constant ? call : "TRY(" + call + ")";
}

Result<TypedSql> RegexpExtract(std::vector<TypedSql>& a, const CallSite& site) {
  // DuckDB wants the group index as a constant.
  const TypedSql& group = a[2];
  if (!group.literal || group.type.cls != TypeClass::kInteger)
    return site.Error("the group index must be a whole-number literal");
  return Text(
      GuardPattern(a[1], "regexp_extract(" + Str(a[0], site) + ", " + Str(a[1], site) + ", " + group.sql + ")"));
}

Result<TypedSql> RegexpReplace(std::vector<TypedSql>& a, const CallSite& site) {
  // StarRocks replaces every match; DuckDB only the first unless given 'g'.
  return Text(GuardPattern(
      a[1], "regexp_replace(" + Str(a[0], site) + ", " + Str(a[1], site) + ", " + Str(a[2], site) + ", 'g')"));
}

}  // namespace

void AddStringFunctions(std::vector<FunctionInfo>* out) {
  out->push_back({"concat", 1, -1, Concat, "a || b || ... (NULL if any argument is NULL)"});
  out->push_back({"concat_ws", 2, -1, ConcatWs, "concat_ws(sep, ...) (NULL arguments skipped)"});
  out->push_back({"substr", 2, 3, Substr, "substring(s, pos[, len]) (1-based; negative pos counts from the end)"});
  out->push_back({"substring", 2, 3, Substr, "substring(s, pos[, len])"});
  out->push_back({"left", 2, 2, Side<kLeft>, "left(s, n)"});
  out->push_back({"right", 2, 2, Side<kRight>, "right(s, n)"});
  out->push_back({"upper", 1, 1, Unary<kUpper>, "upper(s)"});
  out->push_back({"ucase", 1, 1, Unary<kUpper>, "upper(s)"});
  out->push_back({"lower", 1, 1, Unary<kLower>, "lower(s)"});
  out->push_back({"lcase", 1, 1, Unary<kLower>, "lower(s)"});
  out->push_back({"trim", 1, 1, Unary<kTrim>, "trim(s) (spaces)"});
  out->push_back({"ltrim", 1, 1, Unary<kLtrim>, "ltrim(s)"});
  out->push_back({"rtrim", 1, 1, Unary<kRtrim>, "rtrim(s)"});
  out->push_back({"md5", 1, 1, Unary<kMd5>, "md5(s) (hex)"});
  out->push_back({"length", 1, 1, Count<kStrlen>, "strlen(s) (bytes, as in MySQL)"});
  out->push_back({"char_length", 1, 1, Count<kLength>, "length(s) (characters)"});
  out->push_back({"character_length", 1, 1, Count<kLength>, "length(s) (characters)"});
  out->push_back({"replace", 3, 3, Replace, "replace(s, from, to)"});
  out->push_back({"lpad", 3, 3, Pad<kLpad>, "lpad(s, n, pad)"});
  out->push_back({"rpad", 3, 3, Pad<kRpad>, "rpad(s, n, pad)"});
  out->push_back({"split_part", 3, 3, SplitPart, "split_part(s, delimiter, n)"});
  out->push_back({"regexp_extract", 3, 3, RegexpExtract, "regexp_extract(s, pattern, group)"});
  out->push_back({"regexp_replace", 3, 3, RegexpReplace, "regexp_replace(s, pattern, replacement, 'g')"});
}

}  // namespace sluice::transform
