#pragma once
// DuckDB's JSON functions that recurse once per nesting level of their input, without a depth limit of their own:
// json_structure, json_group_structure, json_contains and json_merge_patch overflow any thread stack on deep
// enough input (on an 8 MiB stack: json_structure at 100,000 levels, json_contains and json_merge_patch at 80,000;
// about 100-200 bytes of stack per level). A value built at run time (repeat('[', n)) or loaded from a file is
// invisible to any scan of the statement text, so the translator wraps every argument of these functions in
// sluice_json_nesting_guard(...), a scalar function (storage/json_nesting_guard.h) that fails the statement when
// its input nests deeper than the server's stacks hold, and passes it through unchanged otherwise.
#include <string_view>

namespace sluice {

inline constexpr std::string_view kJsonNestingGuard = "sluice_json_nesting_guard";

// `lower`: a function name in lower case.
inline bool IsNestingGuardedJsonFunction(std::string_view lower) {
  return lower == "json_structure" || lower == "json_group_structure" || lower == "json_contains" ||
         lower == "json_merge_patch";
}

}  // namespace sluice
