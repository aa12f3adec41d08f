#pragma once
// Bytes shown inside an error message. Separators may be control bytes ("\x01") that a terminal would swallow,
// so messages print them the way a user would type them in a statement.
#include <string>
#include <string_view>

namespace sluice::format {

// `"` + bytes + `"`: printable ASCII as is (with `"` and `\` escaped), \t \n \r by name, other bytes as \xNN.
std::string QuoteBytes(std::string_view bytes);

}  // namespace sluice::format
