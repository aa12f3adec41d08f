#include "lakehouse/lake_bucket_function.h"

#include <duckdb.h>

#include <string>

#include "iceberg/partition_transform.h"
#include "iceberg/value.h"
#include "sql/parser.h"

namespace sluice::lakehouse {
namespace {

std::string Text(const duckdb_string_t& s) {
  return std::string(duckdb_string_t_data(const_cast<duckdb_string_t*>(&s)), duckdb_string_t_length(s));
}

bool Valid(uint64_t* validity, idx_t row) { return validity == nullptr || duckdb_validity_row_is_valid(validity, row); }

void Bucket(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output) {
  const idx_t rows = duckdb_data_chunk_get_size(input);
  duckdb_vector values = duckdb_data_chunk_get_vector(input, 0);
  duckdb_vector types = duckdb_data_chunk_get_vector(input, 1);
  duckdb_vector counts = duckdb_data_chunk_get_vector(input, 2);
  auto* value_data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(values));
  auto* type_data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(types));
  auto* count_data = static_cast<int32_t*>(duckdb_vector_get_data(counts));
  uint64_t* value_valid = duckdb_vector_get_validity(values);
  uint64_t* type_valid = duckdb_vector_get_validity(types);
  uint64_t* count_valid = duckdb_vector_get_validity(counts);
  auto* out = static_cast<int32_t*>(duckdb_vector_get_data(output));
  duckdb_vector_ensure_validity_writable(output);
  uint64_t* out_valid = duckdb_vector_get_validity(output);
  // The type and count are constants of the expression; parsed once per distinct spelling.
  std::string last_type_text;
  iceberg::Type type;
  for (idx_t r = 0; r < rows; r++) {
    if (!Valid(value_valid, r) || !Valid(type_valid, r) || !Valid(count_valid, r)) {
      duckdb_validity_set_row_invalid(out_valid, r);
      continue;
    }
    const std::string type_text = Text(type_data[r]);
    if (r == 0 || type_text != last_type_text) {
      auto parsed = iceberg::Type::Parse(type_text);
      if (!parsed.ok()) {
        duckdb_scalar_function_set_error(info, parsed.status().message().c_str());
        return;
      }
      type = *parsed;
      last_type_text = type_text;
    }
    const int32_t n = count_data[r];
    if (n <= 0) {
      duckdb_scalar_function_set_error(info, "a bucket count must be positive");
      return;
    }
    auto value = iceberg::ParseValueText(type, Text(value_data[r]));
    Result<iceberg::Value> bucket = value.ok() ? iceberg::Transform{iceberg::TransformKind::kBucket, n}.Apply(*value)
                                               : Result<iceberg::Value>(value.status());
    if (!bucket.ok()) {
      duckdb_scalar_function_set_error(info, bucket.status().message().c_str());
      return;
    }
    if (bucket->is_null()) {
      duckdb_validity_set_row_invalid(out_valid, r);
    } else {
      out[r] = std::get<int32_t>(bucket->v);
    }
  }
}

}  // namespace

Status RegisterIcebergBucketFunction(storage::Connection& con) {
  duckdb_scalar_function f = duckdb_create_scalar_function();
  duckdb_scalar_function_set_name(f, kIcebergBucketFunction);
  duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_logical_type integer = duckdb_create_logical_type(DUCKDB_TYPE_INTEGER);
  duckdb_scalar_function_add_parameter(f, varchar);
  duckdb_scalar_function_add_parameter(f, varchar);
  duckdb_scalar_function_add_parameter(f, integer);
  duckdb_scalar_function_set_return_type(f, integer);
  duckdb_destroy_logical_type(&varchar);
  duckdb_destroy_logical_type(&integer);
  duckdb_scalar_function_set_function(f, &Bucket);
  const bool ok = duckdb_register_scalar_function(con.raw(), f) == DuckDBSuccess;
  duckdb_destroy_scalar_function(&f);
  if (!ok) return Status::Internal(std::string("could not register ") + kIcebergBucketFunction);
  return Status::Ok();
}

Result<std::string> BucketExpressionSql(const std::string& quoted_column, const iceberg::Type& type, int n) {
  std::string text;
  iceberg::Type hashed = type;
  switch (type.id) {
    case iceberg::TypeId::kInt:
    case iceberg::TypeId::kLong:
    case iceberg::TypeId::kDecimal:
    case iceberg::TypeId::kDate:
    case iceberg::TypeId::kTimestamp:
    case iceberg::TypeId::kString:
      text = "CAST(" + quoted_column + " AS VARCHAR)";
      break;
    case iceberg::TypeId::kTimestampTz:
      // The instant in UTC, whatever the session's zone: its microseconds are what the spec hashes.
      text = "CAST(timezone('UTC', " + quoted_column + ") AS VARCHAR)";
      hashed = iceberg::MakeType(iceberg::TypeId::kTimestamp);
      break;
    default:
      return Status::NotSupported("bucket partitions of a " + type.ToString() + " column are not supported; "
                                  "bucket an int, bigint, decimal, date, datetime or varchar column");
  }
  return std::string(kIcebergBucketFunction) + "(" + text + ", " + sql::QuoteLiteral(hashed.ToString()) + ", " +
         std::to_string(n) + ")";
}

}  // namespace sluice::lakehouse
