#pragma once
// Case folding for the names Sluice compares without regard to case (keywords, property and setting names,
// variables, formats, auth plugins). ASCII only, whatever the process locale: bytes outside A-Z / a-z, including
// every byte of a multi-byte UTF-8 character, pass through unchanged, so a table named in another script keeps
// its spelling.
#include <string>
#include <string_view>

namespace sluice {

std::string AsciiLower(std::string_view s);
std::string AsciiUpper(std::string_view s);

}  // namespace sluice
