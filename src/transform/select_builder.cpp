// Writes the SELECT for a TransformPlan as a chain of CTEs, one step each, so the SQL can be read (and DuckDB
// inlines them into one projection):
//   __sluice_source     the batch, through the sluice_batch table function
//   __sluice_raw        source columns renamed to Sluice's aliases (user names never clash with ours)
//   __sluice_converted  source columns converted to their table column's type (TRY_CAST & co.)
//   __sluice_json       JSON reads of source columns, all paths of a column in one parse (json_access.h)
//   __sluice_computed   COLUMNS expressions, each under TRY() so a failing row gives NULL, not a failed batch
//   __sluice_typed      expression results converted to their table column's type
//   final SELECT        loaded columns, the row index, the error reason and the WHERE result
#include <algorithm>
#include <string_view>

#include "sql/lexer.h"
#include "sql/parser.h"
#include "transform/coercion.h"
#include "transform/transform_plan.h"
#include "transform/utf8.h"

namespace sluice::transform {

std::string RawAlias(size_t i) { return "__sluice_r" + std::to_string(i); }
std::string ConvertedAlias(size_t i) { return "__sluice_v" + std::to_string(i); }
std::string ComputedAlias(size_t j) { return "__sluice_e" + std::to_string(j); }
std::string ComputedTextAlias(size_t j) { return "__sluice_et" + std::to_string(j); }
std::string DerivedAlias(size_t j) { return "__sluice_d" + std::to_string(j); }
std::string MetadataAlias(size_t k) { return "__sluice_m" + std::to_string(k); }

namespace {

// storage/batch_table_function.h's kBatchFunctionName (this module does not link storage; a test checks they agree).
constexpr const char* kBatchFunction = "sluice_batch";

// Longest excerpt of a bad value an error reason quotes (the full raw row is kept with the rejected row).
constexpr int kValueExcerptChars = 100;
constexpr size_t kExpressionExcerptBytes = 80;

// User text placed in a reason: valid UTF-8 (DuckDB rejects anything else in a literal), cut at `max` bytes.
std::string MessageText(std::string_view s, size_t max) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    if (out.size() + std::max<size_t>(n, 1) > max) return out + "...";
    if (n == 0) {
      out.push_back('?');
      n = 1;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

// A reason that quotes a value: `prefix 'value' suffix`, the value being VARCHAR SQL.
std::string ReasonWithValue(const std::string& prefix, const std::string& value_sql, const std::string& suffix) {
  return sql::QuoteLiteral(prefix + "'") + " || left(" + value_sql + ", " + std::to_string(kValueExcerptChars) +
         ") || " + sql::QuoteLiteral("'" + suffix);
}

// `__op` accepts 0/1 and the words StarRocks users write.
std::string OpConversion(const TypedSql& v, const TimeZone& tz) {
  return "CAST(CASE lower(trim(" + AsVarchar(v, tz) +
         ")) WHEN '0' THEN 0 WHEN 'upsert' THEN 0 WHEN '1' THEN 1 WHEN 'delete' THEN 1 END AS TINYINT)";
}

// A value converted for its destination. A VARCHAR(n) value longer than n bytes stays as it is here: it makes
// the row an error row (LengthReason), which is never loaded.
std::string DestinationValue(const TypedSql& v, const Destination& dest, const TimeZone& tz) {
  if (dest.is_op) return OpConversion(v, tz);
  return ConvertTo(v, dest.type, tz);
}

std::string Layer(const std::string& name, const std::vector<std::string>& columns, const std::string& from,
                  bool keep_previous) {
  std::vector<std::string> items;
  if (keep_previous) items.push_back("*");
  items.insert(items.end(), columns.begin(), columns.end());
  std::string out = ",\n" + name + " AS NOT MATERIALIZED (\n  SELECT ";
  for (size_t i = 0; i < items.size(); i++) out += (i ? ",\n    " : "") + items[i];
  return out + "\n  FROM " + from + "\n)";
}

class ErrorReasons {
 public:
  void Add(const std::string& condition, const std::string& reason) {
    whens_ += "\n    WHEN " + condition + " THEN " + reason;
  }
  std::string Sql() const {
    if (whens_.empty()) return "CAST(NULL AS VARCHAR)";
    return "CASE" + whens_ + "\n  END";
  }

 private:
  std::string whens_;
};

// StarRocks refuses a VARCHAR(n)/CHAR(n) value longer than n bytes whatever strict_mode says (its table sink's
// "String ... is too long"), so the row is an error row naming the column, the value's length and the limit.
// strlen is DuckDB's byte count, a lookup of the string's stored length: cheap per value.
void LengthReason(const std::string& name, const std::string& value_sql, const Destination& dest,
                  const TargetColumn& column, const std::string& of_what, ErrorReasons* reasons) {
  if (!dest.type.max_length) return;
  const std::string limit = std::to_string(*dest.type.max_length);
  reasons->Add("strlen(" + value_sql + ") > " + limit,
               ReasonWithValue(name + ": the value ", value_sql, of_what + " is ") + " || CAST(strlen(" + value_sql +
                   ") AS VARCHAR) || " + sql::QuoteLiteral(" bytes long, more than the " + limit + " bytes of " +
                                               MessageText(column.duckdb_type, 64)));
}

class SelectBuilder {
 public:
  explicit SelectBuilder(const TransformPlan& plan) : plan_(plan), spec_(*plan.spec), tz_(plan.tz) {}

  CompiledTransform Build() {
    std::string sql = "WITH __sluice_source AS NOT MATERIALIZED (\n  SELECT * FROM " + std::string(kBatchFunction) +
                      "(" + kBatchPlaceholder + ")\n)";
    sql += Layer("__sluice_raw", RawColumns(), "__sluice_source", false);
    sql += Layer("__sluice_converted", ConvertedColumns(), "__sluice_raw", true);
    std::string before_computed = "__sluice_converted";
    if (!plan_.json_reads.empty()) {
      sql += Layer("__sluice_json", plan_.json_reads.Columns(), before_computed, true);
      before_computed = "__sluice_json";
    }
    sql += Layer("__sluice_computed", ComputedColumns(), before_computed, true);
    sql += Layer("__sluice_typed", TypedColumns(), "__sluice_computed", true);
    CompiledTransform out;
    sql += "\nSELECT " + FinalColumns(&out) + "\nFROM __sluice_typed";
    out.sql = std::move(sql);
    return out;
  }

 private:
  std::vector<std::string> RawColumns() const {
    std::vector<std::string> cols = {kRowColumn};
    for (size_t i = 0; i < plan_.sources.size(); i++)
      cols.push_back(sql::QuoteIdentifier(plan_.sources[i].name) + " AS " + RawAlias(i));
    // Metadata is written by Sluice, so its text always converts; a map arrives as a JSON object.
    for (size_t k = 0; k < spec_.metadata.size(); k++) {
      const MetadataSource& m = spec_.metadata[k];
      std::string text = sql::QuoteIdentifier(m.name);
      if (ClassifyDuckDBType(m.duckdb_type).cls == TypeClass::kMap) text = "CAST(" + text + " AS JSON)";
      cols.push_back("CAST(" + text + " AS " + m.duckdb_type + ") AS " + MetadataAlias(k));
    }
    // Values the decoder extracted (TransformSpec::decoded_json_source), named alike in the batch and here.
    for (size_t k = 0; k < plan_.json_reads.decoded_pointers().size(); k++) cols.push_back(DecodedJsonColumn(k));
    return cols;
  }

  static TypedSql Reference(const std::string& alias, const SqlType& type) {
    TypedSql t;
    t.sql = alias;
    t.type = type;
    t.simple = true;
    return t;
  }

  std::vector<std::string> ConvertedColumns() const {
    std::vector<std::string> cols;
    for (size_t i = 0; i < plan_.sources.size(); i++) {
      const PlannedSource& s = plan_.sources[i];
      if (!s.dest.loaded()) continue;
      TypedSql raw = Reference(RawAlias(i), ClassifyDuckDBType("VARCHAR"));
      cols.push_back(DestinationValue(raw, s.dest, tz_) + " AS " + ConvertedAlias(i));
    }
    return cols;
  }

  std::vector<std::string> ComputedColumns() const {
    std::vector<std::string> cols;
    for (size_t j = 0; j < plan_.derived.size(); j++) {
      cols.push_back("TRY(" + plan_.derived[j].expr.sql + ") AS " + ComputedAlias(j));
      // A JSON read loaded as it is: its text too, so converting it needs no second parse.
      if (plan_.derived[j].expr.json_text)
        cols.push_back("TRY(" + *plan_.derived[j].expr.json_text + ") AS " + ComputedTextAlias(j));
    }
    return cols;
  }

  // The computed value of derived column j, as later steps read it.
  TypedSql ComputedReference(size_t j) const {
    TypedSql t = Reference(ComputedAlias(j), plan_.derived[j].expr.type);
    if (plan_.derived[j].expr.json_text) t.json_text = ComputedTextAlias(j);
    return t;
  }

  std::vector<std::string> TypedColumns() const {
    std::vector<std::string> cols;
    for (size_t j = 0; j < plan_.derived.size(); j++) {
      const PlannedDerived& d = plan_.derived[j];
      cols.push_back(DestinationValue(ComputedReference(j), d.dest, tz_) + " AS " + DerivedAlias(j));
    }
    return cols;
  }

  std::string FinalColumns(CompiledTransform* out) const {
    std::vector<std::string> cols;
    ErrorReasons reasons;
    for (size_t t = 0; t < spec_.table.size(); t++) {
      const TargetColumn& column = spec_.table[t];
      for (size_t i = 0; i < plan_.sources.size(); i++) {
        if (plan_.sources[i].dest.table_index != static_cast<int>(t)) continue;
        cols.push_back(ConvertedAlias(i) + " AS " + sql::QuoteIdentifier(column.name));
        out->loaded_columns.push_back(column.name);
        SourceReasons(column, plan_.sources[i].dest, RawAlias(i), ConvertedAlias(i), &reasons);
      }
      for (size_t j = 0; j < plan_.derived.size(); j++) {
        if (plan_.derived[j].dest.table_index != static_cast<int>(t)) continue;
        cols.push_back(DerivedAlias(j) + " AS " + sql::QuoteIdentifier(column.name));
        out->loaded_columns.push_back(column.name);
        DerivedReasons(column, plan_.derived[j], j, &reasons);
      }
    }
    RowChecks(&reasons);
    OpColumn(&cols, &reasons, out);
    cols.push_back(kRowColumn);
    cols.push_back(reasons.Sql() + " AS " + kErrorColumn);
    std::string selected = plan_.where ? "COALESCE(TRY(" + AsBoolean(*plan_.where, tz_) + "), false)" : "true";
    cols.push_back(selected + " AS " + kSelectedColumn);
    std::string joined;
    for (size_t i = 0; i < cols.size(); i++) joined += (i ? ",\n  " : "") + cols[i];
    return joined;
  }

  static std::string Failure(const TargetColumn& column) {
    return "could not be converted to " + MessageText(column.duckdb_type, 64);
  }

  // StarRocks: NULL into a NOT NULL column is an error; a value that fails conversion is NULL, or with
  // strict_mode an error (for source columns; expression results are not subject to strict_mode).
  void SourceReasons(const TargetColumn& column, const Destination& dest, const std::string& raw,
                     const std::string& converted, ErrorReasons* reasons) const {
    const std::string name = "column '" + MessageText(column.name, 64) + "'";
    LengthReason(name, converted, dest, column, "", reasons);
    if (!column.nullable)
      reasons->Add(raw + " IS NULL", sql::QuoteLiteral(name + " is NOT NULL but the value is NULL"));
    if (spec_.strict_mode) {
      reasons->Add(raw + " IS NOT NULL AND " + converted + " IS NULL",
                   ReasonWithValue(name + ": the value ", raw, " " + Failure(column) + " (strict_mode)"));
    } else if (!column.nullable) {
      reasons->Add(converted + " IS NULL",
                   ReasonWithValue(name + " is NOT NULL but the value ", raw, " " + Failure(column)));
    }
  }

  void DerivedReasons(const TargetColumn& column, const PlannedDerived& d, size_t j, ErrorReasons* reasons) const {
    const std::string name = "column '" + MessageText(column.name, 64) + "'";
    LengthReason(name, DerivedAlias(j), d.dest, column, " of its expression", reasons);
    if (column.nullable) return;
    reasons->Add(ComputedAlias(j) + " IS NULL",
                 sql::QuoteLiteral(name + " is NOT NULL but its expression " +
                                   MessageText(d.expr_text, kExpressionExcerptBytes) + " gave NULL"));
    reasons->Add(DerivedAlias(j) + " IS NULL",
                 ReasonWithValue(name + " is NOT NULL but the value ",
                                 AsVarchar(ComputedReference(j), tz_),
                                 " of its expression " + Failure(column)));
  }

  // The loaded value of table column `name` as the final SELECT reads it; NULL when the load does not fill it.
  std::string LoadedValue(const std::string& name) const {
    for (size_t t = 0; t < spec_.table.size(); t++) {
      if (!sql::EqualsIgnoreCase(spec_.table[t].name, name)) continue;
      for (size_t i = 0; i < plan_.sources.size(); i++)
        if (plan_.sources[i].dest.table_index == static_cast<int>(t)) return ConvertedAlias(i);
      for (size_t j = 0; j < plan_.derived.size(); j++)
        if (plan_.derived[j].dest.table_index == static_cast<int>(t)) return DerivedAlias(j);
      return "CAST(NULL AS " + spec_.table[t].duckdb_type + ")";
    }
    return "NULL";
  }

  void RowChecks(ErrorReasons* reasons) const {
    for (const RowCheck& check : spec_.row_checks) {
      std::vector<std::string> values;
      for (const auto& c : check.columns) values.push_back(LoadedValue(c));
      reasons->Add(check.fails(values), check.reason(values));
    }
  }

  void OpColumn(std::vector<std::string>* cols, ErrorReasons* reasons, CompiledTransform* out) const {
    auto add = [&](const std::string& input, const std::string& op) {
      cols->push_back("COALESCE(" + op + ", 0) AS " + std::string(kOpColumn));
      reasons->Add(input + " IS NOT NULL AND " + op + " IS NULL",
                   ReasonWithValue("__op must be 0 or 'upsert', 1 or 'delete', not ", input, ""));
      out->has_op = true;
    };
    for (size_t i = 0; i < plan_.sources.size(); i++) {
      if (plan_.sources[i].dest.is_op) add(RawAlias(i), ConvertedAlias(i));
    }
    for (size_t j = 0; j < plan_.derived.size(); j++) {
      if (plan_.derived[j].dest.is_op)
        add(AsVarchar(ComputedReference(j), tz_), DerivedAlias(j));
    }
  }

  const TransformPlan& plan_;
  const TransformSpec& spec_;
  const TimeZone& tz_;
};

}  // namespace

CompiledTransform BuildSelect(const TransformPlan& plan) { return SelectBuilder(plan).Build(); }

}  // namespace sluice::transform
