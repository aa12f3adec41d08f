#include "iceberg/table_builder.h"

#include <fmt/format.h>

#include <cctype>

#include "iceberg/ids.h"

namespace sluice::iceberg {
namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) b++;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) e--;
  return s.substr(b, e - b);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Result<Schema> SchemaFromColumns(const std::vector<ColumnDef>& columns) {
  if (columns.empty()) return Status::InvalidArgument("an Iceberg table needs at least one column");
  Schema s;
  int id = 1;
  for (const auto& c : columns) {
    if (s.FindByName(c.name) != nullptr) {
      return Status::InvalidArgument(fmt::format("column {} is declared twice", c.name));
    }
    auto t = TypeFromDuckDb(c.duckdb_type);
    if (!t.ok()) return Status(t.status().code(), fmt::format("column {}: {}", c.name, t.status().message()));
    s.fields.push_back(Field{id++, c.name, c.not_null, *t, ""});
  }
  return s;
}

Result<PartitionSpec> PartitionSpecFromTerms(const Schema& schema, const std::vector<std::string>& terms) {
  PartitionSpec spec;
  int field_id = 1000;
  for (const auto& raw : terms) {
    std::string term = Trim(raw);
    std::string fn, column;
    int param = 0;
    size_t open = term.find('(');
    if (open == std::string::npos) {
      fn = "identity";
      column = term;
    } else {
      if (term.back() != ')') return Status::InvalidArgument(fmt::format("partition term '{}' has no ')'", raw));
      fn = Lower(Trim(term.substr(0, open)));
      std::string args = term.substr(open + 1, term.size() - open - 2);
      size_t comma = args.find(',');
      if (comma != std::string::npos) {
        try {
          param = std::stoi(Trim(args.substr(0, comma)));
        } catch (const std::exception&) {
          return Status::InvalidArgument(fmt::format("partition term '{}': the first argument is a number", raw));
        }
        column = Trim(args.substr(comma + 1));
      } else {
        column = Trim(args);
      }
    }
    const Field* source = schema.FindByName(column);
    if (source == nullptr) {
      return Status::UnknownColumn(fmt::format("partition term '{}' names column {}, which the table does not have",
                                               raw, column));
    }
    std::string text = fn;
    std::string suffix;
    if (fn == "years" || fn == "year") text = "year", suffix = "_year";
    else if (fn == "months" || fn == "month") text = "month", suffix = "_month";
    else if (fn == "days" || fn == "day") text = "day", suffix = "_day";
    else if (fn == "hours" || fn == "hour") text = "hour", suffix = "_hour";
    else if (fn == "bucket") text = fmt::format("bucket[{}]", param), suffix = "_bucket";
    else if (fn == "truncate") text = fmt::format("truncate[{}]", param), suffix = "_trunc";
    else if (fn != "identity") {
      return Status::InvalidArgument(fmt::format(
          "partition term '{}': {} is not a transform (use col, year(col), month(col), day(col), hour(col), "
          "bucket(N, col), truncate(W, col))", raw, fn));
    }
    ASSIGN_OR_RETURN(Transform transform, Transform::Parse(text));
    ASSIGN_OR_RETURN(Type ignored, transform.ResultType(source->type));
    (void)ignored;
    spec.fields.push_back(PartitionField{source->id, field_id++, source->name + suffix, transform});
  }
  return spec;
}

TableMetadata NewTableMetadata(const Schema& schema, const PartitionSpec& spec, const std::string& location,
                               const std::map<std::string, std::string>& properties, int64_t now_ms) {
  TableMetadata m;
  m.table_uuid = NewUuid();
  m.location = location;
  while (!m.location.empty() && m.location.back() == '/') m.location.pop_back();
  m.last_updated_ms = now_ms;
  m.last_column_id = schema.HighestFieldId();
  m.schemas = {schema};
  m.current_schema_id = schema.schema_id;
  m.partition_specs = {spec};
  m.default_spec_id = spec.spec_id;
  m.last_partition_id = 999;
  for (const auto& f : spec.fields) m.last_partition_id = std::max(m.last_partition_id, f.field_id);
  m.properties = properties;
  m.properties.emplace("write.format.default", "parquet");
  return m;
}

std::string DefaultTableLocation(const std::string& warehouse, const std::vector<std::string>& ns,
                                 const std::string& table) {
  std::string out = warehouse;
  while (!out.empty() && out.back() == '/') out.pop_back();
  for (const auto& level : ns) out += "/" + level;
  return out + "/" + table;
}

}  // namespace sluice::iceberg
