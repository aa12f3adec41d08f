#pragma once
// The jsonpaths job property as users write it: a JSON array of path strings, `["$.a", "$.b.c"]`.
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::format {

// The paths in order, not yet checked as paths (JsonDecoder::Create does that, naming the bad one).
// An empty or blank property gives no paths. Anything but an array of strings is InvalidArgument.
Result<std::vector<std::string>> ParseJsonPathsProperty(std::string_view property);

}  // namespace sluice::format
