#pragma once
// sluice_json_nesting_guard(x): x unchanged, or an error when x, read as JSON text, nests deeper than
// MaxJsonNesting() levels of arrays and objects. The translator wraps the arguments of DuckDB's JSON functions that
// recurse per level (common/json_nesting.h) in it, so a value built at run time or loaded from a file cannot overflow
// a thread's stack there (a segfault that would end the server). Overloads: VARCHAR -> VARCHAR, JSON -> JSON (any
// other argument is cast to JSON first, as the JSON function itself would). The scan is one pass over the bytes,
// strings and escapes skipped; invalid JSON passes, for the function to refuse.
#include <cstddef>
#include <optional>
#include <string_view>

#include "common/status.h"
#include "storage/database.h"

namespace sluice::storage {

// Levels allowed: the default thread stack (which main sets for every thread, --thread-stack-mb) divided by
// 1 KiB, i.e. 1,048,576 with 1 GiB stacks. The recursive JSON functions take 100-200 bytes per level, so this
// keeps a margin of five or more.
size_t MaxJsonNesting();

// The depth `text` reaches, when it is more than `limit` (nothing otherwise): the guard's check.
std::optional<size_t> JsonNestingBeyond(std::string_view text, size_t limit);

Status RegisterJsonNestingGuard(Connection& con);

}  // namespace sluice::storage
