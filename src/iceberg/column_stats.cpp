#include "iceberg/column_stats.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "iceberg/single_value.h"

namespace sluice::iceberg {
namespace {

constexpr size_t kTruncateWidth = 16;  // Iceberg's default write.metadata.metrics.default = truncate(16)

std::string SqlQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

bool IsNaN(const Value& v) {
  if (auto* f = std::get_if<float>(&v.v)) return std::isnan(*f);
  if (auto* d = std::get_if<double>(&v.v)) return std::isnan(*d);
  return false;
}

}  // namespace

std::string ParquetMetadataQuery(const std::string& local_path) {
  return fmt::format(
      "SELECT row_group_id, row_group_num_rows, path_in_schema, num_values, stats_null_count, stats_min_value, "
      "stats_max_value, min_is_exact, max_is_exact, total_compressed_size FROM parquet_metadata({}) "
      "ORDER BY row_group_id, column_id",
      SqlQuote(local_path));
}

Result<ColumnRanges> FillColumnMetrics(const Schema& schema, const std::vector<ParquetChunkStats>& chunks,
                                       DataFile* file) {
  ColumnRanges ranges;
  std::set<int> min_unusable, max_unusable;  // a row group without a usable bound spoils the file's bound
  std::map<int64_t, int64_t> rows_by_group;
  for (const auto& c : chunks) {
    rows_by_group[c.row_group_id] = c.row_group_num_rows;
    const Field* field = schema.FindByName(c.path_in_schema);
    if (field == nullptr) continue;
    const int id = field->id;
    file->column_sizes[id] += c.total_compressed_size;
    file->value_counts[id] += c.num_values;
    if (c.null_count) {
      file->null_value_counts[id] += *c.null_count;
    }
    const int64_t nulls = c.null_count.value_or(-1);
    const bool all_null = nulls == c.num_values;
    if (all_null) continue;  // a chunk of nulls bounds nothing
    auto take = [&](const std::optional<std::string>& text, bool exact, bool is_min) {
      std::set<int>& unusable = is_min ? min_unusable : max_unusable;
      std::map<int, Value>& dest = is_min ? ranges.min : ranges.max;
      if (!text || !exact || field->type.id == TypeId::kBinary || field->type.id == TypeId::kFixed) {
        unusable.insert(id);
        return;
      }
      auto v = ParseValueText(field->type, *text);
      if (!v.ok() || IsNaN(*v)) {
        unusable.insert(id);
        return;
      }
      auto it = dest.find(id);
      if (it == dest.end()) {
        dest.emplace(id, *v);
      } else if (is_min ? CompareValues(*v, it->second) < 0 : CompareValues(*v, it->second) > 0) {
        it->second = *v;
      }
    };
    take(c.min_text, c.min_is_exact, true);
    take(c.max_text, c.max_is_exact, false);
  }
  for (int id : min_unusable) ranges.min.erase(id);
  for (int id : max_unusable) ranges.max.erase(id);
  // A null count missing from any chunk makes the file's count unknown.
  for (const auto& c : chunks) {
    const Field* field = schema.FindByName(c.path_in_schema);
    if (field != nullptr && !c.null_count) file->null_value_counts.erase(field->id);
  }
  file->record_count = 0;
  for (const auto& [group, rows] : rows_by_group) file->record_count += rows;
  for (const auto& [id, v] : ranges.min) {
    ASSIGN_OR_RETURN(file->lower_bounds[id], EncodeSingleValue(TruncateLowerBound(v, kTruncateWidth)));
  }
  for (const auto& [id, v] : ranges.max) {
    if (auto upper = TruncateUpperBound(v, kTruncateWidth)) {
      ASSIGN_OR_RETURN(file->upper_bounds[id], EncodeSingleValue(*upper));
    }
  }
  return ranges;
}

Result<std::vector<Value>> PartitionFromRanges(const Schema& schema, const PartitionSpec& spec,
                                               const ColumnRanges& ranges, const DataFile& file,
                                               const std::map<size_t, Value>& given) {
  std::vector<Value> out;
  for (size_t i = 0; i < spec.fields.size(); i++) {
    const PartitionField& pf = spec.fields[i];
    if (auto g = given.find(i); g != given.end()) {
      out.push_back(g->second);
      continue;
    }
    const Field* source = schema.FindById(pf.source_id);
    if (source == nullptr) {
      return Status::InvalidArgument(fmt::format("partition field {} reads column id {}, which is not in the schema",
                                                 pf.name, pf.source_id));
    }
    ASSIGN_OR_RETURN(Type result_type, pf.transform.ResultType(source->type));
    if (pf.transform.kind == TransformKind::kVoid) {
      out.push_back(Value::Null(result_type));
      continue;
    }
    auto nulls = file.null_value_counts.find(source->id);
    const bool has_nulls = nulls == file.null_value_counts.end() || nulls->second > 0;
    const bool all_null = nulls != file.null_value_counts.end() && nulls->second == file.record_count;
    if (all_null) {
      out.push_back(Value::Null(result_type));
      continue;
    }
    auto lo = ranges.min.find(source->id);
    auto hi = ranges.max.find(source->id);
    if (has_nulls || lo == ranges.min.end() || hi == ranges.max.end() || !pf.transform.monotonic()) {
      return Status::InvalidArgument(fmt::format(
          "data file {}: its partition by {}({}) cannot be told from the column's statistics ({}); write one file "
          "per partition value, without nulls mixed in",
          file.file_path, pf.transform.ToString(), source->name,
          !pf.transform.monotonic() ? "bucket needs every value" : (has_nulls ? "it has nulls and values" : "none")));
    }
    ASSIGN_OR_RETURN(Value a, pf.transform.Apply(lo->second));
    ASSIGN_OR_RETURN(Value b, pf.transform.Apply(hi->second));
    if (CompareValues(a, b) != 0) {
      return Status::InvalidArgument(fmt::format(
          "data file {} spans more than one partition of {}({}) ({} .. {}); write one file per partition value",
          file.file_path, pf.transform.ToString(), source->name, ValueToText(a), ValueToText(b)));
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace sluice::iceberg
