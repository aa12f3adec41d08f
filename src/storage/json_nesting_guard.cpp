#include "storage/json_nesting_guard.h"

#include <duckdb.h>
#include <pthread.h>

#include <string>

#include "common/json_nesting.h"

namespace sluice::storage {

size_t MaxJsonNesting() {
  static const size_t limit = [] {
    size_t stack = 8u << 20;
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) == 0) {
      size_t size = 0;
      if (pthread_attr_getstacksize(&attr, &size) == 0 && size > 0) stack = size;
      pthread_attr_destroy(&attr);
    }
    return stack / 1024;
  }();
  return limit;
}

std::optional<size_t> JsonNestingBeyond(std::string_view text, size_t limit) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); i++) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > limit) return depth;
        break;
      case ']':
      case '}':
        if (depth > 0) depth--;
        break;
      default: break;
    }
  }
  return std::nullopt;
}

namespace {

void Guard(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output) {
  const idx_t rows = duckdb_data_chunk_get_size(input);
  duckdb_vector in = duckdb_data_chunk_get_vector(input, 0);
  auto* data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(in));
  uint64_t* validity = duckdb_vector_get_validity(in);
  duckdb_vector_ensure_validity_writable(output);
  uint64_t* out_validity = duckdb_vector_get_validity(output);
  const size_t limit = MaxJsonNesting();
  for (idx_t r = 0; r < rows; r++) {
    if (validity && !duckdb_validity_row_is_valid(validity, r)) {
      duckdb_validity_set_row_invalid(out_validity, r);
      continue;
    }
    const char* bytes = duckdb_string_t_data(&data[r]);
    const idx_t length = duckdb_string_t_length(data[r]);
    if (JsonNestingBeyond(std::string_view(bytes, length), limit)) {
      const std::string message =
          "JSON nested more than " + std::to_string(limit) + " levels deep (arrays and objects within each other) "
          "is refused by json_structure, json_group_structure, json_contains and json_merge_patch: they recurse once "
          "per level and would overflow the server's stack. Flatten the value, or raise the limit (1 level per KiB "
          "of thread stack) with sluice serve --thread-stack-mb";
      duckdb_scalar_function_set_error(info, message.c_str());
      return;
    }
    duckdb_vector_assign_string_element_len(output, r, bytes, length);
  }
}

duckdb_scalar_function Overload(bool json) {
  duckdb_scalar_function f = duckdb_create_scalar_function();
  duckdb_scalar_function_set_name(f, std::string(kJsonNestingGuard).c_str());
  duckdb_logical_type type = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  if (json) duckdb_logical_type_set_alias(type, "JSON");
  duckdb_scalar_function_add_parameter(f, type);
  duckdb_scalar_function_set_return_type(f, type);
  duckdb_destroy_logical_type(&type);
  duckdb_scalar_function_set_function(f, &Guard);
  return f;
}

}  // namespace

Status RegisterJsonNestingGuard(Connection& con) {
  duckdb_scalar_function_set set = duckdb_create_scalar_function_set(std::string(kJsonNestingGuard).c_str());
  Status out = Status::Ok();
  for (bool json : {false, true}) {
    duckdb_scalar_function f = Overload(json);
    if (duckdb_add_scalar_function_to_set(set, f) != DuckDBSuccess)
      out = Status::Internal("could not add an overload of " + std::string(kJsonNestingGuard));
    duckdb_destroy_scalar_function(&f);
  }
  if (out.ok() && duckdb_register_scalar_function_set(con.raw(), set) != DuckDBSuccess)
    out = Status::Internal("could not register " + std::string(kJsonNestingGuard));
  duckdb_destroy_scalar_function_set(&set);
  return out;
}

}  // namespace sluice::storage
