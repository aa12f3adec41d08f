#include "catalog/table_partitions.h"

#include <algorithm>
#include <set>

#include "catalog/table_meta.h"
#include "common/ascii.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

enum class ValueKind { kInteger, kDate, kDatetime, kString };

bool IsIntegerType(const std::string& t) {
  return t == "TINYINT" || t == "SMALLINT" || t == "INTEGER" || t == "BIGINT" || t == "HUGEINT";
}

std::optional<ValueKind> KindOf(const std::string& duckdb_type) {
  const std::string t = AsciiUpper(duckdb_type);
  if (IsIntegerType(t)) return ValueKind::kInteger;
  if (t == "DATE") return ValueKind::kDate;
  if (t == "TIMESTAMP") return ValueKind::kDatetime;
  if (t == "VARCHAR") return ValueKind::kString;
  return std::nullopt;
}

ValueKind KindOfColumn(const PartitionScheme& s, size_t i) { return KindOf(s.column_types[i]).value_or(ValueKind::kString); }

bool AllDigits(const std::string& s, size_t from, size_t to) {
  if (from >= to || to > s.size()) return false;
  for (size_t i = from; i < to; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

int Number(const std::string& s, size_t from, size_t len) { return std::stoi(s.substr(from, len)); }

bool ValidDate(int y, int m, int d) {
  static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 0 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return false;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return !(m == 2 && d == 29 && !leap);
}

// The canonical text of a bound or list value for the column's type, or nullopt when it is not one.
std::optional<std::string> Canonical(const std::string& type, const std::string& text) {
  const std::string t = AsciiUpper(type);
  switch (KindOf(t).value_or(ValueKind::kString)) {
    case ValueKind::kInteger: {
      size_t start = text.size() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
      if (!AllDigits(text, start, text.size()) || text.size() - start > 39) return std::nullopt;
      std::string digits = text.substr(start);
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
      bool negative = text[0] == '-' && digits != "0";
      __int128 v = 0;
      for (char c : digits) v = v * 10 + (c - '0');
      if (negative) v = -v;
      const __int128 lo = t == "TINYINT" ? -128 : t == "SMALLINT" ? -32768 : t == "INTEGER" ? -2147483648LL
                          : t == "BIGINT" ? static_cast<__int128>(INT64_MIN) : -(static_cast<__int128>(1) << 126);
      const __int128 hi = t == "TINYINT" ? 127 : t == "SMALLINT" ? 32767 : t == "INTEGER" ? 2147483647LL
                          : t == "BIGINT" ? static_cast<__int128>(INT64_MAX) : (static_cast<__int128>(1) << 126);
      if (v < lo || v > hi) return std::nullopt;
      return (negative ? "-" : "") + digits;
    }
    case ValueKind::kDate:
    case ValueKind::kDatetime: {
      // YYYY-MM-DD, and for DATETIME also YYYY-MM-DD HH:MM:SS.
      if (text.size() < 10 || !AllDigits(text, 0, 4) || text[4] != '-' || !AllDigits(text, 5, 7) || text[7] != '-' ||
          !AllDigits(text, 8, 10))
        return std::nullopt;
      if (!ValidDate(Number(text, 0, 4), Number(text, 5, 2), Number(text, 8, 2))) return std::nullopt;
      std::string date = text.substr(0, 10);
      bool is_date = KindOf(t) == ValueKind::kDate;
      if (text.size() == 10) return is_date ? date : date + " 00:00:00";
      if (is_date || text.size() != 19 || text[10] != ' ' || !AllDigits(text, 11, 13) || text[13] != ':' ||
          !AllDigits(text, 14, 16) || text[16] != ':' || !AllDigits(text, 17, 19))
        return std::nullopt;
      if (Number(text, 11, 2) > 23 || Number(text, 14, 2) > 59 || Number(text, 17, 2) > 59) return std::nullopt;
      return text;
    }
    case ValueKind::kString:
      return text;
  }
  return std::nullopt;
}

__int128 ToInt128(const std::string& s) {
  bool negative = !s.empty() && s[0] == '-';
  __int128 v = 0;
  for (size_t i = negative ? 1 : 0; i < s.size(); i++) v = v * 10 + (s[i] - '0');
  return negative ? -v : v;
}

int CompareValue(ValueKind kind, const std::string& a, const std::string& b) {
  if (kind == ValueKind::kInteger) {
    __int128 x = ToInt128(a), y = ToInt128(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // DATE and DATETIME texts are fixed-width, so they sort as text; strings compare by bytes, as DuckDB's do.
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

// A point of the range order: -1 MINVALUE, +1 MAXVALUE, 0 the tuple `values`.
struct Point {
  int infinity = 0;
  const std::vector<std::string>* values = nullptr;
};

int ComparePoints(const PartitionScheme& s, const Point& a, const Point& b) {
  if (a.infinity || b.infinity) return a.infinity == b.infinity ? 0 : a.infinity < b.infinity ? -1 : 1;
  for (size_t i = 0; i < a.values->size(); i++)
    if (int c = CompareValue(KindOfColumn(s, i), (*a.values)[i], (*b.values)[i])) return c;
  return 0;
}

Point Lower(const PartitionDef& p) { return p.lower.empty() ? Point{-1, nullptr} : Point{0, &p.lower}; }
Point Upper(const PartitionDef& p) { return p.upper.empty() ? Point{1, nullptr} : Point{0, &p.upper}; }

std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string TupleText(const std::vector<std::string>& v) {
  std::string out = "(";
  for (size_t i = 0; i < v.size(); i++) out += (i ? ", " : "") + Quoted(v[i]);
  return out + ")";
}

std::string RangeText(const PartitionDef& p) {
  return "[" + (p.lower.empty() ? std::string("MINVALUE") : TupleText(p.lower)) + ", " +
         (p.upper.empty() ? std::string("MAXVALUE") : TupleText(p.upper)) + ")";
}

std::string ColumnList(const PartitionScheme& s) {
  std::string out;
  for (size_t i = 0; i < s.columns.size(); i++) out += (i ? ", " : "") + s.columns[i];
  return out;
}

// A bound's values, checked and made canonical. MAXVALUE is only a whole upper bound.
Result<std::vector<std::string>> BoundValues(const PartitionScheme& s, const std::string& partition,
                                             const std::vector<sql::PartitionValue>& written, bool* is_max) {
  *is_max = false;
  if (written.size() == 1 && written[0].is_max) {
    *is_max = true;
    return std::vector<std::string>{};
  }
  if (written.size() != s.columns.size())
    return Status::InvalidArgument("partition '" + partition + "' gives " + std::to_string(written.size()) +
                                   " values in a bound, but the table is partitioned by " +
                                   std::to_string(s.columns.size()) + " column(s) (" + ColumnList(s) +
                                   "); give one value per column");
  std::vector<std::string> out;
  for (size_t i = 0; i < written.size(); i++) {
    if (written[i].is_max)
      return Status::InvalidArgument("partition '" + partition + "': MAXVALUE stands for a whole bound; write "
                                     "VALUES LESS THAN MAXVALUE");
    auto v = Canonical(s.column_types[i], written[i].text);
    if (!v)
      return Status::InvalidArgument("partition '" + partition + "': \"" + written[i].text +
                                     "\" is not a valid value of partition column '" + s.columns[i] + "' (" +
                                     AsciiLower(s.column_types[i]) + ")" +
                                     (KindOf(s.column_types[i]) == ValueKind::kDate ? "; write \"YYYY-MM-DD\""
                                      : KindOf(s.column_types[i]) == ValueKind::kDatetime
                                          ? "; write \"YYYY-MM-DD HH:MM:SS\""
                                          : ""));
    out.push_back(std::move(*v));
  }
  return out;
}

Status CheckNewName(const PartitionScheme& s, const std::string& name) {
  if (s.Find(name)) return Status::InvalidArgument("Duplicate partition name " + name);
  return Status::Ok();
}

Status AddRange(PartitionScheme& s, const sql::PartitionItem& item) {
  if (item.kind == sql::PartitionItem::Kind::kIn)
    return Status::InvalidArgument("partition '" + item.name + "': table is partitioned by RANGE (" + ColumnList(s) +
                                   "); give VALUES LESS THAN (...) or VALUES [(...), (...)), not VALUES IN");
  PartitionDef p;
  p.name = item.name;
  bool max = false;
  if (item.kind == sql::PartitionItem::Kind::kLessThan) {
    ASSIGN_OR_RETURN(p.upper, BoundValues(s, item.name, item.less_than, &max));
    // StarRocks: a LESS THAN partition starts where the partition below it ends (MINVALUE when none does).
    Point upper = max ? Point{1, nullptr} : Point{0, &p.upper};
    const PartitionDef* below = nullptr;
    for (const auto& q : s.partitions)
      if (ComparePoints(s, Upper(q), upper) <= 0 && (!below || ComparePoints(s, Upper(q), Upper(*below)) > 0))
        below = &q;
    if (below && ComparePoints(s, Upper(*below), upper) == 0)
      return Status::InvalidArgument("Range of partition '" + item.name + "' is empty: partition '" + below->name +
                                     "' already ends at " + (max ? "MAXVALUE" : TupleText(p.upper)));
    if (below) p.lower = below->upper;
  } else {
    bool lower_max = false;
    ASSIGN_OR_RETURN(p.lower, BoundValues(s, item.name, item.lower, &lower_max));
    if (lower_max) return Status::InvalidArgument("partition '" + item.name + "': a lower bound cannot be MAXVALUE");
    ASSIGN_OR_RETURN(p.upper, BoundValues(s, item.name, item.upper, &max));
    if (!max && ComparePoints(s, Lower(p), Upper(p)) >= 0)
      return Status::InvalidArgument("partition '" + item.name + "': the lower bound " + TupleText(p.lower) +
                                     " must be smaller than the upper bound " + TupleText(p.upper));
  }
  for (const auto& q : s.partitions) {
    if (ComparePoints(s, Lower(p), Upper(q)) < 0 && ComparePoints(s, Lower(q), Upper(p)) < 0)
      return Status::InvalidArgument("Range " + RangeText(p) + " of partition '" + item.name +
                                     "' overlaps partition '" + q.name + "' " + RangeText(q));
  }
  p.id = s.next_id++;
  auto at = std::find_if(s.partitions.begin(), s.partitions.end(),
                         [&](const PartitionDef& q) { return ComparePoints(s, Lower(p), Lower(q)) < 0; });
  s.partitions.insert(at, std::move(p));
  return Status::Ok();
}

std::string ListTupleText(const std::vector<std::optional<std::string>>& t) {
  std::string out = t.size() > 1 ? "(" : "";
  for (size_t i = 0; i < t.size(); i++) out += (i ? ", " : "") + (t[i] ? Quoted(*t[i]) : std::string("NULL"));
  return out + (t.size() > 1 ? ")" : "");
}

Status AddList(PartitionScheme& s, const sql::PartitionItem& item) {
  if (item.kind != sql::PartitionItem::Kind::kIn)
    return Status::InvalidArgument("partition '" + item.name + "': table is partitioned by LIST (" + ColumnList(s) +
                                   "); give VALUES IN (...)");
  PartitionDef p;
  p.name = item.name;
  for (const auto& written : item.in) {
    if (written.size() != s.columns.size())
      return Status::InvalidArgument("partition '" + item.name + "' lists a value of " +
                                     std::to_string(written.size()) + " column(s), but the table is partitioned by " +
                                     std::to_string(s.columns.size()) + " (" + ColumnList(s) +
                                     "); list each value as (v1, v2, ...) with one value per column");
    std::vector<std::optional<std::string>> tuple;
    for (size_t i = 0; i < written.size(); i++) {
      if (written[i].is_null) {
        tuple.emplace_back();
        continue;
      }
      auto v = Canonical(s.column_types[i], written[i].text);
      if (!v)
        return Status::InvalidArgument("partition '" + item.name + "': \"" + written[i].text +
                                       "\" is not a valid value of partition column '" + s.columns[i] + "' (" +
                                       AsciiLower(s.column_types[i]) + ")");
      tuple.emplace_back(std::move(*v));
    }
    auto same = [&](const std::vector<std::optional<std::string>>& other) {
      for (size_t i = 0; i < tuple.size(); i++) {
        if (tuple[i].has_value() != other[i].has_value()) return false;
        if (tuple[i] && CompareValue(KindOfColumn(s, i), *tuple[i], *other[i]) != 0) return false;
      }
      return true;
    };
    for (const auto& q : s.partitions)
      for (const auto& other : q.values)
        if (same(other))
          return Status::InvalidArgument("Duplicate values " + ListTupleText(tuple) + " in partitions '" + q.name +
                                         "' and '" + item.name + "': a value belongs to one partition");
    for (const auto& other : p.values)
      if (same(other))
        return Status::InvalidArgument("partition '" + item.name + "' lists " + ListTupleText(tuple) + " twice");
    p.values.push_back(std::move(tuple));
  }
  p.id = s.next_id++;
  s.partitions.push_back(std::move(p));
  return Status::Ok();
}

// Days since 1970-01-01 of a civil date, and back (Howard Hinnant's algorithms).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp + (mp < 10 ? 3 : -9);
  *y = yoe + era * 400 + (*m <= 2);
}

std::string TwoDigits(int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); }

// A canonical DATE / DATETIME text as seconds since the epoch, and back in the column's form.
int64_t ToSeconds(const std::string& t) {
  int64_t days = DaysFromCivil(std::stoll(t.substr(0, 4)), std::stoll(t.substr(5, 2)), std::stoll(t.substr(8, 2)));
  int64_t secs = t.size() >= 19 ? std::stoll(t.substr(11, 2)) * 3600 + std::stoll(t.substr(14, 2)) * 60 +
                                      std::stoll(t.substr(17, 2))
                                : 0;
  return days * 86400 + secs;
}

std::string FromSeconds(int64_t s, bool datetime) {
  int64_t days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
  int64_t rest = s - days * 86400, y, m, d;
  CivilFromDays(days, &y, &m, &d);
  std::string out = std::to_string(y) + "-" + TwoDigits(m) + "-" + TwoDigits(d);
  if (datetime) out += " " + TwoDigits(rest / 3600) + ":" + TwoDigits(rest / 60 % 60) + ":" + TwoDigits(rest % 60);
  return out;
}

// The next bound of a batch: `v` moved by n units (MONTH and YEAR keep the day, clamped to the month's end).
std::string Step(const std::string& v, int64_t n, const std::string& unit, bool datetime) {
  int64_t s = ToSeconds(v);
  if (unit == "HOUR") return FromSeconds(s + n * 3600, datetime);
  if (unit == "DAY") return FromSeconds(s + n * 86400, datetime);
  if (unit == "WEEK") return FromSeconds(s + n * 7 * 86400, datetime);
  int64_t y = std::stoll(v.substr(0, 4)), m = std::stoll(v.substr(5, 2)), d = std::stoll(v.substr(8, 2));
  int64_t months = y * 12 + (m - 1) + (unit == "YEAR" ? 12 * n : n);
  y = months / 12;
  m = months % 12 + 1;
  while (d > 28 && !ValidDate(static_cast<int>(y), static_cast<int>(m), static_cast<int>(d))) d--;
  return FromSeconds(DaysFromCivil(y, m, d) * 86400 + s % 86400, datetime);
}

// StarRocks' names for batch partitions: p20240101 (DAY), p2024_01 (WEEK, the week of the year), p202401 (MONTH),
// p2024 (YEAR), p2024010100 (HOUR), p<start> for integers.
std::string BatchName(const std::string& v, const std::string& unit) {
  if (unit.empty()) return "p" + (v[0] == '-' ? "_" + v.substr(1) : v);
  std::string ymd = v.substr(0, 4) + v.substr(5, 2) + v.substr(8, 2);
  if (unit == "YEAR") return "p" + ymd.substr(0, 4);
  if (unit == "MONTH") return "p" + ymd.substr(0, 6);
  if (unit == "HOUR") return "p" + ymd + v.substr(11, 2);
  if (unit == "WEEK") {
    int64_t y = std::stoll(v.substr(0, 4));
    int64_t day_of_year = DaysFromCivil(y, std::stoll(v.substr(5, 2)), std::stoll(v.substr(8, 2))) - DaysFromCivil(y, 1, 1);
    return "p" + v.substr(0, 4) + "_" + TwoDigits(day_of_year / 7 + 1);
  }
  return "p" + ymd;
}

constexpr size_t kMaxBatchPartitions = 4096;  // StarRocks' default limit on partitions made at once

Status AddBatch(PartitionScheme& s, const sql::PartitionItem& item) {
  const std::string what = "START (\"" + item.start.text + "\") END (\"" + item.end.text + "\")";
  if (s.kind != "RANGE" || s.columns.size() != 1)
    return Status::InvalidArgument(what + " EVERY (...) needs a table partitioned by RANGE on one column");
  const ValueKind kind = KindOfColumn(s, 0);
  const bool datetime = kind == ValueKind::kDatetime;
  if (kind == ValueKind::kString)
    return Status::InvalidArgument(what + ": batch partitions need an integer, DATE or DATETIME partition column");
  if (kind == ValueKind::kInteger && !item.every_unit.empty())
    return Status::InvalidArgument(what + ": partition column '" + s.columns[0] +
                                   "' is an integer; step by a number: EVERY (10)");
  if (kind != ValueKind::kInteger && item.every_unit.empty())
    return Status::InvalidArgument(what + ": partition column '" + s.columns[0] +
                                   "' is a date; step by a time: EVERY (INTERVAL 1 DAY)");
  if (item.every_unit == "HOUR" && !datetime)
    return Status::InvalidArgument(what + ": EVERY (INTERVAL n HOUR) needs a DATETIME partition column");
  auto start = Canonical(s.column_types[0], item.start.text);
  auto end = Canonical(s.column_types[0], item.end.text);
  if (!start || !end)
    return Status::InvalidArgument(what + ": \"" + (start ? item.end.text : item.start.text) +
                                   "\" is not a valid value of partition column '" + s.columns[0] + "' (" +
                                   AsciiLower(s.column_types[0]) + ")");
  if (CompareValue(kind, *start, *end) >= 0)
    return Status::InvalidArgument(what + ": START must be smaller than END");
  std::vector<std::pair<std::string, std::string>> ranges;
  for (std::string lo = *start; CompareValue(kind, lo, *end) < 0;) {
    if (ranges.size() == kMaxBatchPartitions)
      return Status::InvalidArgument(what + " makes more than " + std::to_string(kMaxBatchPartitions) +
                                     " partitions; use a larger EVERY step");
    std::string hi = kind == ValueKind::kInteger
                         ? [&] {
                             __int128 v = ToInt128(lo) + item.every;
                             std::string t;
                             bool neg = v < 0;
                             if (neg) v = -v;
                             do { t.insert(t.begin(), static_cast<char>('0' + static_cast<int>(v % 10))); v /= 10; } while (v);
                             return (neg ? "-" : "") + t;
                           }()
                         : Step(lo, item.every, item.every_unit, datetime);
    if (CompareValue(kind, hi, *end) > 0) hi = *end;
    ranges.emplace_back(lo, hi);
    lo = hi;
  }
  for (const auto& [lo, hi] : ranges) {
    sql::PartitionItem one;
    one.kind = sql::PartitionItem::Kind::kFixedRange;
    one.name = BatchName(lo, item.every_unit);
    one.lower = {sql::PartitionValue{lo}};
    one.upper = {sql::PartitionValue{hi}};
    RETURN_IF_ERROR(CheckNewName(s, one.name));
    RETURN_IF_ERROR(AddRange(s, one));
  }
  return Status::Ok();
}

std::string Literal(const PartitionScheme& s, size_t i, const std::string& v) {
  if (KindOfColumn(s, i) == ValueKind::kInteger) return v;
  return "CAST(" + sql::QuoteLiteral(v) + " AS " + s.column_types[i] + ")";
}

// values < bound, with NULL smaller than every value (StarRocks' order); never NULL.
std::string LessThan(const PartitionScheme& s, const std::vector<std::string>& values,
                     const std::vector<std::string>& bound, size_t i = 0) {
  const std::string lit = Literal(s, i, bound[i]);
  std::string out = "(" + values[i] + " IS NULL OR " + values[i] + " < " + lit;
  if (i + 1 < bound.size()) out += " OR (" + values[i] + " = " + lit + " AND " + LessThan(s, values, bound, i + 1) + ")";
  return out + ")";
}

}  // namespace

const PartitionDef* PartitionScheme::Find(const std::string& name) const {
  for (const auto& p : partitions)
    if (AsciiLower(p.name) == AsciiLower(name)) return &p;
  return nullptr;
}

Result<PartitionScheme> BuildPartitionScheme(const sql::PartitionClause& clause, const std::vector<ColumnMeta>& columns,
                                             const std::string& key_model) {
  PartitionScheme s;
  s.kind = clause.list ? "LIST" : "RANGE";
  if (clause.columns.empty()) return Status::InvalidArgument("PARTITION BY " + s.kind + " needs a column");
  std::set<std::string> seen;
  for (const auto& name : clause.columns) {
    auto it = std::find_if(columns.begin(), columns.end(),
                           [&](const ColumnMeta& c) { return AsciiLower(c.name) == AsciiLower(name); });
    if (it == columns.end())
      return Status::InvalidArgument("partition column '" + name + "' is not a column of the table");
    if (!seen.insert(AsciiLower(name)).second)
      return Status::InvalidArgument("partition column '" + name + "' is listed twice");
    if (!KindOf(it->duckdb_type))
      return Status::InvalidArgument("partition column '" + name + "' is " + it->type_text +
                                     "; RANGE and LIST partition columns must be integer, DATE, DATETIME or string "
                                     "columns");
    // StarRocks: rows of these tables are identified by key, so a row's partition must follow from its key.
    if ((key_model == "PRIMARY" || key_model == "UNIQUE" || key_model == "AGGREGATE") && !it->is_key)
      return Status::InvalidArgument("partition column '" + name + "' must be a key column of a " + key_model +
                                     " KEY table");
    s.columns.push_back(it->name);
    s.column_types.push_back(AsciiUpper(it->duckdb_type));
  }
  for (const auto& item : clause.items) RETURN_IF_ERROR(AddPartition(s, item));
  return s;
}

Status AddPartition(PartitionScheme& s, const sql::PartitionItem& item) {
  if (item.kind == sql::PartitionItem::Kind::kBatch) return AddBatch(s, item);
  RETURN_IF_ERROR(CheckNewName(s, item.name));
  return s.kind == "LIST" ? AddList(s, item) : AddRange(s, item);
}

std::string PartitionMembershipSql(const PartitionScheme& s, const std::vector<std::string>& values,
                                   const std::vector<std::string>& names) {
  std::vector<const PartitionDef*> chosen;
  for (const auto& p : s.partitions) {
    bool named = names.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& n) {
                   return AsciiLower(n) == AsciiLower(p.name);
                 });
    if (named) chosen.push_back(&p);
  }
  if (chosen.empty()) return "false";
  std::vector<std::string> terms;
  if (s.kind == "RANGE") {
    // chosen is in bound order; runs of adjacent ranges become one range.
    for (size_t i = 0; i < chosen.size();) {
      size_t j = i;
      while (j + 1 < chosen.size() && ComparePoints(s, Upper(*chosen[j]), Lower(*chosen[j + 1])) == 0) j++;
      std::vector<std::string> parts;
      if (!chosen[i]->lower.empty()) parts.push_back("NOT " + LessThan(s, values, chosen[i]->lower));
      if (!chosen[j]->upper.empty()) parts.push_back(LessThan(s, values, chosen[j]->upper));
      std::string term;
      for (size_t k = 0; k < parts.size(); k++) term += (k ? " AND " : "") + parts[k];
      terms.push_back(parts.empty() ? "true" : "(" + term + ")");
      i = j + 1;
    }
  } else if (s.columns.size() == 1) {
    std::string in;
    bool null_listed = false;
    for (const auto* p : chosen)
      for (const auto& t : p->values) {
        if (!t[0]) null_listed = true;
        else in += (in.empty() ? "" : ", ") + Literal(s, 0, *t[0]);
      }
    const std::string& v = values[0];
    if (!in.empty()) terms.push_back("(" + v + " IS NOT NULL AND " + v + " IN (" + in + "))");
    if (null_listed) terms.push_back(v + " IS NULL");
  } else {
    for (const auto* p : chosen)
      for (const auto& t : p->values) {
        std::string term;
        for (size_t i = 0; i < t.size(); i++)
          term += (i ? " AND " : "") + (t[i] ? "(" + values[i] + " IS NOT NULL AND " + values[i] + " = " +
                                                   Literal(s, i, *t[i]) + ")"
                                             : values[i] + " IS NULL");
        terms.push_back("(" + term + ")");
      }
  }
  if (terms.empty()) return "false";
  std::string out;
  for (size_t i = 0; i < terms.size(); i++) out += (i ? " OR " : "") + terms[i];
  return terms.size() == 1 ? out : "(" + out + ")";
}

std::string PartitionValuesReasonSql(const PartitionScheme& s, const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < s.columns.size(); i++) {
    out += (i ? " || ', ' || " : "") + sql::QuoteLiteral("column '" + s.columns[i] + "' = ") + " || COALESCE('''' || CAST(" +
           values[i] + " AS VARCHAR) || '''', 'NULL')";
  }
  return out;
}

std::string RenderPartitionClause(const PartitionScheme& s) {
  std::string out = "PARTITION BY " + s.kind + "(";
  for (size_t i = 0; i < s.columns.size(); i++) out += (i ? ", " : "") + sql::BacktickIdentifier(s.columns[i]);
  out += ")\n(";
  for (size_t i = 0; i < s.partitions.size(); i++) {
    const PartitionDef& p = s.partitions[i];
    out += (i ? ",\n" : "") + std::string("PARTITION ") + sql::BacktickIdentifier(p.name) + " VALUES ";
    if (s.kind == "LIST") {
      out += "IN (";
      for (size_t k = 0; k < p.values.size(); k++) out += (k ? ", " : "") + ListTupleText(p.values[k]);
      out += ")";
    } else if (p.lower.empty()) {
      out += "LESS THAN " + (p.upper.empty() ? std::string("MAXVALUE") : TupleText(p.upper));
    } else {
      out += "[" + TupleText(p.lower) + ", " + (p.upper.empty() ? std::string("(MAXVALUE)") : TupleText(p.upper)) + ")";
    }
  }
  return out + ")";
}

std::string PartitionValuesText(const PartitionScheme& s, const PartitionDef& p) {
  if (s.kind == "RANGE") return RangeText(p);
  std::string out = "(";
  for (size_t k = 0; k < p.values.size(); k++) {
    std::string t = ListTupleText(p.values[k]);
    out += (k ? ", " : "") + (p.values[k].size() > 1 ? t : "(" + t + ")");
  }
  return out + ")";
}

}  // namespace sluice::catalog
