// Compile(): checks a load's COLUMNS/WHERE against the table, decides where each value goes and compiles the
// expressions; select_builder.cpp writes the SELECT.
#include "transform/compiler.h"

#include <algorithm>

#include "sql/lexer.h"
#include "transform/expression_compiler.h"
#include "transform/transform_plan.h"
#include "transform/utf8.h"

namespace sluice::transform {

std::string DecodedJsonColumn(size_t k) { return "__sluice_f" + std::to_string(k); }

std::string CompiledTransform::Bind(int64_t batch_id) const {
  std::string out = sql;
  size_t at = out.find(kBatchPlaceholder);
  if (at != std::string::npos) out.replace(at, std::string(kBatchPlaceholder).size(), std::to_string(batch_id));
  return out;
}

namespace {

std::string TableWords(const TransformSpec& spec) {
  return spec.table_name.empty() ? "the target table" : "table '" + spec.table_name + "'";
}

std::string TableColumnNames(const TransformSpec& spec) {
  std::string out;
  for (const TargetColumn& c : spec.table) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

int FindTableColumn(const TransformSpec& spec, std::string_view name) {
  for (size_t i = 0; i < spec.table.size(); i++) {
    if (sql::EqualsIgnoreCase(spec.table[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

Status CheckName(const std::string& name) {
  if (name.empty()) return Status::InvalidArgument("a column name in COLUMNS is empty");
  if (!IsValidUtf8(name)) return Status::InvalidArgument("a column name in COLUMNS is not valid UTF-8");
  if (name.size() >= 8 && sql::EqualsIgnoreCase(name.substr(0, 8), "__sluice"))
    return Status::InvalidArgument("column name '" + name + "' in COLUMNS is reserved (names starting with "
                                   "__sluice are Sluice's own)");
  return Status::Ok();
}

Destination DestinationOf(const TransformSpec& spec, const std::string& name) {
  Destination d;
  if (sql::EqualsIgnoreCase(name, kOpColumn)) {
    d.is_op = true;
    d.type = ClassifyDuckDBType("TINYINT");
    return d;
  }
  d.table_index = FindTableColumn(spec, name);
  if (d.table_index >= 0) d.type = ClassifyDuckDBType(spec.table[d.table_index].duckdb_type);
  return d;
}

// Parses, checks the column references of, and compiles one user expression; `context` starts every error.
// `computed` names the columns COLUMNS computes, to explain why one of them is unknown to an expression.
Result<TypedSql> CompileUserExpression(const std::string& text, const Scope& scope, const TimeZone& tz,
                                       const std::string& context, const std::vector<std::string>& computed,
                                       JsonReadPlan* json_reads) {
  Result<ExprPtr> parsed = ParseExpression(text);
  if (!parsed.ok()) return Status::InvalidArgument(context + ": " + parsed.status().message());
  std::vector<std::string> unknown = UnknownColumns(**parsed, scope);
  if (!unknown.empty()) {
    std::string names;
    bool uses_computed = false;
    for (const std::string& n : unknown) {
      names += (names.empty() ? "'" : ", '") + n + "'";
      for (const std::string& c : computed) uses_computed = uses_computed || sql::EqualsIgnoreCase(c, n);
    }
    std::string hint;
    if (uses_computed) {
      for (const std::string& c : computed) hint += (hint.empty() ? "" : ", ") + c;
      hint = " (columns computed in COLUMNS, here " + hint + ", cannot be used by other expressions)";
    }
    return Status::InvalidArgument(context + ": unknown column" + (unknown.size() > 1 ? "s " : " ") + names +
                                   "; it can use " + scope.Names() + hint);
  }
  Result<TypedSql> compiled = CompileExpression(**parsed, scope, tz, json_reads);
  if (!compiled.ok()) return Status::InvalidArgument(context + ": " + compiled.status().message());
  if (compiled->type.cls == TypeClass::kInterval)
    return Status::InvalidArgument(context + ": an INTERVAL is not a value; use date_add(date, INTERVAL n unit)");
  return compiled;
}

// A loaded source column reads as its converted value; a placeholder as its text.
ColumnBinding SourceBinding(const TransformSpec& spec, const PlannedSource& s, size_t index) {
  if (s.dest.loaded()) return ColumnBinding{ConvertedAlias(index), s.dest.type};
  for (const auto& [name, type] : spec.source_types) {
    if (sql::EqualsIgnoreCase(name, s.name) && !sql::EqualsIgnoreCase(type, "VARCHAR"))
      return ColumnBinding{"TRY_CAST(" + RawAlias(index) + " AS " + type + ")", ClassifyDuckDBType(type)};
  }
  return ColumnBinding{RawAlias(index), ClassifyDuckDBType("VARCHAR")};
}

}  // namespace

Result<CompiledTransform> Compile(const TransformSpec& spec) {
  if (spec.table.empty()) return Status::InvalidArgument(TableWords(spec) + " has no columns");
  TransformPlan plan;
  plan.spec = &spec;
  ASSIGN_OR_RETURN(plan.tz, TimeZone::Parse(spec.timezone));

  std::vector<std::string> seen;
  auto check_unique = [&](const std::string& name) -> Status {
    RETURN_IF_ERROR(CheckName(name));
    for (const std::string& s : seen) {
      if (sql::EqualsIgnoreCase(s, name))
        return Status::InvalidArgument("column '" + name + "' appears more than once in COLUMNS");
    }
    seen.push_back(name);
    return Status::Ok();
  };

  for (const std::string& name : spec.source_columns) {
    RETURN_IF_ERROR(check_unique(name));
    plan.sources.push_back(PlannedSource{name, spec.sources_are_inputs ? Destination{} : DestinationOf(spec, name)});
  }
  if (spec.sources_are_inputs) seen.clear();  // inputs and target columns are separate name spaces
  for (const auto& [name, text] : spec.derived) {
    RETURN_IF_ERROR(check_unique(name));
    Destination dest = DestinationOf(spec, name);
    if (!dest.loaded())
      return Status::InvalidArgument("column '" + name + "' in COLUMNS is not a column of " + TableWords(spec) +
                                     " (its columns: " + TableColumnNames(spec) + ")");
    plan.derived.push_back(PlannedDerived{name, text, dest, {}});
  }

  for (const MetadataSource& m : spec.metadata) {
    const std::string name = "'" + m.name + "' in INCLUDE METADATA";
    for (const std::string& s : spec.source_columns)
      if (sql::EqualsIgnoreCase(s, m.name))
        return Status::InvalidArgument("alias " + name + " is also a field read from the message (a source "
                                       "column of the load); give it another name with AS");
    if (FindTableColumn(spec, m.name) >= 0)
      return Status::InvalidArgument("alias " + name + " is also a column of " + TableWords(spec) +
                                     "; metadata is loaded through COLUMNS (e.g. `" + m.name + "_col = " + m.name +
                                     "`), so give it another name with AS");
    if (sql::EqualsIgnoreCase(m.name, kOpColumn) || !CheckName(m.name).ok())
      return Status::InvalidArgument("alias " + name + " is a reserved name; give it another name with AS");
    for (const MetadataSource& other : spec.metadata)
      if (&other != &m && sql::EqualsIgnoreCase(other.name, m.name))
        return Status::InvalidArgument("alias " + name + " appears twice; give each key its own name with AS");
  }

  // Expressions in COLUMNS read source columns (loaded ones converted, placeholders as text) and metadata.
  Scope source_scope;
  for (size_t i = 0; i < plan.sources.size(); i++)
    source_scope.Add(plan.sources[i].name, SourceBinding(spec, plan.sources[i], i));
  for (size_t k = 0; k < spec.metadata.size(); k++)
    source_scope.Add(spec.metadata[k].name,
                     ColumnBinding{MetadataAlias(k), ClassifyDuckDBType(spec.metadata[k].duckdb_type)});
  std::vector<std::string> computed;
  for (const PlannedDerived& d : plan.derived) computed.push_back(d.name);
  JsonReadPlan* json_reads = spec.share_json_parse ? &plan.json_reads : nullptr;
  for (size_t i = 0; i < plan.sources.size() && json_reads; i++) {
    if (!spec.decoded_json_source.empty() && sql::EqualsIgnoreCase(plan.sources[i].name, spec.decoded_json_source))
      plan.json_reads.SetDecodedColumn(SourceBinding(spec, plan.sources[i], i).sql);
  }
  for (PlannedDerived& d : plan.derived) {
    ASSIGN_OR_RETURN(d.expr, CompileUserExpression(d.expr_text, source_scope, plan.tz,
                                                   "in COLUMNS expression for column '" + d.name + "'", computed,
                                                   json_reads));
  }

  // WHERE sees the values as they will be loaded: converted and computed columns, and placeholders as text.
  if (spec.where) {
    Scope where_scope = source_scope;
    for (size_t j = 0; j < plan.derived.size() && !spec.sources_are_inputs; j++) {
      if (plan.derived[j].dest.is_op) continue;
      where_scope.Add(plan.derived[j].name, ColumnBinding{DerivedAlias(j), plan.derived[j].dest.type});
    }
    // WHERE reads computed columns from a later step than the JSON reads, so its reads of source columns share
    // the same parse.
    ASSIGN_OR_RETURN(plan.where, CompileUserExpression(*spec.where, where_scope, plan.tz, "in WHERE", {}, json_reads));
  }

  CompiledTransform out = BuildSelect(plan);
  out.decoded_json_pointers = plan.json_reads.decoded_pointers();
  if (spec.sources_are_inputs) {
    // The names each expression uses (lambda parameters aside); they all compiled above, so they parse.
    out.reads_source.assign(spec.source_columns.size(), false);
    auto mark = [&](const std::string& text) {
      Result<ExprPtr> parsed = ParseExpression(text);
      if (!parsed.ok()) return;
      for (const std::string& name : UnknownColumns(**parsed, Scope()))
        for (size_t i = 0; i < spec.source_columns.size(); i++)
          if (sql::EqualsIgnoreCase(spec.source_columns[i], name)) out.reads_source[i] = true;
    };
    for (const PlannedDerived& d : plan.derived) mark(d.expr_text);
    if (spec.where) mark(*spec.where);
  }
  if (out.loaded_columns.empty())
    return Status::InvalidArgument("COLUMNS loads no column of " + TableWords(spec) + " (its columns: " +
                                   TableColumnNames(spec) + ")");
  return out;
}

}  // namespace sluice::transform
