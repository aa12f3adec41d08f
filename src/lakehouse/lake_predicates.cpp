#include "lakehouse/lake_predicates.h"

#include <nlohmann/json.hpp>

#include <cctype>

#include "common/ascii.h"
#include "sql/parser.h"

namespace sluice::lakehouse {

using nlohmann::json;
using iceberg::ColumnPredicate;
using iceberg::PredicateOp;
using iceberg::Type;
using iceberg::TypeId;
using iceberg::Value;

namespace {

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The placeholder's table reference inside a FROM clause, when every join between it and the FROM keeps its rows
// as they are (an INNER or CROSS join, the left side of LEFT / SEMI / ANTI, the right side of RIGHT): then a WHERE
// term on its columns only removes rows the WHERE would remove anyway. Full outer, positional, ASOF and lateral
// joins are not looked into.
const json* PreservedScan(const json& from, const std::string& placeholder, bool* joined) {
  if (!from.is_object()) return nullptr;
  const std::string type = Str(from, "type");
  if (type == "BASE_TABLE") {
    return Str(from, "table_name") == placeholder && Str(from, "schema_name").empty() &&
                   Str(from, "catalog_name").empty()
               ? &from
               : nullptr;
  }
  if (type != "JOIN") return nullptr;
  const std::string ref = Str(from, "ref_type");
  if (ref != "REGULAR" && ref != "CROSS") return nullptr;
  const std::string join = Str(from, "join_type");
  if (from.find("left") == from.end() || from.find("right") == from.end()) return nullptr;
  const bool left_ok = join == "INNER" || join == "LEFT" || join == "SEMI" || join == "ANTI";
  const bool right_ok = join == "INNER" || join == "RIGHT";
  *joined = true;
  if (left_ok) {
    if (const json* t = PreservedScan(*from.find("left"), placeholder, joined)) return t;
  }
  if (right_ok) {
    if (const json* t = PreservedScan(*from.find("right"), placeholder, joined)) return t;
  }
  return nullptr;
}

struct ScanNode {
  const json* node = nullptr;   // the SELECT_NODE
  const json* table = nullptr;  // its BASE_TABLE placeholder
  bool joined = false;          // the FROM is a join: only qualified column references count
};

// The SELECT node (anywhere in the tree) whose FROM reads the placeholder table, alone or preserved in joins.
ScanNode FindScanNode(const json& j, const std::string& placeholder) {
  if (j.is_object()) {
    if (Str(j, "type") == "SELECT_NODE") {
      auto from = j.find("from_table");
      bool joined = false;
      if (from != j.end()) {
        if (const json* t = PreservedScan(*from, placeholder, &joined)) return ScanNode{&j, t, joined};
      }
    }
    for (const auto& [k, v] : j.items()) {
      ScanNode found = FindScanNode(v, placeholder);
      if (found.node) return found;
    }
  } else if (j.is_array()) {
    for (const auto& v : j) {
      ScanNode found = FindScanNode(v, placeholder);
      if (found.node) return found;
    }
  }
  return ScanNode{};
}

// A column reference to one of the table's columns: `col` or `alias.col`.
// How column references name the table: `alias.col`, or plain `col` when the FROM is the table alone (in a join,
// `col` might be the other side's column or a USING column).
struct Scope {
  std::string alias;
  bool qualified_only = false;
};

const iceberg::Field* ColumnOf(const json& e, const Scope& scope, const iceberg::Schema& schema) {
  if (Str(e, "class") != "COLUMN_REF") return nullptr;
  auto names = e.find("column_names");
  if (names == e.end() || !names->is_array() || names->empty() || names->size() > 2) return nullptr;
  if (scope.qualified_only && names->size() != 2) return nullptr;
  for (const auto& n : *names)
    if (!n.is_string()) return nullptr;
  if (names->size() == 2 && AsciiLower((*names)[0].get<std::string>()) != AsciiLower(scope.alias)) return nullptr;
  const std::string col = AsciiLower(names->back().get<std::string>());
  for (const auto& f : schema.fields)
    if (AsciiLower(f.name) == col) return &f;
  return nullptr;
}

struct Constant {
  std::string type_id;  // DuckDB's, after an explicit CAST: "INTEGER", "VARCHAR", "DATE", ...
  std::string text;
  bool is_number = false;
  int64_t integer = 0;
  int decimal_scale = -1;  // DECIMAL constants: integer is the unscaled value
};

bool ConstantOf(const json& e, Constant* out) {
  const std::string cls = Str(e, "class");
  if (cls == "CAST") {
    auto child = e.find("child");
    auto cast = e.find("cast_type");
    if (child == e.end() || cast == e.end() || !cast->is_object()) return false;
    Constant inner;
    if (!ConstantOf(*child, &inner) || inner.type_id != "VARCHAR") return false;
    const std::string to = Str(*cast, "id");
    if (to != "DATE" && to != "TIMESTAMP" && to != "VARCHAR") return false;
    *out = inner;
    out->type_id = to;
    return true;
  }
  if (cls != "CONSTANT") return false;
  auto value = e.find("value");
  if (value == e.end() || !value->is_object()) return false;
  if (value->value("is_null", false)) return false;
  auto type = value->find("type");
  auto v = value->find("value");
  if (type == value->end() || v == value->end()) return false;
  out->type_id = Str(*type, "id");
  if (v->is_string()) {
    out->text = v->get<std::string>();
  } else if (v->is_boolean()) {
    out->text = v->get<bool>() ? "true" : "false";
  } else if (v->is_number_integer()) {
    out->is_number = true;
    out->integer = v->get<int64_t>();
    if (out->type_id == "DECIMAL") {
      auto info = type->find("type_info");
      if (info == type->end() || !info->is_object() || !info->contains("scale")) return false;
      out->decimal_scale = (*info)["scale"].get<int>();
    } else if (out->type_id != "TINYINT" && out->type_id != "SMALLINT" && out->type_id != "INTEGER" &&
               out->type_id != "BIGINT") {
      return false;
    }
  } else {
    return false;
  }
  return true;
}

bool Digits(const std::string& s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = pos; i < pos + n; i++)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// 'YYYY-MM-DD' -> days; 'YYYY-MM-DD HH:MM:SS[.f{1,6}]' -> micros when `with_time`. Strict: anything else fails.
bool ParseStrictDateTime(const std::string& s, bool allow_time, int64_t* days, int64_t* micros_of_day) {
  if (!Digits(s, 0, 4) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2) || s[7] != '-' || !Digits(s, 8, 2))
    return false;
  const int y = std::stoi(s.substr(0, 4)), m = std::stoi(s.substr(5, 2)), d = std::stoi(s.substr(8, 2));
  if (m < 1 || m > 12 || d < 1 || d > 31) return false;
  int64_t y2 = 0;
  unsigned m2 = 0, d2 = 0;
  *days = iceberg::DaysFromCivil(y, m, d);
  iceberg::CivilFromDays(*days, &y2, &m2, &d2);
  if (y2 != y || m2 != static_cast<unsigned>(m) || d2 != static_cast<unsigned>(d)) return false;  // 2024-02-31
  *micros_of_day = 0;
  if (s.size() == 10) return true;
  if (!allow_time || s.size() < 19 || s[10] != ' ' || !Digits(s, 11, 2) || s[13] != ':' || !Digits(s, 14, 2) ||
      s[16] != ':' || !Digits(s, 17, 2))
    return false;
  const int h = std::stoi(s.substr(11, 2)), mi = std::stoi(s.substr(14, 2)), sec = std::stoi(s.substr(17, 2));
  if (h > 23 || mi > 59 || sec > 59) return false;
  int64_t frac = 0;
  if (s.size() > 19) {
    if (s[19] != '.' || s.size() > 26 || s.size() == 20 || !Digits(s, 20, s.size() - 20)) return false;
    std::string f = s.substr(20);
    f.resize(6, '0');
    frac = std::stoll(f);
  }
  *micros_of_day = ((h * 60LL + mi) * 60 + sec) * 1000000 + frac;
  return true;
}

// The constant as a value of the column's type, when DuckDB compares them the same way Iceberg's order does.
std::optional<Value> Typed(const Constant& c, const Type& type) {
  switch (type.id) {
    case TypeId::kBoolean:
      if (c.type_id != "BOOLEAN") return std::nullopt;
      return Value{type, c.text == "true"};
    case TypeId::kInt:
      if (!c.is_number || c.decimal_scale >= 0 || c.integer < INT32_MIN || c.integer > INT32_MAX) return std::nullopt;
      return Value{type, static_cast<int32_t>(c.integer)};
    case TypeId::kLong:
      if (!c.is_number || c.decimal_scale >= 0) return std::nullopt;
      return Value{type, c.integer};
    case TypeId::kDecimal: {
      if (!c.is_number) return std::nullopt;
      int scale = c.decimal_scale < 0 ? 0 : c.decimal_scale;
      iceberg::Int128 v = c.integer;
      // Only exact conversions: 2.50 for a scale-1 column is 2.5; 2.55 is not a value of it (left out).
      while (scale > type.scale) {
        if (v % 10 != 0) return std::nullopt;
        v /= 10;
        scale--;
      }
      for (; scale < type.scale; scale++) v *= 10;
      return Value{type, v};
    }
    case TypeId::kDate: {
      if (c.type_id != "VARCHAR" && c.type_id != "DATE") return std::nullopt;
      int64_t days = 0, micros = 0;
      if (!ParseStrictDateTime(c.text, false, &days, &micros)) return std::nullopt;
      return Value{type, static_cast<int32_t>(days)};
    }
    case TypeId::kTimestamp: {
      if (c.type_id != "VARCHAR" && c.type_id != "DATE" && c.type_id != "TIMESTAMP") return std::nullopt;
      int64_t days = 0, micros = 0;
      if (!ParseStrictDateTime(c.text, c.type_id != "DATE", &days, &micros)) return std::nullopt;
      return Value{type, static_cast<int64_t>(days * 86400000000LL + micros)};
    }
    case TypeId::kString:
      if (c.type_id != "VARCHAR" || c.is_number) return std::nullopt;
      return Value{type, c.text};
    default: return std::nullopt;
  }
}

std::optional<PredicateOp> ComparisonOp(const std::string& type, bool flipped) {
  if (type == "COMPARE_EQUAL") return PredicateOp::kEq;
  if (type == "COMPARE_LESSTHAN") return flipped ? PredicateOp::kGt : PredicateOp::kLt;
  if (type == "COMPARE_LESSTHANOREQUALTO") return flipped ? PredicateOp::kGe : PredicateOp::kLe;
  if (type == "COMPARE_GREATERTHAN") return flipped ? PredicateOp::kLt : PredicateOp::kGt;
  if (type == "COMPARE_GREATERTHANOREQUALTO") return flipped ? PredicateOp::kLe : PredicateOp::kGe;
  return std::nullopt;
}

void Collect(const json& e, const Scope& qualifier, const iceberg::Schema& schema,
             std::vector<ColumnPredicate>* out) {
  if (!e.is_object()) return;
  const std::string cls = Str(e, "class");
  const std::string type = Str(e, "type");
  auto typed = [&](const json& constant, const iceberg::Field& f) -> std::optional<Value> {
    Constant c;
    if (!ConstantOf(constant, &c)) return std::nullopt;
    return Typed(c, f.type);
  };
  if (cls == "CONJUNCTION" && type == "CONJUNCTION_AND") {
    for (const auto& child : e.value("children", json::array())) Collect(child, qualifier, schema, out);
    return;
  }
  if (cls == "COMPARISON") {
    const json left = e.value("left", json::object()), right = e.value("right", json::object());
    const iceberg::Field* f = ColumnOf(left, qualifier, schema);
    bool flipped = false;
    const json* constant = &right;
    if (!f) {
      f = ColumnOf(right, qualifier, schema);
      flipped = true;
      constant = &left;
    }
    auto op = ComparisonOp(type, flipped);
    if (!f || !op) return;
    if (auto v = typed(*constant, *f)) out->push_back(ColumnPredicate{f->id, *op, {*v}});
    return;
  }
  if (cls == "BETWEEN") {
    const iceberg::Field* f = ColumnOf(e.value("input", json::object()), qualifier, schema);
    if (!f) return;
    if (auto lo = typed(e.value("lower", json::object()), *f)) out->push_back(ColumnPredicate{f->id, PredicateOp::kGe, {*lo}});
    if (auto hi = typed(e.value("upper", json::object()), *f)) out->push_back(ColumnPredicate{f->id, PredicateOp::kLe, {*hi}});
    return;
  }
  if (cls == "OPERATOR") {
    const json children = e.value("children", json::array());
    if (children.empty()) return;
    const iceberg::Field* f = ColumnOf(children[0], qualifier, schema);
    if (!f) return;
    if ((type == "OPERATOR_IS_NULL" || type == "OPERATOR_IS_NOT_NULL") && children.size() == 1) {
      out->push_back(ColumnPredicate{f->id, type == "OPERATOR_IS_NULL" ? PredicateOp::kIsNull : PredicateOp::kIsNotNull,
                                     {}});
      return;
    }
    if (type == "COMPARE_IN" && children.size() >= 2) {
      ColumnPredicate p{f->id, PredicateOp::kIn, {}};
      for (size_t i = 1; i < children.size(); i++) {
        auto v = typed(children[i], *f);
        if (!v) return;  // one value not understood: the whole IN may match anything
        p.values.push_back(*v);
      }
      out->push_back(std::move(p));
    }
  }
}

}  // namespace

Result<std::string> SerializeSql(storage::Connection& con, const std::string& sql) {
  ASSIGN_OR_RETURN(auto r, con.Query("SELECT json_serialize_sql(" + sql::QuoteLiteral(sql) + ")"));
  if (!r.result_set || r.result_set->rows.empty() || r.result_set->rows[0].empty() || !r.result_set->rows[0][0])
    return Status::Internal("json_serialize_sql returned nothing");
  return *r.result_set->rows[0][0];
}

std::vector<ColumnPredicate> PredicatesFor(const std::string& tree_json, const std::string& placeholder,
                                           const iceberg::Schema& schema) {
  std::vector<ColumnPredicate> out;
  json tree = json::parse(tree_json, nullptr, /*allow_exceptions=*/false);
  if (tree.is_discarded() || tree.value("error", false)) return out;
  const ScanNode scan = FindScanNode(tree, placeholder);
  if (scan.node == nullptr) return out;
  auto where = scan.node->find("where_clause");
  if (where == scan.node->end() || !where->is_object()) return out;
  const std::string alias = Str(*scan.table, "alias");
  if (alias.empty()) return out;
  const Scope qualifier{alias, scan.joined};
  Collect(*where, qualifier, schema, &out);
  return out;
}

}  // namespace sluice::lakehouse
